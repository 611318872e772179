"""The table's live feed for the surveillance room and casino systems: every fact the journal holds,
in the order of its keyed chain, as server-sent events that resume exactly where a reader left off.

Owns ``GET /api/feed`` (docs/feed.md is the contract a vendor builds to). Each event is one fact:
``id:`` its number on the table's chain (the same number across restarts: it is stored), ``event:
fact``, ``data:`` the fact as JSON. A reader that reconnects with ``Last-Event-ID: N`` (browsers'
EventSource does it by itself) or ``?after=N`` gets every fact after N, nothing missed and nothing
twice. Facts are read from the journal file through a read-only SQLite connection of the stream's
own, off the page's event loop, and only committed facts exist there: a fact is in the feed once
the table has journaled it, never before.

A reader needs a token of its own (``Authorization: Bearer TOKEN``; controller/store/readers.py,
``table-controller feed add NAME``): it can read the feed and nothing else. The page's fence
(addresses, Host, another site's page) applies as to every route. At most ``MOST`` feeds run at once;
a reader that does not read is cut off after ``STALL`` seconds holding ``HIGH_WATER`` unsent bytes,
like the dealer page's streams (controller/page/streams.py), and resumes from its last id.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import sqlite3
from pathlib import Path
from typing import Any, Protocol

from aiohttp import web

from controller.page.streams import HIGH_WATER, KEEPALIVE, STALL, TICK, send_bounded
from controller.store.chain import GENESIS, keyed_digest
from controller.store.readers import FeedReaders

MOST = 16                       # feeds at once: the surveillance rooms and the casino systems, as many as pages
PER_READER = 4                  # of them one reader's: a leaked or looping client cannot take every slot
BATCH = 500                     # facts read from the journal per query (a reader far behind catches up in steps)
FACTS_AFTER = (                 # each fact, with what its digest was computed over (controller/store/chain.py)
    "SELECT chain, 'records', round_id, at, kind, data, digest FROM records WHERE chain > :after "
    "UNION ALL SELECT chain, 'table_events', NULL, at, kind, data, digest FROM table_events WHERE chain > :after "
    "ORDER BY 1 LIMIT :most")


class FeedRefused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class FactSource(Protocol):
    """Where a feed reads its facts: the table's journal, or one table's records on a floor. Each
    stream opens its own connection, read off the page's loop; a row is (fact number, round, at,
    kind, data as JSON text, digest)."""
    table_id: str
    errors: tuple[type[Exception], ...]         # what a read that failed raises (the reader resumes later)

    def open(self) -> Any: ...

    def last(self, connection: Any) -> int: ...

    def after(self, connection: Any, after: int, most: int) -> list[tuple[Any, ...]]: ...


class FactAltered(sqlite3.DatabaseError):
    """A fact of the journal does not hold on the table's keyed chain: the feed stops before it."""


