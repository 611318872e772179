"""What a console script says when a part of the program that is installed separately is missing.

Owns the one sentence (never a traceback) that names the missing library, what needs it and how to
install it, and the console scripts' entry points (pyproject.toml [project.scripts]), which import
each command line inside that guard: the floor's driver, the PDF report's library or a test tool can
be absent from an environment made by hand, and whoever typed the command should learn what to do.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

# the import name -> what it is for, in the words of whoever meets its absence
PARTS = {
    "psycopg": "the floor's PostgreSQL driver (psycopg, needed by table-floor and by a table with [floor])",
    "psycopg_binary": "the floor's PostgreSQL driver (psycopg-binary)",
    "fpdf": "the PDF report's library (fpdf2, needed by report --pdf)",
    "numpy": "the par sheet's arithmetic (numpy)",
    "aiohttp": "the dealer's page server (aiohttp)",
    "usb": "the USB shoe's driver (pyusb)",
    "serial": "the serial devices' driver (pyserial)",
}
HOW = ("install requirements.lock: scripts/run-table on a development machine, deploy/install.sh on a "
       "table PC")
OWN = ("controller", "drivers", "simulators")
STATUS_MISSING = 2


def missing_part_sentence(err: ModuleNotFoundError) -> str:
    root = (err.name or "").partition(".")[0]
    if root in OWN:
        return f"the program's own module {err.name} is missing: the installation is incomplete; reinstall it ({HOW})"
    what = PARTS.get(root, f"the library {root or 'a library'}")
    return f"{what} is not installed: {HOW}"


def _run(prog: str, module: str) -> int:
    try:
        main: Callable[[], int] = importlib.import_module(module).main
        return main()
    except ModuleNotFoundError as err:
        print(f"{prog}: {missing_part_sentence(err)}", file=sys.stderr)
        return STATUS_MISSING


# The console scripts (pyproject.toml [project.scripts]): each imports its command line inside the
# guard, since a missing library usually fails the import itself, before any main could catch it.
def table_controller() -> int:
    return _run("table-controller", "controller.cli")


def table_sim() -> int:
    return _run("table-sim", "simulators.cli")


def table_floor() -> int:
    return _run("table-floor", "controller.floor.cli")
