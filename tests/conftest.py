import os

import pytest
from hypothesis import settings

from controller.rules.paytable import load_preset, preset_names

# CI runs are reproducible (the same examples every run); developers explore.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session")
def presets():
    return {name: load_preset(name) for name in preset_names()}


@pytest.fixture(scope="session")
def p004(presets):
    return presets["sheet-004"]


@pytest.fixture(scope="session")
def browser():
    """One Debian chromium for the session (the page's and the pit's tests), a context per test."""
    from playwright.sync_api import sync_playwright

    from tests.support.browser import launch
    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()
