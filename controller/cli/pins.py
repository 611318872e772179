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
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.cli.common import add_journal_options, open_journal, refuse, table_config
from controller.errors import InputError
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


def changed_and_journaled(args: argparse.Namespace, data_dir: Path, file: Path,
                          change: Callable[[], Callable[[], None] | None], kind: str, what: dict[str, Any]) -> bool:
    """Make ``change`` to ``file`` (a change of who may do what: a PIN, a feed reader), which returns
    how to take it back (None: there was nothing to change), and journal it as the table event
    ``kind`` (when this data directory has a journal), on its keyed chain like every fact (a running
    controller's next fact follows this one), or neither. The journal is verified as ``verify`` checks
    it before anything changes: one under another table's key, or altered, refuses the change with
    nothing changed (the change used to be made, and its event chained under a key the journal does
    not hold: the table then refused to start on it). When the event cannot be written, the change is
    taken back."""
    from controller.app.run import JOURNAL_FILE
    from controller.store.journal import Journal
    journal = None
    if (data_dir / JOURNAL_FILE).exists():
        with closing(open_journal(args)) as checked:
            path = checked.path
        journal = Journal(path, key_file=table_config(args).key_file)
    try:
        try:
            undo = change()
        except OSError as err:              # a folder read-only or full: in words (it was a traceback)
            raise InputError(f"{file}: cannot be written: {err.strerror or err}; nothing changed") from None
        if undo is None:
            return False
        if journal is not None:
            try:
                journal.table_event(kind, what)
            except BaseException:
                undo()
                raise
        return True
    finally:
        if journal is not None:
            journal.close()


def cmd_pin_set(args: argparse.Namespace) -> int:
    store, data_dir = _pin_store(args)
    args.name = args.name.strip()           # as the store keeps it: journaled and said the same
    if sys.stdin.isatty():
        pin = getpass.getpass(f"PIN for {args.role} {args.name}: ")
        if getpass.getpass("The same PIN again: ") != pin:
            raise PinError("the two PINs differ; nothing changed")
    else:
        pin = sys.stdin.readline().strip()

    changed_and_journaled(args, data_dir, store.path, lambda: store.set_pin(args.role, args.name, pin),
                          "pin_changed", {"action": "set", "role": args.role, "name": args.name})
    print(f"PIN set for {args.role} {args.name} ({store.path})")
    return 0


def cmd_pin_remove(args: argparse.Namespace) -> int:
    store, data_dir = _pin_store(args)
    args.name = args.name.strip()           # " Ana" is the Ana the store kept (it trims on set)
    if not changed_and_journaled(args, data_dir, store.path, lambda: store.remove(args.role, args.name),
                                 "pin_changed", {"action": "removed", "role": args.role, "name": args.name}):
        refuse(f"no {args.role} named {args.name!r} in {store.path}")
        return 1
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
