"""The browser for the page tests: one Debian chromium for the session, a fresh context per test."""

from __future__ import annotations

import pytest
from playwright.sync_api import sync_playwright

from tests.support.browser import VIEWPORTS, launch


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=VIEWPORTS["tablet"])
    tab = context.new_page()
    yield tab
    context.close()
