"""``table-controller verify``: everything the table stored, checked end to end.

Owns the command a regulator's lab or a technician runs to know whether the
records can be trusted: the journal's keyed chain in full (every round
record and table event, controller/store/verify.py), every round's status
against its records, the audit trail's chain (controller/store/audit.py), and
their anchors (controller/store/anchors.py: the journal holds every commit the
audit trail saw), and the trail's head the journal keeps under the table's key
(controller/store/audit_head.py). It names the first thing that does not hold and exits 3;
0 when all of it verifies.
"""

from __future__ import annotations

import argparse
from contextlib import closing
from typing import TYPE_CHECKING

from controller.cli.common import add_journal_options, existing_journal
from controller.cli.progress import Progress

if TYPE_CHECKING:
    from controller.cli.common import Subparsers


def add_commands(sub: Subparsers) -> None:
    p = sub.add_parser("verify", help="check the journal, the audit trail and their anchors in full; "
                       "name the first bad record")
    add_journal_options(p)
    p.set_defaults(func=cmd_verify)


def cmd_verify(args: argparse.Namespace) -> int:
    from controller.app.run import audit_dir
    from controller.store.anchors import check_trail
    from controller.store.verify import verify_journal
    journal, config = existing_journal(args)
    path = journal.path
    trail = audit_dir(config, args.data_dir)
    progress = Progress("verify", "facts")
    with closing(journal):
        try:
            result = verify_journal(journal, progress.update)
        finally:
            progress.clear()
        print(f"journal: {result.keyed} facts on the keyed chain, {result.legacy_records} records before it "
              f"(schema 1), {result.rounds} rounds ({path})")
        if result.legacy_events:
            print(f"journal: {result.legacy_events} table events from before the chain was keyed carry no "
                  "chain: they cannot be verified")
        lines, files, anchors = check_trail(journal, trail)
        print(f"audit trail: {lines} lines in {files} file{'s' if files != 1 else ''} ({trail}), its head "
              "as the journal keeps it under the key")
        print(f"anchors: each of the trail's {anchors} anchors names a fact the journal holds as it was committed "
              f"(through fact {journal.chain_head[0]})")
    print("verified")
    return 0
