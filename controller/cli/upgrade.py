"""``table-controller upgrade-journal``: a journal of the older, unkeyed form (schema 1) keyed, once.

Owns the one way a schema-1 journal (written before the keyed chain) is given this table's key. The
table never does it on its own: without the key nothing tells a genuine old journal from one rewritten
into that form with its key and trail deleted, so a technician who has checked it is this table's own
(its backups, the day's `verify --anchor` lines) upgrades it, journaled with who and why. Exit 0 done,
1 nothing to upgrade (the journal is keyed already), 2 no journal or bad input, 3 a schema-1 journal
beside a key (a journal rewritten in the older form: the table refuses it, and so does this).
"""

from __future__ import annotations

import argparse
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from controller.cli.common import add_journal_options, refuse, table_config
from controller.errors import InputError, IntegrityError
from controller.rules.typed_text import text_problem

if TYPE_CHECKING:
    from controller.cli.common import Subparsers


def add_commands(sub: Subparsers) -> None:
    p = sub.add_parser("upgrade-journal", help="give a schema-1 journal (from before the keyed chain) this "
                       "table's key, once, after checking it is this table's own (journaled with who and why)")
    p.add_argument("--by", required=True, metavar="NAME", help="the technician upgrading it")
    p.add_argument("--reason", required=True, metavar="TEXT", help="how it was checked to be this table's")
    add_journal_options(p)
    p.set_defaults(func=cmd_upgrade)


def cmd_upgrade(args: argparse.Namespace) -> int:
    from controller.app.run import JOURNAL_FILE
    from controller.store.journal import Journal
    from controller.store.verify import verify_journal
    by, reason = args.by.strip(), args.reason.strip()
    if not by or not reason:
        raise InputError("--by and --reason must name who upgrades the journal and why (both are journaled)")
    for name, text in (("--by", by), ("--reason", reason)):
        if (problem := text_problem(name, text)) is not None:
            raise InputError(problem)
    config = table_config(args)
    path = (Path(args.data_dir) if args.data_dir else config.data_dir) / JOURNAL_FILE
    if not path.exists():
        raise InputError(f"{path}: no journal here (give --data-dir or --config)")
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.DatabaseError as err:
            raise InputError(f"{path}: cannot read the journal: {err}") from None
        if row is not None and row[0] == "1":
            _old_chain_holds(db, path)      # before anything is made: a key, the new columns, the event
    if row is None or row[0] != "1":
        refuse(f"{path}: the journal is keyed already (schema {row[0] if row else 'unknown'}): nothing to upgrade")
        return 1
    with closing(Journal(path, key_file=config.key_file, upgrade_unkeyed=True)) as journal:
        journal.table_event("journal_upgraded", {"from_schema": 1, "by": by, "reason": reason})
        result = verify_journal(journal)
        schema = journal.meta("schema_version")
    print(f"{path}: keyed (schema {schema}) by {by}: {result.legacy_records} records and {result.legacy_events} "
          f"table events of the older form, {result.keyed} facts under the key")
    return 0


def _old_chain_holds(db: sqlite3.Connection, path: Path) -> None:
    """The schema-1 records on their plain SHA-256 chain, read as they are: an altered one refuses the
    upgrade with nothing changed (keyed first, it was then found altered, and the journal was left
    keyed and upgraded, its retry told there was nothing to upgrade)."""
    from controller.store.verify import plain_chain
    _, _, broken = plain_chain(db.execute("SELECT seq, round_id, kind, data, digest FROM records ORDER BY seq"))
    if broken is not None:
        seq, round_id, kind = broken
        raise IntegrityError(f"{path}: record {seq} (round {round_id}, {kind}) was altered, removed or "
                             "inserted: the journal is not keyed; nothing changed")
