"""Real-browser plumbing for the dealer-page tests: Debian's chromium driven by Playwright.

The test set-up (scripts/run-tests) installs the ``chromium`` package when it
is missing and it may (root with apt-get). Without a browser the page tests
fail with this message rather than skip: an unchecked page is a defect, in CI
and elsewhere.
"""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM = os.environ.get("TABLE_CHROMIUM", "/usr/bin/chromium")
VIEWPORTS = {"tablet": {"width": 1280, "height": 800}, "full-hd": {"width": 1920, "height": 1080}}


def launch(playwright):
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        pytest.fail(f"the dealer-page tests need Chromium at {CHROMIUM}: install Debian's package "
                    "(apt-get install chromium; scripts/run-tests does it when it runs as root) "
                    "or point TABLE_CHROMIUM at a Chromium binary", pytrace=False)
    # --no-sandbox: CI and the developers' machines run as root, where Chromium refuses its sandbox
    return playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])


def tap(page, selector: str) -> None:
    """A touch: the button must be there and enabled (the page offers it), then it is clicked."""
    button = page.locator(selector)
    button.wait_for(state="visible")
    page.wait_for_function("s => { const b = document.querySelector(s); return b && !b.disabled; }",
                           arg=selector)
    button.click()


def wait_state(page, state: str, timeout: float = 10_000) -> None:
    page.wait_for_function("s => document.body.dataset.state === s", arg=state, timeout=timeout)


def snapshot(page) -> dict:
    return page.evaluate("window.tableSnapshot")
