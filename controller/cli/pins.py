"""``table-controller pin set|remove|list``: who holds a PIN for which role, and lockouts.

Owns the ``pin`` group, reading a new PIN from the terminal (twice) or from
standard input (once), and journaling each change as a ``pin_changed`` table
event when the data directory has a journal; the PIN file itself is
controller/store/pins.py. A PIN or PIN file that is refused exits 2; removing
a holder that is not there exits 1.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.cli.common import add_journal_options, refuse, table_config
from controller.store.pins import PIN_FILE, ROLES, PinError, PinStore

if TYPE_CHECKING:
    from controller.cli.common import Subparsers


def add_commands(sub: Subparsers) -> None:
    p = sub.add_parser("pin", help="set, remove or list the PINs of supervisors, technicians and dealers")
    p.set_defaults(group_parser=p)
    actions = p.add_subparsers(metavar="ACTION")
    s = actions.add_parser("set", help="give NAME in ROLE a PIN (read twice from the terminal, or once "
                           "from standard input)")
    s.add_argument("role", choices=ROLES)
    s.add_argument("name")
    add_journal_options(s)
    s.set_defaults(func=cmd_pin_set)
    r = actions.add_parser("remove", help="remove NAME's PIN in ROLE")
    r.add_argument("role", choices=ROLES)
    r.add_argument("name")
    add_journal_options(r)
    r.set_defaults(func=cmd_pin_remove)
    ls = actions.add_parser("list", help="who holds a PIN, and which roles are locked out")
    add_journal_options(ls)
    ls.set_defaults(func=cmd_pin_list)


def _pin_store(args: argparse.Namespace) -> tuple[PinStore, Path]:
    """The PIN file under ``--data-dir`` or data.dir, with the configuration's lockout rules."""
    config = table_config(args)
    data_dir = Path(args.data_dir) if args.data_dir else config.data_dir
    return PinStore(data_dir / PIN_FILE, attempts=config.pin_attempts, lockout=config.pin_lockout), data_dir


def journal_table_event(data_dir: Path, kind: str, what: dict[str, Any], key_file: Path | None = None) -> None:
    """A change of who may do what (a PIN, a feed reader) is a table event in the journal (when this
    data directory has one), on its keyed chain like every fact (a running controller's next fact
    follows this one)."""
    from controller.app.run import JOURNAL_FILE
    from controller.store.journal import Journal
    if (data_dir / JOURNAL_FILE).exists():
        journal = Journal(data_dir / JOURNAL_FILE, key_file=key_file)
        try:
            journal.table_event(kind, what)
        finally:
            journal.close()


def cmd_pin_set(args: argparse.Namespace) -> int:
    store, data_dir = _pin_store(args)
    if sys.stdin.isatty():
        pin = getpass.getpass(f"PIN for {args.role} {args.name}: ")
        if getpass.getpass("The same PIN again: ") != pin:
            raise PinError("the two PINs differ; nothing changed")
    else:
        pin = sys.stdin.readline().strip()
    store.set_pin(args.role, args.name, pin)
    journal_table_event(data_dir, "pin_changed", {"action": "set", "role": args.role, "name": args.name},
                        table_config(args).key_file)
    print(f"PIN set for {args.role} {args.name} ({store.path})")
    return 0


def cmd_pin_remove(args: argparse.Namespace) -> int:
    store, data_dir = _pin_store(args)
    if not store.remove(args.role, args.name):
        refuse(f"no {args.role} named {args.name!r} in {store.path}")
        return 1
    journal_table_event(data_dir, "pin_changed", {"action": "removed", "role": args.role, "name": args.name},
                        table_config(args).key_file)
    print(f"PIN removed for {args.role} {args.name}")
    return 0


def cmd_pin_list(args: argparse.Namespace) -> int:
    store, _ = _pin_store(args)
    holders = store.holders()
    for identity in holders:
        print(f"{identity.role:<12}{identity.name}")
    if not holders:
        print(f"no PINs set ({store.path})")
    wait = store.locked_for()
    if wait:
        print(f"PIN entry locked for every role for {int(wait)} s more")
    return 0
