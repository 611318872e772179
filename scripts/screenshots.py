"""Screenshots of the dealer's page for docs/screenshots/ (shown in the README).

Runs the real controller on simulated devices with the simulated players, works a round
through the page in Debian's chromium, and saves the main screens at 1280x800 (one at
1920x1080). Run: .venv/bin/python scripts/screenshots.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.support.browser import VIEWPORTS, launch, snapshot, tap, wait_state  # noqa: E402
from tests.support.rig import table  # noqa: E402

OUT = ROOT / "docs" / "screenshots"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as tmp:
        browser = launch(playwright)
        page = browser.new_page(viewport=VIEWPORTS["tablet"])
        with table(Path(tmp), "sheet-004", page=True, players=True, seed=11) as rig:
            rig.run.pins.set_pin("supervisor", "Ana", "2468")
            page.goto(rig.run.page.url)
            wait_state(page, "ready")
            tap(page, "button[data-action=open_betting]")
            wait_state(page, "betting")
            rig.eventually(lambda: rig.sim.players.betting_done)
            page.wait_for_function("() => !window.tableSnapshot.prompt.includes('Shoe shuffling')")
            page.wait_for_timeout(300)
            page.screenshot(path=OUT / "betting.png")
            tap(page, "button[data-action=no_more_bets]")
            wait_state(page, "decisions")
            page.wait_for_timeout(300)
            page.screenshot(path=OUT / "decisions.png")
            while snapshot(page)["state"] == "decisions":
                folds = page.locator("button[data-pos-action=fold]")
                if folds.count():
                    folds.first.click()
                page.wait_for_timeout(150)
            wait_state(page, "settling")
            page.wait_for_timeout(300)
            page.screenshot(path=OUT / "settling.png")
            page.set_viewport_size(VIEWPORTS["full-hd"])
            page.wait_for_timeout(300)
            page.screenshot(path=OUT / "settling-1920.png")
            page.set_viewport_size(VIEWPORTS["tablet"])
            while snapshot(page)["state"] == "settling":
                tap(page, f"#pos-{snapshot(page)['next_to_pay']} button[data-pos-action=confirm]")
                page.wait_for_timeout(150)
            tap(page, "button[data-action=open_betting]")
            wait_state(page, "betting")
            page.wait_for_function("() => !window.tableSnapshot.prompt.includes('Shoe shuffling')")
            tap(page, "#supervisor-menu")
            page.locator("[data-sup=void_round]").click()
            page.locator("#sup-reason").fill("player dispute")
            for digit in "1111":
                page.locator("#keypad button", has_text=digit).first.click()
            page.locator("#sup-submit").click()
            page.wait_for_function("() => document.querySelector('#sup-error').textContent !== ''")
            page.screenshot(path=OUT / "supervisor-pin.png")
            page.locator("#sup-dialog .cancel").click()
            tap(page, "button[data-action=no_more_bets]")
            wait_state(page, "decisions")
            tap(page, "button[data-action=misdeal]")
            page.locator("#misdeal-dialog button[value='a card was exposed']").click()
            wait_state(page, "void")
            page.wait_for_timeout(300)
            page.screenshot(path=OUT / "misdeal.png")
        browser.close()
    print(f"wrote {', '.join(sorted(p.name for p in OUT.glob('*.png')))} to {OUT}")


if __name__ == "__main__":
    main()
