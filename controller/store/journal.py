"""The durable journal: every fact of every round, committed before it is acted on.

Owns the SQLite file (standard library; WAL, ``synchronous=FULL``) and its
schema. The engine handles each event inside ``event()``: every record and
table event the event produces is written in one transaction, committed (and
fsynced) when the event is done and before any device is commanded or
anything is shown as done, so a crash leaves an event wholly in the journal or
wholly out of it. Outside an event each write is its own transaction.
Recovery reads the open round's records back in order. ``failpoints`` can
kill the process after any commit, for the tests that prove each is safe.

Schema (version 2):
  meta(key, value)                        schema version, last configuration digest, checkpoint
  rounds(id, opened_at, closed_at, status, preset, void_reason)
                                          status: open | complete | void (checked against the
                                          records by controller/store/verify.py)
  records(seq, round_id, at, kind, data, digest, chain)
  table_events(seq, at, kind, data, digest, chain)
                                          data is JSON; every record and table event (facts
                                          outside a round: configuration changes, device
                                          faults, supervisor actions, jackpot values, PIN
                                          changes) is fact ``chain`` of ONE keyed chain
                                          (controller/store/chain.py: HMAC-SHA256 under the
                                          table's key). Schema 1 records (chain NULL) keep
                                          their plain SHA-256 chain; opening such a journal
                                          adds the columns and the keyed chain continues.
"""

from __future__ import annotations

import contextlib
import functools
import json
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from controller.errors import JournalError
from controller.store.audit_head import AT_COMMIT
from controller.store.audit_head import bind as bind_audit_head
from controller.store.chain import GENESIS, key_path, keyed_digest
from controller.store.failpoints import Failpoints
from controller.store.journal_schema import check_no_foreign_objects, create_tables, journal_key, set_schema

# a fact's data as journaled (and digested): json.dumps with these options builds a new encoder per call
RECORD_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode
TABLE_EVENT_JSON = json.JSONEncoder(sort_keys=True).encode

# every fact of the keyed chain, from both tables
FACTS = ("SELECT chain, digest FROM records WHERE chain IS NOT NULL "
         "UNION ALL SELECT chain, digest FROM table_events WHERE chain IS NOT NULL")



@dataclass(frozen=True)
class Record:
    seq: int
    round_id: int
    at: str
    kind: str
    data: dict[str, Any]


