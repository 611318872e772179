"""The layers hold: who may import whom, and no source file past 400 lines.

Read from the source with ``ast`` (imports inside functions count too), so a
shortcut across a layer fails here, naming the file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support import ROOT

PACKAGES = ("controller", "drivers", "simulators")
MAX_LINES = 400


def sources(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def imports(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, absolute, with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}:{node.lineno}: relative import; the code uses absolute ones"
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def offending(package: str, allowed) -> list[str]:
    bad = []
    for path in sources(package):
        for line, module in imports(path):
            if not allowed(path.relative_to(ROOT).as_posix(), module):
                bad.append(f"{path.relative_to(ROOT)}:{line}: imports {module}")
    return bad


def test_drivers_import_nothing_from_the_controller_or_the_simulators():
    assert offending("drivers", lambda f, m: not m.startswith(("controller.", "simulators."))) == []


def test_simulators_import_only_the_controllers_pure_rules():
    """The simulated devices and players stand where hardware and people stand: they know the rules,
    never the controller's insides. The one exception is the deterministic simulation (simulators/sim),
    which assembles the real table in memory as controller/app/run.py does on a PC (issue 30)."""
    assert offending("simulators", lambda f, m: not m.startswith("controller.")
                     or m.startswith("controller.rules.") or f.startswith("simulators/sim/")) == []


def test_the_controller_reaches_the_simulators_in_one_wiring_module_only():
    assert offending("controller", lambda f, m: not m.startswith("simulators.")
                     or f == "controller/app/run.py") == []


def test_the_rules_are_pure_and_the_round_core_does_no_io():
    io = ("serial", "usb", "socket", "select", "aiohttp", "sqlite3", "psycopg", "subprocess", "drivers.wire",
          "drivers.device", "drivers.framed", "drivers.transport", "drivers.shoe", "drivers.sensors", "drivers.sign")
    assert offending("controller/rules", lambda f, m: not m.startswith(io + ("controller.round",
                     "controller.store", "controller.app", "controller.page", "controller.floor",
                     "drivers."))) == []
    assert offending("controller/round", lambda f, m: not m.startswith(io)) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_source_file_is_over_400_lines(package):
    long = [f"{p.relative_to(ROOT)} ({n} lines)" for p in sources(package)
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES]
    assert long == []


def test_the_floor_is_reached_only_by_the_run_its_configuration_and_its_own_command():
    """psycopg is loaded only where a table is on a floor: the rest of the controller never needs it."""
    allowed = ("controller/floor/", "controller/app/run.py")
    assert offending("controller", lambda f, m: not m.startswith("controller.floor.") or f.startswith(allowed)
                     or m.startswith("controller.floor.settings.")) == []
    assert offending("controller", lambda f, m: not m.startswith("psycopg") or f.startswith("controller/floor/")) == []
