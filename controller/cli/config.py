"""``table-controller config check``: a table configuration read as the controller would read it.

Owns the ``config`` group and the summary of a good file; reading and
checking is controller/app/config.py. A bad file exits 2 naming every
problem the file has, one per line, each with its key and line. The summary
shows limits in dollars.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from controller.app.config import load_config
from controller.rules.words import money

if TYPE_CHECKING:
    from controller.cli.common import Subparsers


def add_commands(sub: Subparsers) -> None:
    p = sub.add_parser("config", help="the table configuration")
    p.set_defaults(group_parser=p)
    actions = p.add_subparsers(metavar="ACTION")
    c = actions.add_parser("check", help="check a configuration file; every problem names its key and line")
    c.add_argument("file")
    c.set_defaults(func=cmd_config_check)


def cmd_config_check(args: argparse.Namespace) -> int:
    config = load_config(args.file)
    limits = ", ".join(f"{spot} {money(lim.min, short=True)}-{money(lim.max, short=True)}"
                       for spot, lim in config.preset.limits.items())
    print(f"{args.file}: OK")
    print(f"  table {config.table_id}, preset {config.preset.name}, {config.positions} positions; "
          f"limits {limits}")
    for role, dev in config.devices.items():
        print(f"  {role}: {dev.driver} at {dev.url}")
    print(f"  data {config.data_dir}, audit trail {config.audit_dir or config.data_dir / 'audit'}, "
          f"page http://{config.page_host}:{config.page_port}/ for {', '.join(config.page_allow)}")
    print(f"  configuration digest {config.digest}")
    return 0