class JournalFacts:
    """The table's own journal, read-only (SQLite ``mode=ro``). With the table's ``key`` each fact is
    checked on the keyed chain before it is sent (controller/store/chain.py): the start-up check
    walked the journal once, and a row edited in the file while the table plays would otherwise
    reach surveillance as a fact. The facts before an altered one are sent; it and what follows
    are not (``FactAltered``: the stream ends, a reader resuming is refused at the same fact)."""
    errors: tuple[type[Exception], ...] = (sqlite3.Error,)

    def __init__(self, journal_path: Path, table_id: str, key: bytes | None = None):
        self.journal_path = journal_path
        self.table_id = table_id
        self.key = key

    def open(self) -> sqlite3.Connection:
        return sqlite3.connect(f"{self.journal_path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)

    def last(self, connection: sqlite3.Connection) -> int:
        row = connection.execute("SELECT max(c) FROM (SELECT max(chain) AS c FROM records UNION ALL "
                                 "SELECT max(chain) FROM table_events)").fetchone()
        return int(row[0] or 0)

    def after(self, connection: sqlite3.Connection, after: int, most: int) -> list[tuple[Any, ...]]:
        rows = connection.execute(FACTS_AFTER, {"after": after, "most": most}).fetchall()
        if self.key is None:
            return [(chain, round_id, at, kind, data, digest) for chain, _, round_id, at, kind, data, digest in rows]
        previous, expected = _digest_of(connection, after), after + 1
        held: list[tuple[Any, ...]] = []
        for chain, stored_in, round_id, at, kind, data, digest in rows:
            if chain != expected or not hmac.compare_digest(
                    keyed_digest(self.key, previous, chain, stored_in, round_id, at, kind, data), digest):
                if held:
                    break                       # what holds is sent; the next read stops here
                raise FactAltered(f"{self.journal_path}: fact {expected} of the chain is missing or altered: "
                                  "the feed stops before it (table-controller verify names it)")
            held.append((chain, round_id, at, kind, data, digest))
            previous, expected = digest, expected + 1
        return held


def _digest_of(connection: sqlite3.Connection, chain: int) -> str:
    """The digest fact ``chain + 1`` follows: fact ``chain``'s, or before fact 1 the unkeyed part's last."""
    if chain > 0:
        row = connection.execute("SELECT digest FROM records WHERE chain = ? UNION ALL "
                                 "SELECT digest FROM table_events WHERE chain = ?", (chain, chain)).fetchone()
    else:
        row = connection.execute("SELECT digest FROM records WHERE chain IS NULL ORDER BY seq DESC LIMIT 1").fetchone()
    if chain > 0 and row is None:
        raise FactAltered(f"fact {chain} of the chain is missing: the feed stops after it")
    return str(row[0]) if row else GENESIS


def fact_event(table: str, row: tuple[Any, ...]) -> bytes:
    """One fact as its server-sent event."""
    chain, round_id, at, kind, data, digest = row
    fact = {"fact": chain, "table": table, "round": round_id, "at": at, "kind": kind,
            "data": json.loads(data), "digest": digest}
    return f"id: {chain}\nevent: fact\ndata: {json.dumps(fact, separators=(',', ':'))}\n\n".encode()


def resume_point(request: web.Request) -> int:
    """The fact number the reader has seen last: Last-Event-ID, else ?after=, else 0 (everything)."""
    given = request.headers.getall("Last-Event-ID", [])
    if len(given) > 1:
        raise FeedRefused(400, "more than one Last-Event-ID header: send the last fact number once")
    text = given[0] if given else request.query.get("after", "0")
    if not (text.strip().isascii() and text.strip().isdigit()) or len(text.strip()) > 18:
        raise FeedRefused(400, f"the last fact seen must be a whole number 0 or more, not {text[:40]!r}")
    return int(text.strip())


class Feed:
    def __init__(self, readers: FeedReaders | None, log: Any, *, issuer: str = "table-controller"):
        self.readers = readers
        self.log = log
        self.issuer = issuer                    # the command that makes a reader's token here
        self.listeners: dict[asyncio.Event, str] = {}     # each open stream's wake-up, and whose it is

    def wake(self) -> None:
        """Something was journaled (the engine published after its commit): feeds look again."""
        for listener in self.listeners:
            listener.set()

    def reader(self, request: web.Request) -> tuple[str, str]:
        """The reader a request's token names, and the token; FeedRefused in words otherwise."""
        if self.readers is None:
            raise FeedRefused(503, "the feed is not available: this page was started without its readers")
        header = request.headers.getall("Authorization", [])
        if not header:
            raise FeedRefused(401, "the feed needs a reader's token: Authorization: Bearer TOKEN "
                                   f"({self.issuer} feed add NAME makes one)")
        scheme, _, token = header[0].partition(" ")
        name = self.readers.who(token.strip()) if len(header) == 1 and scheme.lower() == "bearer" else None
        if name is None:
            raise FeedRefused(403, "this token reads nothing here: ask the table's technician for a reader's token")
        return name, token.strip()

    def _still(self, reader: str, token: str) -> bool:
        """The token still names the reader (removed or replaced, its open streams end at once)."""
        return self.readers is not None and self.readers.who(token) == reader

    async def serve(self, request: web.Request, stopping: asyncio.Event,
                    source: FactSource | None) -> web.StreamResponse:
        try:
            reader, token = self.reader(request)
            after = resume_point(request)
            if source is None:
                raise FeedRefused(503, "the feed is not available: this page was started without the journal")
        except FeedRefused as refused:
            return web.json_response({"ok": False, "message": str(refused)}, status=refused.status)
        if len(self.listeners) >= MOST:
            return web.json_response({"ok": False, "message": f"this table already serves {MOST} feeds, the most "
                                      "it serves at once: close another reader's feed, then reconnect"}, status=503)
        if sum(1 for name in self.listeners.values() if name == reader) >= PER_READER:
            return web.json_response({"ok": False, "message": f"reader {reader} has {PER_READER} feeds open already, "
                                      "the most one reader may: close one, then reconnect"}, status=503)
        wake = asyncio.Event()
        self.listeners[wake] = reader           # counted before the first await: no race past the limit
        loop = asyncio.get_running_loop()
        db: Any = None
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "X-Accel-Buffering": "no",
                                               "Cache-Control": "no-store"})
        self.log.info("feed.opened", reader=reader, remote=request.remote, after=after)
        try:
            db = await loop.run_in_executor(None, source.open)
            last = await loop.run_in_executor(None, source.last, db)
            if after > last:                    # a reader ahead of the journal: a journal rolled back, or another's
                self.log.warning("feed.ahead", reader=reader, remote=request.remote, after=after, last=last)
                return web.json_response({"ok": False, "last": last, "message": (
                    f"the last fact seen, {after}, is past this table's last fact, {last}: the journal is not the "
                    "one read before (rolled back, or another table's); call the table's technician")}, status=409)
            await response.prepare(request)
            transport = request.transport
            if transport is None:
                return response
            transport.set_write_buffer_limits(high=HIGH_WATER)
            idle = 0.0
            if not await send_bounded(response, b"retry: 1000\n\n"):
                return self._drop(request, response, reader)
            while not stopping.is_set() and not transport.is_closing():
                wake.clear()                    # before the read: a commit after it wakes the wait below
                rows = await loop.run_in_executor(None, source.after, db, after, BATCH)
                for row in rows:
                    if not await send_bounded(response, fact_event(source.table_id, row)):
                        return self._drop(request, response, reader)
                    after = row[0]
                if rows:
                    idle = 0.0
                    if len(rows) == BATCH:
                        continue                # further behind: the next step at once
                try:
                    await asyncio.wait_for(wake.wait(), TICK)
                except TimeoutError:            # facts journaled by another process (a PIN set) too
                    if not await loop.run_in_executor(None, self._still, reader, token):
                        self.log.warning("feed.reader_removed", reader=reader, remote=request.remote)
                        break
                    idle += TICK
                    if idle >= KEEPALIVE:
                        if not await send_bounded(response, b": keepalive\n\n"):
                            return self._drop(request, response, reader)
                        idle = 0.0
        except ConnectionError:
            pass
        except source.errors as err:            # the journal or floor unreadable: the reader resumes later
            self.log.warning("feed.altered" if isinstance(err, FactAltered) else "feed.read_failed",
                             reader=reader, error=str(err))
        finally:
            self.listeners.pop(wake, None)
            if db is not None:
                db.close()
            self.log.info("feed.closed", reader=reader, remote=request.remote, last=after)
        return response

    def _drop(self, request: web.Request, response: web.StreamResponse, reader: str) -> web.StreamResponse:
        self.log.warning("feed.dropped", reader=reader, remote=request.remote,
                         reason=f"over {HIGH_WATER // 1024} KiB stayed unsent for {STALL:g} s: a reader not reading")
        if request.transport is not None:
            with contextlib.suppress(OSError):
                request.transport.abort()
        return response
