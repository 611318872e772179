"""The forwarder: every fact of the table's journal onto the floor, in order, exactly once.

Owns the table's link to the floor database: one thread with its own read-only SQLite
connection to the journal (controller/store/outbox.py) and its own PostgreSQL connection as
the table's role. It asks the floor for the last record it holds of this table (the last
acknowledged seq), then sends the facts after it in chain order, a batch per transaction
(``INSERT ... ON CONFLICT DO NOTHING`` on (table, seq), each row checked on arrival by
``floor.check_record``), and moves its mark only when the floor committed the batch.

Store and forward: the journal is the table's truth and the engine never waits on the floor
(it does not even know the forwarder runs). When the floor cannot be reached the forwarder
retries after a pause drawn with full jitter under a doubling ceiling (controller/floor/backoff.py:
500 tables do not come back in lockstep after a failover) and, once connected again, asks the floor where it stands, so
a batch whose commit was lost with the link is neither lost nor sent twice. A refusal by the
floor (a resent record that differs, a gap, a broken chain, a bad MAC) is an integrity
alarm: it is logged naming the table and seq, kept in ``status()``, and retried slowly (a
table never edits its journal to please the floor). At each connect the journal is held against
the floor's head of the table's chain (controller/floor/head.py): a journal behind it, or
different at it (rolled back with its audit trail, or another journal), is reported to the floor
(an alarm on the pit), ``on_behind`` is told once (the run halts the engine: the table refuses to
play on it) and nothing is sent.

A quiet link is checked every ``heartbeat`` seconds, and ``on_link`` is told each time the
link comes up or goes down: the run posts it to the engine, where a table on a linked
jackpot closes Super 6 while the floor is out of reach. A table on a linked jackpot also
claims its hits, acknowledges the locks it took and hears of locks and postings on this
connection (controller/floor/table_jackpot.py), between batches and while caught up.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import structlog

from controller.floor.backoff import Backoff
from controller.floor.head import compare, floor_head, report
from controller.floor.link import floor_key, insert_batch, record_row
from controller.floor.settings import FloorSettings
from controller.floor.table_jackpot import TableJackpot
from controller.store.journal import Journal, JournalError
from controller.store.outbox import facts_after

REFUSED_RETRY = 10.0


class Forwarder:
    def __init__(self, settings: FloorSettings, journal_path: str | Path, journal_key: bytes,
                 on_link: Callable[[bool, str], None] | None = None,
                 on_levels: Callable[[dict[str, dict[str, Any]]], None] | None = None,
                 on_claim: Callable[[int, str, dict | None, str | None, bool], None] | None = None,
                 on_differs: Callable[[int, str, dict, dict | None, str | None], None] | None = None,
                 backoff: Backoff | None = None, on_behind: Callable[[str], None] | None = None):
        self.settings = settings
        self.journal_path = Path(journal_path)
        self.key = floor_key(journal_key, settings.table_id)
        self.on_link = on_link          # told each time the link comes up or goes down (run.py: the engine)
        self.on_behind = on_behind      # told once that the journal is behind the floor's (run.py: the engine)
        self.behind: str | None = None  # the words of that, once found
        self._link_up: bool | None = None
        self.backoff = backoff or Backoff()     # the pause after a failed link (full jitter)
        self.pauses: list[float] = []           # the last pauses taken (the status' and a test's)
        self.log = structlog.get_logger("floor").bind(table=settings.table_id)
        # a linked jackpot: claims, lock acknowledgements and the floor's levels (their callbacks: the engine)
        self.jackpot = TableJackpot(settings.jackpot_group, on_levels, on_claim, self.log, on_differs) \
            if settings.jackpot_group else None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._drain = threading.Event()
        self._progress = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="floor-forwarder", daemon=True)
        self.connected = False
        self.confirmed = 0              # the last seq the floor acknowledged holding
        self.sent = 0                   # rows sent
        self.inserted = 0               # rows the floor added (sent - inserted: duplicates it dropped)
        self.refused: str | None = None         # the floor's last refusal, naming table and seq
        self.last_error: str | None = None      # the last link error
        self.link_failures = 0                  # times the link failed (a connect, a batch)

    def start(self) -> Forwarder:
        self._thread.start()
        return self

    def wake(self) -> None:
        """Look at the journal now (instead of at the next poll)."""
        self._wake.set()

    def stop(self, drain: float = 0.0) -> None:
        """Stop; with ``drain`` > 0, first give the forwarder that many seconds to send what the
        journal holds now (the rest is sent by the next run: nothing is lost either way)."""
        if drain > 0 and self._thread.is_alive():
            self._drain.set()
            self._wake.set()
            self._thread.join(drain)
        self._stop.set()
        self._wake.set()
        self._thread.join()

    def wait_confirmed(self, seq: int, timeout: float) -> bool:
        """Wait until the floor acknowledged the table's records up to ``seq``."""
        return self.wait_until(lambda: self.confirmed >= seq, timeout)

    def wait_until(self, condition: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``condition`` (of the status) holds; re-checked at each change of the status."""
        with self._progress:
            return self._progress.wait_for(condition, timeout)

    def _changed(self, **status: Any) -> None:
        with self._progress:
            for name, value in status.items():
                setattr(self, name, value)
            self._progress.notify_all()

    def status(self) -> dict[str, Any]:
        return {"table": self.settings.table_id, "connected": self.connected, "confirmed": self.confirmed,
                "sent": self.sent, "forwarded": self.inserted, "duplicates": self.sent - self.inserted,
                "refused": self.refused, "last_error": self.last_error, "behind": self.behind,
                "link_failures": self.link_failures}

    # --- the thread ------------------------------------------------------------------------

    def _connect(self) -> tuple[psycopg.Connection, tuple[int, str | None]]:
        s = self.settings
        extra: dict[str, Any] = {"user": s.user, "connect_timeout": s.connect_timeout,
                                 "application_name": f"table {s.table_id} forwarder",
                                 # a link that dies silently is noticed in seconds, not hours
                                 "keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2,
                                 "keepalives_count": 3, "options": "-c statement_timeout=30000"}
        password = s.secret()
        if password is not None:
            extra["password"] = password
        conn = psycopg.connect(s.dsn, autocommit=True, **extra)     # each batch is its own transaction
        head = floor_head(conn, s.table_id)
        self._confirm(head[0])
        return conn, head

    def _check_head(self, conn: psycopg.Connection, journal: Journal, head: tuple[int, str | None]) -> None:
        """Refuse a journal behind the floor's head of it, or different there: reported to the floor
        (each connect: the floor keeps one alarm per finding), told to ``on_behind`` once, nothing sent."""
        behind = compare(journal, self.settings.table_id, *head)
        if behind is None:
            return
        words = behind.words()
        if self.behind is None:
            # the table's own comparison is reason enough to stop: told first, so a floor that cannot
            # take the report (an older schema, a missing grant, a timeout) never keeps the table playing
            self.log.critical("floor.journal_behind", floor_seq=behind.floor_seq, journal_end=behind.journal_end,
                              digest=behind.digest)
            self._changed(behind=words)
            if self.on_behind is not None:
                self.on_behind(words)
        try:
            agreed = report(conn, behind)
        except psycopg.Error as err:
            self.log.error("floor.behind_not_reported", reason=str(err).strip())
        else:
            self.log.info("floor.behind_reported", floor_agrees=agreed)
        raise JournalError(words)

    def _link(self, up: bool, reason: str = "") -> None:
        """Tell ``on_link`` when the link changes (not at every retry)."""
        if up != self._link_up:
            self._link_up = up
            if self.on_link is not None:
                self.on_link(up, reason)

    def _lost(self, conn: psycopg.Connection | None, why: str) -> None:
        """The connection is closed, whatever closed it: the table is told the link is down (a linked
        Super 6 closes) until it connects again, since nothing is forwarded or claimed meanwhile."""
        self._link(False, why)
        _close(conn)

    def _confirm(self, seq: int) -> None:
        self._changed(confirmed=seq)

    def _run(self) -> None:
        journal: Journal | None = None
        conn: psycopg.Connection | None = None
        quiet_since = time.monotonic()
        while not self._stop.is_set():
            try:
                if journal is None:
                    journal = Journal.read_only(self.journal_path, keyed=False)
                if conn is None:
                    conn, head = self._connect()
                    self._changed(connected=True, last_error=None)
                    self._link(True)
                    self.backoff.reset()
                    quiet_since = time.monotonic()
                    self.log.info("floor.connected", confirmed=self.confirmed)
                    self._check_head(conn, journal, head)
                    if self.jackpot is not None:
                        self.jackpot.connected(conn, journal)
                        self.jackpot.work(conn)
                facts = facts_after(journal, self.confirmed, self.settings.batch)
                if self.jackpot is not None:
                    self.jackpot.saw(facts)
                if not facts:
                    if self._drain.is_set():
                        break
                    if time.monotonic() - quiet_since >= self.settings.heartbeat:
                        conn.execute("SELECT 1")        # a quiet link is checked: a dead one is noticed
                        quiet_since = time.monotonic()
                    if self.jackpot is not None:        # caught up: wait for the floor's notices instead
                        self.jackpot.work(conn, wait=self.settings.poll)
                    else:
                        self._wake.wait(self.settings.poll)
                    self._wake.clear()
                    continue
                rows = [record_row(self.key, self.settings.table_id, f) for f in facts]
                # one statement in autocommit is one transaction: all the rows or none, and one round trip
                # to the floor instead of three (BEGIN, INSERT, COMMIT)
                with conn.cursor() as cur:
                    cur.execute(insert_batch(len(rows)), [v for row in rows for v in row])
                    added = cur.rowcount
                self.sent += len(rows)
                self.inserted += max(added, 0)
                self.refused = None
                self._confirm(facts[-1].chain)
                quiet_since = time.monotonic()
                if self.jackpot is not None:
                    self.jackpot.work(conn)
            except (psycopg.IntegrityError, psycopg.ProgrammingError) as err:
                # the floor said no (the check on arrival, row-level security, a missing grant):
                # sending the same again soon would only be refused again
                self._changed(refused=_message(err), connected=False)
                self.log.error("floor.refused", reason=self.refused)
                self._lost(conn, f"the floor refused: {self.refused}")
                conn = None
                self._stop.wait(REFUSED_RETRY)
            except (psycopg.Error, OSError) as err:
                if self.connected or self.last_error is None:
                    self.log.warning("floor.link_down", error=_message(err), confirmed=self.confirmed)
                self._changed(last_error=_message(err), connected=False, link_failures=self.link_failures + 1)
                self._lost(conn, self.last_error or "unreachable")
                conn = None
                pause = self.backoff.next()
                self.pauses = [*self.pauses[-9:], pause]
                self._stop.wait(pause)
            except JournalError as err:
                self._changed(refused=str(err), connected=False)
                self.log.error("floor.journal", reason=str(err))
                self._lost(conn, str(err))
                conn = None
                self._stop.wait(REFUSED_RETRY)
            except Exception as err:
                # anything else (a journal read the disk failed, sqlite3's errors; an answer the code did
                # not foresee): said, and tried again on a fresh journal connection. No input ends this
                # thread: a dead forwarder would leave the table's facts unsent with nobody told
                self._changed(refused=f"unexpected: {type(err).__name__}: {err}", connected=False)
                self.log.exception("floor.unexpected", reason=str(err))
                self._lost(conn, f"unexpected: {type(err).__name__}: {err}")
                conn = None
                if journal is not None:
                    with contextlib.suppress(Exception):
                        journal.close()
                    journal = None
                self._stop.wait(REFUSED_RETRY)
        _close(conn)
        if journal is not None:
            journal.close()
        self._changed(connected=False)


def _message(err: BaseException) -> str:
    diag = getattr(err, "diag", None)
    primary = getattr(diag, "message_primary", None)
    return str(primary or err).strip()


def _close(conn: psycopg.Connection | None) -> None:
    """Close what is left of a connection (the caller then drops it)."""
    if conn is not None:
        try:
            conn.close()
        except psycopg.Error:
            pass                            # the link is already gone: nothing to close cleanly
