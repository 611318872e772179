import os

import pytest
import structlog
from hypothesis import settings

from controller.rules.paytable import load_preset, preset_names

# CI runs are reproducible (the same examples every run); developers explore.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(autouse=True)
def _structlog_defaults():
    """Each test starts from structlog's defaults. A table run configures it for the process, and
    its level filters debug entries before ``capture_logs`` sees them: the driver tests that read
    debug entries passed or failed by which test their worker had run before (``--dist loadfile``)."""
    yield
    structlog.reset_defaults()


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
