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
import hmac
from contextlib import closing
from typing import TYPE_CHECKING

from controller.cli.common import add_journal_options, existing_journal
from controller.cli.progress import Progress
from controller.errors import InputError, JournalError
from controller.rules.typed_text import DIGITS_MOST

if TYPE_CHECKING:
    from controller.cli.common import Subparsers
    from controller.store.journal import Journal


def add_commands(sub: Subparsers) -> None:
    p = sub.add_parser("verify", help="check the journal, the audit trail and their anchors in full; "
                       "name the first bad record")
    p.add_argument("--anchor", action="append", default=[], metavar="FACT:DIGEST",
                   help="a journal head kept outside the table (a gaming day's report prints it): the journal "
                   "must still hold that fact with that digest; may be given more than once")
    add_journal_options(p)
    p.set_defaults(func=cmd_verify)


def parse_anchor(text: str) -> tuple[int, str]:
    fact, _, digest = text.partition(":")
    if not (fact.isascii() and fact.isdigit() and len(fact) <= DIGITS_MOST) or len(digest) != 64 or \
            any(c not in "0123456789abcdef" for c in digest):
        raise InputError(f"--anchor {text!r}: give FACT:DIGEST, the fact's number and its 64 hex digits, as "
                         "the report prints them")
    return int(fact), digest


def check_anchor(journal: Journal, fact: int, digest: str) -> None:
    """The journal holds fact ``fact`` with ``digest``; IntegrityError naming what it holds otherwise."""
    row = journal.db.execute("SELECT digest FROM records WHERE chain = :c UNION ALL SELECT digest FROM table_events "
                             "WHERE chain = :c", {"c": fact}).fetchone()
    if row is None:
        raise JournalError(f"{journal.path}: the anchor kept outside names fact {fact}, but the journal ends at fact "
                           f"{journal.chain_head[0]}: it was rolled back to an older copy, or is another table's")
    if not hmac.compare_digest(row[0], digest):
        raise JournalError(f"{journal.path}: fact {fact} is not the one the anchor kept outside names: the journal "
                           "was replaced (an older copy, then new rounds), or is another table's")


def cmd_verify(args: argparse.Namespace) -> int:
    from controller.app.run import audit_dir
    from controller.store.anchors import check_trail
    from controller.store.verify import verify_journal
    anchors_outside = [parse_anchor(text) for text in args.anchor]
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
        for fact, digest in anchors_outside:
            check_anchor(journal, fact, digest)
            print(f"anchor kept outside: the journal holds fact {fact} as it was")
    print("verified")
    return 0
