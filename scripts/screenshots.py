"""Screenshots of the dealer's page for docs/screenshots/ (shown in the README).

Runs the real controller on simulated devices with the simulated players, works a round
through the page in Debian's chromium, and saves the main screens at 1280x800 (one at
1920x1080): betting, no more bets (closed), decisions, settling, a position's problem (past
posting during settlement), a supervisor's wrong PIN, a misdeal, the dealer's sign-in.
Run: .venv/bin/python scripts/screenshots.py
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
        with table(Path(tmp), "sheet-004", page=True, players=True, seed=11, dealer_sign_in=True) as rig:
            rig.run.pins.set_pin("supervisor", "Ana", "2468")
            rig.run.pins.set_pin("dealer", "Bo", "1357")
            page.goto(rig.run.page.url)
            wait_state(page, "ready")
            # the dealer signs in at the start of the shift: the header's touch, then the PIN's keypad
            tap(page, "#on-duty")
            for digit in "1357":
                page.locator("#shift-keypad button", has_text=digit).first.click()
            page.wait_for_timeout(200)
            page.screenshot(path=OUT / "dealer-sign-in.png")
            page.locator("#shift-submit").click()
            page.wait_for_function("() => window.tableSnapshot.shift.dealer === 'Bo'")
            page.wait_for_selector("#toast", state="hidden")        # its toast must not cover the round
            tap(page, "button[data-action=open_betting]")
            wait_state(page, "betting")
            rig.eventually(lambda: rig.sim.players.betting_done)
            page.wait_for_function("() => !window.tableSnapshot.prompt.includes('Shoe shuffling')")
            page.wait_for_timeout(300)
            page.screenshot(path=OUT / "betting.png")
            tap(page, "button[data-action=no_more_bets]")
            wait_state(page, "closed")
            page.wait_for_timeout(300)
            page.screenshot(path=OUT / "closed.png")
            tap(page, "button[data-action=deal]")
            wait_state(page, "decisions")
            page.wait_for_timeout(300)
            page.screenshot(path=OUT / "decisions.png")
            players = rig.sim.players
            playing = [p for p, w in players.bets.items() if w.get("ante") and p not in players.folded]
            page.wait_for_function("ps => ps.every(p => window.tableSnapshot.positions[p - 1].decision)",
                                   arg=playing)
            for position in sorted(players.folded):
                tap(page, f"#pos-{position} button[data-pos-action=fold]")
            wait_state(page, "collecting")
            tap(page, "button[data-action=reveal]")
            wait_state(page, "settling")
            page.wait_for_timeout(300)
            page.screenshot(path=OUT / "settling.png")
            page.set_viewport_size(VIEWPORTS["full-hd"])
            page.wait_for_timeout(300)
            page.screenshot(path=OUT / "settling-1920.png")
            page.set_viewport_size(VIEWPORTS["tablet"])
            # past posting: chips put on a position the dealer has not settled yet
            snap = snapshot(page)
            late = [p for p in snap["settlement_order"] if p != snap["next_to_pay"]
                    and not snap["positions"][p - 1].get("settlement", {}).get("paid")][0]
            spot = "pair_plus"
            rig.sim.sensors.place(late, spot, players.bets[late].get(spot, 0) + 500)
            page.wait_for_selector(f"#pos-{late} .problems")
            page.wait_for_timeout(300)
            page.screenshot(path=OUT / "problem.png")
            if players.bets[late].get(spot):
                rig.sim.sensors.place(late, spot, players.bets[late][spot])      # put back as it was
            else:
                rig.sim.sensors.remove(late, spot)
            while (snap := snapshot(page))["state"] == "settling":
                tap(page, f"#pos-{snap['next_to_pay']} button[data-pos-action=confirm]")
                page.wait_for_function("n => window.tableSnapshot.next_to_pay !== n", arg=snap["next_to_pay"])
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
            tap(page, "button[data-action=deal]")
            tap(page, "button[data-action=misdeal]")
            page.locator("#misdeal-dialog button[data-reason='a card was exposed']").click()
            page.screenshot(path=OUT / "misdeal-confirm.png")
            page.locator("#misdeal-yes").click()
            wait_state(page, "void")
            page.wait_for_timeout(300)
            page.screenshot(path=OUT / "misdeal.png")
        busy(browser, Path(tmp) / "busy")
        browser.close()
    print(f"wrote {', '.join(sorted(p.name for p in OUT.glob('*.png')))} to {OUT}")


def busy(browser, folder: Path) -> None:
    """Six busy positions settling at 1024x768, the screen chosen Spanish on the page (?lang=es)."""
    from tests.page.test_page_layout import BUSY
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    with table(folder, "sheet-004", page=True, seed=3) as rig:
        page.goto(rig.run.page.url + "?lang=es")
        page.wait_for_function("() => document.documentElement.lang === 'es'")
        wait_state(page, "ready")
        rig.open_and_bet(BUSY)
        rig.act("no_more_bets")
        rig.state("closed")
        for position in (2, 5):
            rig.sim.sensors.place(position, "pair_plus", 500)
        rig.wait(lambda s: s["positions"][4]["problems"])
        rig.act("deal")
        rig.state("decisions")
        for position in (1, 2, 4, 6):
            rig.play(position)
        for position in (3, 5):
            rig.act("fold", position=position)
        rig.reveal()
        page.wait_for_selector(".pos.next")
        page.wait_for_timeout(300)
        page.screenshot(path=OUT / "busy-1024-es.png")
    page.close()


if __name__ == "__main__":
    main()
