"""The page tests' tab: a fresh context per test in the session's chromium (tests/conftest.py)."""

from __future__ import annotations

import pytest

from tests.support.browser import VIEWPORTS


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=VIEWPORTS["tablet"])
    tab = context.new_page()
    yield tab
    context.close()
