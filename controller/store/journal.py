"""The durable journal: every fact of every round, committed before it is acted on.

Owns the SQLite file (standard library; WAL, ``synchronous=FULL``) and its
schema. The engine handles each event inside ``event()``: every record and
table event the event produces is written in one transaction, committed (and
fsynced) when the event is done and before any device is commanded or
anything is shown as done, so a crash leaves an event wholly in the journal or
wholly out of it. Outside an event each write is its own transaction.
Recovery reads the open round's records back in order. ``failpoints`` can
kill the process after any commit, for the tests that prove each is safe.

Schema (version 1):
  meta(key, value)                        schema version, last configuration digest, ...
  rounds(id, opened_at, closed_at, status, preset, void_reason)
                                          status: open | complete | void
  records(seq, round_id, at, kind, data, digest)
                                          data is JSON; digest = SHA-256(previous digest,
                                          round, kind, data) chains every record to the one
                                          before, so an edited or removed record is found
  table_events(seq, at, kind, data)       facts outside a round: configuration changes,
                                          device faults, supervisor actions, jackpot values
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from controller.errors import IntegrityError
from controller.store.failpoints import Failpoints

SCHEMA_VERSION = 1
GENESIS = "0" * 64


class JournalError(IntegrityError, RuntimeError):
    """A journal that cannot be trusted or written; the message names the file and record."""


@dataclass(frozen=True)
class Record:
    seq: int
    round_id: int
    at: str
    kind: str
    data: dict[str, Any]


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _inserted_id(cur: sqlite3.Cursor) -> int:
    """The row id an INSERT just gave (sqlite3 types ``lastrowid`` as None-able for other statements)."""
    assert cur.lastrowid is not None
    return cur.lastrowid


def _digest(previous: str, round_id: int, kind: str, data_text: str) -> str:
    return hashlib.sha256(f"{previous}|{round_id}|{kind}|{data_text}".encode()).hexdigest()


class Journal:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self._create()
        except sqlite3.DatabaseError as err:
            raise JournalError(f"{self.path}: cannot open the journal: {err}") from None
        row = self.db.execute("SELECT seq, digest FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        self._last_digest = row[1] if row else GENESIS
        self.head: tuple[int, str] = (row[0], row[1]) if row else (0, GENESIS)   # the last record
        self.failpoints = Failpoints.from_environment()
        self._depth = 0                         # transactions open: only the outermost commits
        self._kinds: list[str] = []             # record kinds written in the open transaction
        self._digest_at_begin = self._last_digest
        self._head_at_begin = self.head
        self.commits = 0

    def _create(self) -> None:
        self.db.executescript("""
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS rounds (
                id INTEGER PRIMARY KEY, opened_at TEXT NOT NULL, closed_at TEXT,
                status TEXT NOT NULL CHECK (status IN ('open', 'complete', 'void')),
                preset TEXT NOT NULL, void_reason TEXT);
            CREATE TABLE IF NOT EXISTS records (
                seq INTEGER PRIMARY KEY, round_id INTEGER NOT NULL REFERENCES rounds(id),
                at TEXT NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL, digest TEXT NOT NULL);
            CREATE INDEX IF NOT EXISTS records_round ON records(round_id, seq);
            CREATE INDEX IF NOT EXISTS records_kind ON records(kind, seq);
            CREATE TABLE IF NOT EXISTS table_events (
                seq INTEGER PRIMARY KEY, at TEXT NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL);
        """)
        version = self.meta("schema_version")
        if version is None:
            self.set_meta("schema_version", str(SCHEMA_VERSION))
        elif version != str(SCHEMA_VERSION):
            raise JournalError(f"{self.path}: journal schema version {version}, this controller "
                               f"reads version {SCHEMA_VERSION}")

    def close(self) -> None:
        self.db.close()

    # --- meta ------------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT INTO meta(key, value) VALUES (?, ?) "
                        "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    # --- rounds ----------------------------------------------------------------------

    def open_round(self, preset: str) -> int:
        with self._tx():
            cur = self.db.execute("INSERT INTO rounds(opened_at, status, preset) VALUES (?, 'open', ?)",
                                  (now_iso(), preset))
            return _inserted_id(cur)

    def append(self, round_id: int, kind: str, data: dict[str, Any]) -> Record:
        """Commit one record (durably, before the caller acts on it)."""
        text = json.dumps(data, sort_keys=True, separators=(",", ":"))
        at = now_iso()
        digest = _digest(self._last_digest, round_id, kind, text)
        with self._tx():
            cur = self.db.execute(
                "INSERT INTO records(round_id, at, kind, data, digest) VALUES (?, ?, ?, ?, ?)",
                (round_id, at, kind, text, digest))
            if kind in ("complete", "void"):
                self.db.execute("UPDATE rounds SET status = ?, closed_at = ?, void_reason = ? WHERE id = ?",
                                (kind, at, data.get("reason"), round_id))
            self._last_digest = digest
            self.head = (_inserted_id(cur), digest)
            self._kinds.append(kind)
        return Record(_inserted_id(cur), round_id, at, kind, data)

    def table_event(self, kind: str, data: dict[str, Any]) -> str:
        """Commit one fact outside a round; returns its time as journaled."""
        at = now_iso()
        with self._tx():
            self.db.execute("INSERT INTO table_events(at, kind, data) VALUES (?, ?, ?)",
                            (at, kind, json.dumps(data, sort_keys=True)))
        return at

    def last_round(self) -> tuple[int, str] | None:
        row = self.db.execute("SELECT id, status FROM rounds ORDER BY id DESC LIMIT 1").fetchone()
        return (row[0], row[1]) if row else None

    def records(self, round_id: int) -> list[Record]:
        rows = self.db.execute("SELECT seq, round_id, at, kind, data FROM records WHERE round_id = ? "
                               "ORDER BY seq", (round_id,)).fetchall()
        out = []
        for seq, rid, at, kind, text in rows:
            try:
                out.append(Record(seq, rid, at, kind, json.loads(text)))
            except json.JSONDecodeError:
                raise JournalError(f"{self.path}: record {seq} (round {rid}, {kind}) is not "
                                   "readable JSON") from None
        return out

    def round_ids(self, last: int) -> list[int]:
        rows = self.db.execute("SELECT id FROM rounds ORDER BY id DESC LIMIT ?", (last,)).fetchall()
        return [r[0] for r in reversed(rows)]

    def verify_chain(self, from_seq: int = 0) -> int:
        """Check the record chain from ``from_seq`` on; raises naming the first bad record."""
        previous = GENESIS
        if from_seq > 1:
            row = self.db.execute("SELECT digest FROM records WHERE seq < ? ORDER BY seq DESC LIMIT 1",
                                  (from_seq,)).fetchone()
            previous = row[0] if row else GENESIS
        expected_seq = None
        checked = 0
        for seq, rid, kind, text, digest in self.db.execute(
                "SELECT seq, round_id, kind, data, digest FROM records WHERE seq >= ? ORDER BY seq",
                (from_seq,)):
            if expected_seq is not None and seq != expected_seq:
                raise JournalError(f"{self.path}: record {expected_seq} is missing (next is {seq})")
            if _digest(previous, rid, kind, text) != digest:
                raise JournalError(f"{self.path}: record {seq} (round {rid}, {kind}) was altered or "
                                   "does not follow the record before it")
            previous, expected_seq = digest, seq + 1
            checked += 1
        return checked

    def check_at_start(self) -> int:
        """Start-up integrity check: the schema, SQLite's own check, and the record chain from the
        last checkpoint on (``verify_chain()`` with no argument checks it all). Returns how many
        records were checked; raises JournalError naming the file and the first bad record."""
        row = self.db.execute("PRAGMA quick_check(1)").fetchone()
        if row[0] != "ok":
            raise JournalError(f"{self.path}: the database is damaged: {row[0]}")
        checkpoint = int(self.meta("verified_through") or 0)
        if checkpoint:
            row = self.db.execute("SELECT digest FROM records WHERE seq = ?", (checkpoint,)).fetchone()
            if row is None or row[0] != self.meta("verified_digest"):
                raise JournalError(f"{self.path}: record {checkpoint} no longer matches the digest "
                                   "recorded when it was last verified")
        checked = self.verify_chain(checkpoint + 1 if checkpoint else 0)
        last = self.db.execute("SELECT seq, digest FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        if last:
            self.set_meta("verified_through", str(last[0]))
            self.set_meta("verified_digest", last[1])
        return checked

    def event(self) -> _Transaction:
        """One engine event: everything written inside is one transaction (see the header)."""
        return self._tx()

    def _tx(self) -> _Transaction:
        return _Transaction(self)


class _Transaction:
    """A transaction that nests: only the outermost begins and commits. It commits what was written
    even when the code inside raised something else (those facts were applied in memory: the journal
    must hold them); a database error rolls it back and becomes a JournalError."""

    def __init__(self, journal: Journal):
        self.journal = journal

    def __enter__(self) -> None:
        j = self.journal
        if j._depth == 0:
            try:
                j.db.execute("BEGIN IMMEDIATE")
            except sqlite3.DatabaseError as err:
                raise JournalError(f"{j.path}: cannot write the journal: {err}") from None
            j._kinds, j._digest_at_begin, j._head_at_begin = [], j._last_digest, j.head
        j._depth += 1

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: object) -> Literal[False]:
        j = self.journal
        j._depth -= 1
        if j._depth:
            return False
        if kind is not None and issubclass(kind, (sqlite3.DatabaseError, JournalError)):
            self._rollback()
            if issubclass(kind, sqlite3.DatabaseError):
                raise JournalError(f"{j.path}: write failed: {err}") from None
            return False
        try:
            j.failpoints.before_commit(j._kinds)
            j.db.execute("COMMIT")
        except sqlite3.DatabaseError as commit_err:
            self._rollback()
            raise JournalError(f"{j.path}: commit failed: {commit_err}") from None
        j.commits += 1
        j.failpoints.committed(j._kinds)
        return False

    def _rollback(self) -> None:
        j = self.journal
        j._last_digest, j.head = j._digest_at_begin, j._head_at_begin
        try:
            j.db.execute("ROLLBACK")
        except sqlite3.DatabaseError:
            pass                            # SQLite may have rolled back already (disk full)
