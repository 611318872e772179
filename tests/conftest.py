import os

import pytest
import structlog
from hypothesis import settings

from controller.rules.paytable import load_preset, preset_names

# CI runs are reproducible (the same examples every run); developers explore.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

CAMPAIGN = "campaign"


def pytest_configure(config):
    config.addinivalue_line("markers", f"{CAMPAIGN}: a full campaign (every crash point, every preset, "
                            "thousands of rounds); left out of the default run, chosen with `-m campaign` "
                            "(scripts/run-campaigns). Each campaign's seeded sample runs by default.")


def pytest_collection_modifyitems(config, items):
    """Campaigns run only when a ``-m`` expression names them, or when a test is named by its id:
    the default suite runs each campaign's seeded sample and fits in five minutes (issue 30)."""
    if CAMPAIGN in (config.option.markexpr or ""):
        return
    named = {arg for arg in config.args if "::" in arg}
    kept, left = [], []
    for item in items:
        asked = any(item.nodeid == arg or item.nodeid.endswith("/" + arg) for arg in named)
        (left if item.get_closest_marker(CAMPAIGN) and not asked else kept).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


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
    from playwright.sync_api import expect, sync_playwright

    from tests.support.browser import launch
    # an expectation waits for what the page must come to show: 15 s, not Playwright's 5 s, for a
    # loaded 2-core machine running the table, its page and Chromium at once (a deadline: a page that
    # shows it at once passes at once)
    expect.set_options(timeout=15_000)
    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()
