"""``table-sim``: starts the simulated shoe, sensors and sign.

The device models are not built yet (issue 4); until then this command says so
and exits with status 2 rather than pretending to run a table.
"""

import sys


def main(argv: list[str] | None = None) -> int:
    print("table-sim: the device simulators are not built yet", file=sys.stderr)
    return 2
