import pytest

from controller.paytable import load_preset, preset_names


@pytest.fixture(scope="session")
def presets():
    return {name: load_preset(name) for name in preset_names()}


@pytest.fixture(scope="session")
def p004(presets):
    return presets["sheet-004"]
