"""The journal's tables and its schema version: made for a new journal, upgraded from schema 1.

Owns the SQL that creates the journal's tables (controller/store/journal.py describes them) and
the schema's upgrades. A new journal, or one upgraded from schema 1, gets meta ``keyed_boundary``
(where its unkeyed part ends, under the key: controller/store/verify.py), marked as keying the
audit trail's head from its first keyed fact on (controller/store/audit_head.py).
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from controller.errors import JournalError
from controller.store.audit_head import boundary_with_marker
from controller.store.chain import GENESIS, boundary_mac, key_path, load_key

SCHEMA_VERSION = 2
DOWNGRADED = ("a schema 1 journal beside this table's key: the journal was rewritten in the older, "
              "unkeyed form (or is another table's)")
NO_VERSION = ("a journal holding facts but no schema version: a new journal holds none, so it was altered "
              "(its version removed, to have the table key it as new); call a technician")
UNKEYED = ("a schema 1 journal (from before the keyed chain) and no key: it is keyed once, by a technician, with "
           "`table-controller upgrade-journal`, after checking it is this table's own (a journal rewritten into "
           "that form, its key and trail deleted, would look the same); nothing is played on it meanwhile")

if TYPE_CHECKING:
    from pathlib import Path

    from controller.store.journal import Journal


def create_tables(journal: Journal) -> str | None:
    """The tables (for a new journal); the schema version found (None: a new journal). Made in one
    transaction: another process reading the journal meanwhile (the floor demo watching a table start,
    ``recall``) finds all of them or none; made a statement at a time, it found ``records`` and no
    ``table_events``, and failed on it."""
    try:
        _create(journal)
    except sqlite3.DatabaseError:
        if journal.db.in_transaction:           # a statement failed (a full disk): nothing is left half made
            journal.db.execute("ROLLBACK")
        raise
    return journal.meta("schema_version")


def _create(journal: Journal) -> None:
    journal.db.executescript("""
        BEGIN IMMEDIATE;
        CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS rounds (
            id INTEGER PRIMARY KEY, opened_at TEXT NOT NULL, closed_at TEXT,
            status TEXT NOT NULL CHECK (status IN ('open', 'complete', 'void')),
            preset TEXT NOT NULL, void_reason TEXT);
        CREATE TABLE IF NOT EXISTS records (
            seq INTEGER PRIMARY KEY, round_id INTEGER NOT NULL REFERENCES rounds(id),
            at TEXT NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL, digest TEXT NOT NULL,
            chain INTEGER UNIQUE);
        CREATE INDEX IF NOT EXISTS records_round ON records(round_id, seq);
        CREATE INDEX IF NOT EXISTS records_kind ON records(kind, seq);
        CREATE TABLE IF NOT EXISTS table_events (
            seq INTEGER PRIMARY KEY, at TEXT NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL,
            digest TEXT, chain INTEGER UNIQUE);
        -- the table's facts of a kind, newest or since one: start-up (the dealer signed in, a finding
        -- behind the floor, the jackpot's postings) and each round's end (PIN changes since the
        -- sign-in) ask by kind; without it each of those read every table event ever kept
        CREATE INDEX IF NOT EXISTS table_events_kind ON table_events(kind, seq);
        COMMIT;
    """)


def journal_key(journal: Journal, version: str | None, key: bytes | None, key_file: Path | None,
                upgrade_unkeyed: bool) -> tuple[bytes, bool]:
    """The journal's key, and whether it was made now. A key is made only for a new journal (no version
    and no fact), or to key a schema-1 journal when a technician asks (`upgrade-journal`): without the
    key nothing tells a journal of the older, unkeyed form, or one without its version, from one
    rewritten so with its key and trail deleted, so the table never keys one on its own."""
    if key is not None:
        return key, False
    if version is None and any(journal.db.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone()
                               for table in ("rounds", "records", "table_events")):
        raise JournalError(f"{journal.path}: {NO_VERSION}")
    if version == "1" and not upgrade_unkeyed and not key_path(journal.path.parent, key_file).exists():
        raise JournalError(f"{journal.path}: {UNKEYED}")
    made_key, made = load_key(journal.path.parent, key_file,
                              create=version is None or (version == "1" and upgrade_unkeyed))
    if version == "1" and not made:
        raise JournalError(f"{journal.path}: {DOWNGRADED}")
    return made_key, made


def check_no_foreign_objects(journal: Journal) -> None:
    """The journal holds no trigger and no view: it never makes one. A trigger put in by someone with
    the file runs inside the table's own commits (rewriting a payment as it is written, or a fact
    once the start-up check has passed), and a view can stand where a table's name is read: refused
    by name before anything is written or shown."""
    row = journal.db.execute("SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view') "
                             "ORDER BY type, name LIMIT 1").fetchone()
    if row:
        raise JournalError(f"{journal.path}: the journal holds a {row[0]} {row[1]!r}, which the table never "
                           "makes: someone changed the database's schema; call a technician")


def set_schema(journal: Journal, version: str | None) -> None:
    if version not in (None, "1", str(SCHEMA_VERSION)):
        raise JournalError(f"{journal.path}: journal schema version {version}, this controller "
                           f"reads version {SCHEMA_VERSION}")
    if version == "1":
        _upgrade_from_1(journal)
    elif version is None:
        journal.set_meta("schema_version", str(SCHEMA_VERSION))
    if journal.meta("keyed_boundary") is None and version != str(SCHEMA_VERSION):
        # where the unkeyed part ends, under the key: a later rewrite into the old form is caught
        last = journal.db.execute("SELECT digest FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        events = journal.db.execute("SELECT COUNT(*) FROM table_events").fetchone()[0]
        records = journal.db.execute("SELECT COUNT(*) FROM records").fetchone()[0]
        boundary = boundary_with_marker(f"{records}|{last[0] if last else GENESIS}|{events}", 1)
        journal.set_meta("keyed_boundary", boundary)
        journal.set_meta("keyed_boundary_mac", boundary_mac(journal.key, boundary))


def _upgrade_from_1(journal: Journal) -> None:
    """Schema 1 to 2, in one transaction: the chain columns; the facts already there keep
    their schema-1 form (verify.py checks them as such) and the keyed chain follows them."""
    journal.db.execute("BEGIN IMMEDIATE")
    journal.db.execute("ALTER TABLE records ADD COLUMN chain INTEGER")
    journal.db.execute("ALTER TABLE table_events ADD COLUMN digest TEXT")
    journal.db.execute("ALTER TABLE table_events ADD COLUMN chain INTEGER")
    journal.db.execute("CREATE UNIQUE INDEX records_chain ON records(chain)")
    journal.db.execute("CREATE UNIQUE INDEX table_events_chain ON table_events(chain)")
    journal.set_meta("schema_version", str(SCHEMA_VERSION))
    journal.db.execute("COMMIT")