@functools.cache
def _metas_statement(pairs: int) -> str:
    return ("INSERT INTO meta(key, value) VALUES " + ", ".join(["(?, ?)"] * pairs) +
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value")


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _inserted_id(cur: sqlite3.Cursor) -> int:
    """The row id an INSERT just gave (sqlite3 types ``lastrowid`` as None-able for other statements)."""
    assert cur.lastrowid is not None
    return cur.lastrowid


class Journal:
    def __init__(self, path: str | Path, key: bytes | None = None, *, key_file: Path | None = None,
                 upgrade_unkeyed: bool = False):
        self.path = Path(path)
        self._depth = 0                         # transactions open: only the outermost commits
        self._begun = False                     # the open transaction has written (SQLite's is open)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            version = create_tables(self)
            check_no_foreign_objects(self)      # before anything is written: a trigger would run in it
            self.key, made = journal_key(self, version, key, key_file, upgrade_unkeyed)
            try:
                set_schema(self, version)
            except BaseException:           # a key made for this journal goes with the failed upgrade
                if made:
                    key_path(self.path.parent, key_file).unlink(missing_ok=True)
                raise
            row = self.db.execute("SELECT seq, digest FROM records ORDER BY seq DESC LIMIT 1").fetchone()
            self.head: tuple[int, str] = (row[0], row[1]) if row else (0, GENESIS)   # the last record
            self._next_chain, self._last_digest = 1, GENESIS
            self._read_chain_head()
        except (sqlite3.DatabaseError, OSError, ValueError) as err:    # a damaged file too: said, not raised
            raise JournalError(f"{self.path}: cannot open the journal: {err}") from None
        self.failpoints = Failpoints.from_environment()
        self._kinds: list[str] = []             # record kinds written in the open (or last) transaction
        self._data_version: int | None = None  # SQLite's count of other connections' commits, last seen
        self._digest_at_begin = self._last_digest
        self._head_at_begin = self.head
        self._chain_at_begin = self._next_chain
        self.commits = 0
        self.audit_head: Callable[[], str] | None = None   # the audit trail's last line (anchors.py)
        self.verified: tuple[tuple[int, str], int] | None = None  # (chain head, facts) walked at start
        self.heads_keyed = False        # meta keyed_boundary carries its marker (audit_head.py), as read
        # the time each fact is stamped with: the wall clock, or a simulation's virtual one (simulators/sim)
        self.now: Callable[[], str] = now_iso

    @classmethod
    def read_only(cls, path: str | Path, key_file: Path | None = None, *, keyed: bool = True) -> Journal:
        """The journal opened for reading only (controller/store/journal_read.py): nothing is created,
        upgraded or written, and no key is ever made; a copy on read-only media opens too."""
        from controller.store.journal_read import open_read_only
        return open_read_only(cls.__new__(cls), Path(path), key_file, keyed)

    def _read_chain_head(self) -> None:
        """Where the keyed chain ends, from the file: another process (``table-controller pin set``)
        may have added a fact since; read inside the write transaction, so nobody else can, and only
        when SQLite's ``data_version`` says another connection committed (the table's own commits
        keep the head in memory)."""
        self.heads_keyed = False            # and what it may have written is read again
        last = 0
        for table in ("records", "table_events"):
            last = max(last, self.db.execute(f"SELECT COALESCE(MAX(chain), 0) FROM {table}").fetchone()[0])
        if last:
            self._next_chain, self._last_digest = last + 1, self.digest_before(last + 1)
        else:                               # a new journal, or one of schema 1: its records' last digest
            self._next_chain, self._last_digest = 1, self.head[1]

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Every read inside sees the journal as of one commit, its chain's end read again there: a
        table may be committing meanwhile (``verify`` or ``recall`` beside a table that plays), and
        facts, rounds and the trail's head kept under the key must be read from the same commit.
        Inside a transaction already open, that one's."""
        if self._depth or self.db.in_transaction:
            yield
            return
        self.db.execute("BEGIN")
        try:
            self._read_chain_head()         # the first read: the commit every read inside sees
            yield
        finally:
            with contextlib.suppress(sqlite3.DatabaseError):
                self.db.execute("COMMIT")

    def close(self) -> None:
        self.db.close()

    def keep_audit_head(self, head: str | None, at: str) -> None:
        """The trail's ``head`` (None: the one kept) as ``at`` says, under the key, in a commit of its own:
        ``stop``, a clean stop, the trail's very last line; ``commit``, lines may follow it
        (controller/store/audit_head.py)."""
        with self._tx():
            bind_audit_head(self, head, at)

    def trail_trouble(self) -> str | None:
        """Why the audit trail beside this journal can no longer vouch for a commit (a line its disk
        did not take, a failed fsync), or None; the engine halts on it at once."""
        if self.audit_head is None:
            return None
        try:
            self.audit_head()
        except OSError as err:
            return str(err)
        return None

    # --- meta ------------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self._writing()
        self.db.execute("INSERT INTO meta(key, value) VALUES (?, ?) "
                        "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    def set_metas(self, *pairs: tuple[str, str]) -> None:
        """Several meta values in one statement (each commit keeps two: the audit trail's head)."""
        self._writing()
        self.db.execute(_metas_statement(len(pairs)), [v for pair in pairs for v in pair])

    # --- rounds ----------------------------------------------------------------------

    def open_round(self, preset: str) -> int:
        with self._tx():
            self._writing()
            cur = self.db.execute("INSERT INTO rounds(opened_at, status, preset) VALUES (?, 'open', ?)",
                                  (self.now(), preset))
            return _inserted_id(cur)

    def append(self, round_id: int, kind: str, data: dict[str, Any]) -> Record:
        """Write one record of a round. Inside ``event()`` (the engine's every event) it joins the
        event's transaction, committed and fsynced once the event is done, before any device is
        commanded; outside one it is committed (durably) before this returns."""
        text = RECORD_JSON(data)
        at = self.now()
        with self._tx():
            self._writing()
            chain = self._next_chain
            digest = keyed_digest(self.key, self._last_digest, chain, "records", round_id, at, kind, text)
            cur = self.db.execute(
                "INSERT INTO records(round_id, at, kind, data, digest, chain) VALUES (?, ?, ?, ?, ?, ?)",
                (round_id, at, kind, text, digest, chain))
            self._next_chain = chain + 1
            if kind in ("complete", "void"):
                self.db.execute("UPDATE rounds SET status = ?, closed_at = ?, void_reason = ? WHERE id = ?",
                                (kind, at, data.get("reason"), round_id))
            elif kind == "opened":          # the round's time is its opening record's (verify.py checks it)
                self.db.execute("UPDATE rounds SET opened_at = ? WHERE id = ?", (at, round_id))
            self._last_digest = digest
            self.head = (_inserted_id(cur), digest)
            self._kinds.append(kind)
        return Record(_inserted_id(cur), round_id, at, kind, data)

    def table_event(self, kind: str, data: dict[str, Any]) -> str:
        """Write one fact outside a round, committed as ``append`` says; returns its time as journaled."""
        at = self.now()
        text = TABLE_EVENT_JSON(data)
        with self._tx():
            self._writing()
            chain = self._next_chain
            digest = keyed_digest(self.key, self._last_digest, chain, "table_events", None, at, kind, text)
            self.db.execute("INSERT INTO table_events(at, kind, data, digest, chain) VALUES (?, ?, ?, ?, ?)",
                            (at, kind, text, digest, chain))
            self._last_digest, self._next_chain = digest, chain + 1
            self._kinds.append(kind)
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

    def digest_before(self, chain: int) -> str:
        """The digest the keyed chain's fact ``chain`` follows."""
        if chain > 1:
            row = self.db.execute(f"SELECT digest FROM ({FACTS}) WHERE chain = ?", (chain - 1,)).fetchone()
            if row is None:
                raise JournalError(f"{self.path}: fact {chain - 1} of the chain is missing")
            return str(row[0])
        row = self.db.execute("SELECT digest FROM records WHERE chain IS NULL ORDER BY seq DESC LIMIT 1").fetchone()
        return str(row[0]) if row else GENESIS

    def verify_chain(self) -> int:
        """Check every fact (controller/store/verify.py); how many; raises naming the first bad one."""
        from controller.store.verify import verify_journal
        result = verify_journal(self)
        return result.legacy_records + result.keyed

    def check_at_start(self) -> int:
        """Start-up integrity check (controller/store/verify.py ``check_at_start``): how many facts
        were checked; raises JournalError naming the file and the first bad fact."""
        from controller.store.verify import check_at_start
        return check_at_start(self)

    @property
    def chain_head(self) -> tuple[int, str]:
        """The keyed chain's last fact: (its number, its digest)."""
        return self._next_chain - 1, self._last_digest

    def event(self) -> _Transaction:
        """One engine event: everything written inside is one transaction (see the header)."""
        return self._tx()

    @property
    def committed_kinds(self) -> list[str]:
        """The kinds of the facts the last transaction wrote (what an audit anchor names)."""
        return list(self._kinds) if self._depth == 0 else []

    def _tx(self) -> _Transaction:
        return _Transaction(self)

    def _writing(self) -> None:
        """Called before each write: inside a transaction, the first write begins SQLite's (an
        event that writes nothing, most device events, costs no statement and no commit). Outside
        one a write is its own transaction."""
        if self._depth == 0 or self._begun:
            return
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as err:
            raise JournalError(f"{self.path}: cannot write the journal: {err}") from None
        self._begun = True
        try:
            version = self.db.execute("PRAGMA data_version").fetchone()[0]
            if version != self._data_version:  # another connection committed since: re-read the chain,
                check_no_foreign_objects(self)  # and refuse a trigger it added (it would run in this commit)
                self._read_chain_head()
                self._data_version = version   # only once the head was read
        except (sqlite3.DatabaseError, JournalError) as err:
            self._begun = False                 # nothing of this transaction is kept, the head as it was
            with contextlib.suppress(sqlite3.DatabaseError):
                self.db.execute("ROLLBACK")
            if isinstance(err, JournalError):
                raise
            raise JournalError(f"{self.path}: cannot read the journal's chain head: {err}") from None
        self._digest_at_begin, self._head_at_begin = self._last_digest, self.head
        self._chain_at_begin = self._next_chain


class _Transaction:
    """A transaction that nests: the first write begins it, the outermost commits. It commits what was written
    even when the code inside raised something else (those facts were applied in memory: the journal
    must hold them); a database error rolls it back and becomes a JournalError."""

    def __init__(self, journal: Journal):
        self.journal = journal

    def __enter__(self) -> None:
        j = self.journal
        if j._depth == 0:
            j._kinds, j._begun = [], False      # SQLite's transaction begins at the first write
        j._depth += 1

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: object) -> Literal[False]:
        j = self.journal
        j._depth -= 1
        if j._depth:
            return False
        if not j._begun:                        # nothing written: nothing to commit or roll back
            if kind is not None and issubclass(kind, sqlite3.DatabaseError):
                raise JournalError(f"{j.path}: write failed: {err}") from None
            return False
        if kind is not None and issubclass(kind, (sqlite3.DatabaseError, JournalError)):
            self._rollback()
            if issubclass(kind, sqlite3.DatabaseError):
                raise JournalError(f"{j.path}: write failed: {err}") from None
            return False
        try:
            if j.failpoints.armed:
                j.failpoints.before_commit(j._kinds)
            if j._kinds:                    # the audit trail as this commit saw it, under the key
                if j.audit_head is not None:
                    bind_audit_head(j, j.audit_head(), AT_COMMIT)
                else:                       # a writer without the trail (``pin set``): the head as kept
                    bind_audit_head(j, None, None)
            j.db.execute("COMMIT")
        except (sqlite3.DatabaseError, OSError) as commit_err:      # OSError: the audit trail's disk
            self._rollback()
            raise JournalError(f"{j.path}: commit failed: {commit_err}") from None
        j.commits += 1
        if j.failpoints.armed:
            j.failpoints.committed(j._kinds)
        return False

    def _rollback(self) -> None:
        j = self.journal
        j._last_digest, j.head, j._next_chain = j._digest_at_begin, j._head_at_begin, j._chain_at_begin
        try:
            j.db.execute("ROLLBACK")
        except sqlite3.DatabaseError:
            pass                            # SQLite may have rolled back already (disk full)
