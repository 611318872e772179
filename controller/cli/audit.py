"""``table-controller audit verify``: whether the audit trail still chains from its first line.

Owns the ``audit`` group and the verdict's wording; the verification is
controller/store/audit.py. A broken chain is this command's answer, not a
failure to run: it exits 1 naming the first bad line (not 3, as an
``IntegrityError`` elsewhere would). No trail where the options point, or a
bad configuration, exits 2.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from controller.cli.common import add_journal_options, refuse, table_config
from controller.errors import InputError
from controller.store.audit import AuditError, verify

if TYPE_CHECKING:
    from controller.cli.common import Subparsers


def add_commands(sub: Subparsers) -> None:
    p = sub.add_parser("audit", help="the audit trail")
    p.set_defaults(group_parser=p)
    actions = p.add_subparsers(metavar="ACTION")
    v = actions.add_parser("verify", help="check the chain of every audit file; name the first bad line")
    add_journal_options(v)
    v.set_defaults(func=cmd_audit_verify)


def cmd_audit_verify(args: argparse.Namespace) -> int:
    from controller.app.run import audit_dir
    directory = audit_dir(table_config(args), args.data_dir)
    if not directory.is_dir():
        raise InputError(f"{directory}: no audit trail here")
    try:
        lines, files = verify(directory)
    except AuditError as err:
        refuse(f"audit trail broken: {err}")
        return 1
    print(f"audit trail intact: {lines} lines in {files} file{'s' if files != 1 else ''} ({directory})")
    return 0
