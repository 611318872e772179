"""Real-browser plumbing for the dealer-page tests: Debian's chromium driven by Playwright.

The test set-up (scripts/run-tests) installs the ``chromium`` package when it
is missing and it may (root with apt-get). Without a browser the page tests
fail with this message rather than skip: an unchecked page is a defect, in CI
and elsewhere.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("TABLE_CHROMIUM", "/usr/bin/chromium")
VIEWPORTS = {"tablet": {"width": 1280, "height": 800}, "full-hd": {"width": 1920, "height": 1080}}
# What No more bets needs of the devices, as the page's snapshot ``s`` shows it: the shuffle done and the
# sensors' reading of every spot since they connected (either may come last: on a slower machine the
# shuffle came first, and No more bets was rightly refused for the unread felt)
CLOSABLE = "!s.prompt.includes('Shoe shuffling') && s.devices.sensors.detail === 'online'"


def launch(playwright):
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        pytest.fail(f"the dealer-page tests need Chromium at {CHROMIUM}: install Debian's package "
                    "(apt-get install chromium; scripts/run-tests does it when it runs as root) "
                    "or point TABLE_CHROMIUM at a Chromium binary", pytrace=False)
    # --no-sandbox: CI and the developers' machines run as root, where Chromium refuses its sandbox
    return playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])


def tap(page, selector: str) -> None:
    """A touch: the button must be there and enabled (the page offers it, so it neither is
    disabled nor looks it), then it is clicked."""
    button = page.locator(selector)
    button.wait_for(state="visible")
    page.wait_for_function("s => { const b = document.querySelector(s); return b && !b.disabled &&"
                           " b.getAttribute('aria-disabled') !== 'true'; }", arg=selector)
    button.click()


def touch(page, selector: str) -> None:
    """A touch on whatever is there, offered or not (a button that looks disabled still hears it)."""
    button = page.locator(selector)
    button.wait_for(state="visible")
    button.click(force=True)


def wait_state(page, state: str, timeout: float = 15_000) -> None:
    page.wait_for_function("s => document.body.dataset.state === s", arg=state, timeout=timeout)


def snapshot(page) -> dict:
    return page.evaluate("window.tableSnapshot")


def open_page(page, rig, url: str | None = None) -> None:
    """The dealer's page of the rig's table (or another page of it at ``url``), live and ready."""
    from playwright.sync_api import expect
    page.goto(url or rig.run.page.url)
    expect(page.locator("#link")).to_have_text("Live")
    wait_state(page, "ready")


def bets_down(page, rig) -> None:
    """Open betting from the page and wait until the simulated players' chips are all seen and
    the shoe has shuffled."""
    players = rig.sim.players
    with players.lock:          # chips left out from a round dealt: picked up first (counted in rounds)
        left_out = players.rounds if players.betting_done and players._locked_since_bets else None
    tap(page, "button[data-action=open_betting]")
    wait_state(page, "betting")

    def this_rounds_bets() -> bool:
        # the bets of this round, not the last round's still out: after a void the last bets satisfied
        # the wait at once, and the page was then waited on for chips the players had picked up
        with players.lock:      # both read as one: the pick-up counts the round and clears the flag together
            return players.betting_done and (left_out is None or players.rounds > left_out)
    rig.eventually(this_rounds_bets, what="the players' bets")
    page.wait_for_function(
        f"bets => {{ const s = window.tableSnapshot; return {CLOSABLE} &&"
        " Object.entries(bets).every(([p, w]) => Object.entries(w).every(([k, v]) =>"
        " s.positions[p - 1].felt[k] === v)); }", arg={str(p): w for p, w in players.bets.items()})


def shuffled(page) -> None:
    """The shuffle done and the felt read: No more bets can close the betting."""
    page.wait_for_function(f"() => {{ const s = window.tableSnapshot; return {CLOSABLE}; }}")


def screenshot_dir(tmp_path) -> Path:
    """Where a test's screenshot goes: its own folder, or the docs' when asked
    (``SCREENSHOTS=docs/screenshots``): a test run leaves the source tree as it found it."""
    from tests.support import ROOT
    chosen = os.environ.get("SCREENSHOTS")
    folder = ROOT / chosen if chosen else Path(tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
