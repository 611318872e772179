"""The pit's page: every table of the floor live on one page, and the linked jackpot's postings.

Owns ``table-floor pit``'s HTTP side. aiohttp runs on its own thread and loop (as the dealer's
page does); a second thread holds a PostgreSQL connection that LISTENs on ``floor_jackpot``
(claims and postings: read at once) and every ``QUIET`` seconds asks whether records arrived
(controller/floor/pit.py ``CHANGED``, one number from the tables' status rows: the ingest no longer
notifies, schema version 5). At a notice or a change it reads the floor's view afresh
(controller/floor/pit.py), and every ``REFRESH`` seconds anyway, so a table that went quiet is
marked stale and a link that dropped is shown down; it hands the view to the page, which pushes it
to every open page as a server-sent event. Lost, the connection is made again and the page says the floor
is out of reach meanwhile. The fences are the dealer page's (controller/page/fence.py):
addresses in ``allow`` only, a Host naming the page, same-origin JSON for anything that
changes something, a one-time challenge with each supervisor PIN (PINs from a PinStore file,
``table-controller pin set supervisor NAME --data-dir DIR`` makes one).

Routes:
  GET  /                the page (controller/floor/static/pit.html), its script and style
  GET  /api/floor       the view (JSON)
  GET  /api/events      server-sent events: the view at once, then at each change
  GET  /api/replay      ?table=ID&round=N: a table's finished round step by step (controller/floor/replay.py)
  GET  /api/feed        ?table=ID: that table's facts as the floor holds them, resumable (docs/feed.md),
                        for a feed reader's token (``table-floor pit --readers FILE``)
  GET  /api/challenge   a one-time challenge for a posting
  POST /api/jackpot     {"group", "mega", "major", "minor" (cents), "reason", "pin", "challenge"}:
                        a supervisor posts the group's values (controller/floor/jackpot.py's rules);
                        200 done, 400 a PIN that can be no PIN or a group no group (untried), 401 no
                        PIN, 403 a wrong PIN or challenge, 409 refused (the reason says why)
  POST /api/close-claims {"group", "level", "generation", "reason", "pin", "challenge", "confirm"}: a
                        supervisor makes a won generation's split final among the claims received
                        (``table-floor close-claims``); without ``"confirm": true`` refused (409) with
                        what closing would do: the tables that have not taken the lock
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import structlog
from aiohttp import web

from controller.floor.feed import FloorFacts, known_table
from controller.floor.jackpot import CHANNEL, close_claims, post_values, tables_without_ack
from controller.floor.pit import STALE_AFTER, floor_view, records_marker
from controller.floor.replay import NotEnded, floor_round
from controller.floor.schema import FloorError
from controller.page.feed import Feed, FeedRefused
from controller.page.fence import Challenges, Fence
from controller.page.server import SECURITY_HEADERS
from controller.page.streams import Streams
from controller.rules.typed_text import text_problem
from controller.store.pins import PinRefused, PinStore, never_a_pin
from controller.store.readers import FeedReaders

STATIC = Path(__file__).with_name("static")
QUIET = 0.5                 # seconds between two looks for new records (and two reads under a steady ingest)
REFRESH = 5.0               # seconds between reads when nothing changed (stale tables, links down)


def _network(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise FloorError(f"--allow {text!r} is not an address range (like 10.1.2.0/24 or 127.0.0.1)") from None


def _name_problem(name: str, value: object) -> str | None:
    """Why ``value`` can be no table's or group's id (1 to 32 characters of plain text, schema.sql), or None."""
    if not isinstance(value, str) or not 1 <= len(value) <= 32:
        return f"{name} must be the {name}'s id: 1 to 32 characters"
    return text_problem(name, value)


def _answer(status: int, ok: bool, message: str) -> web.Response:
    return web.json_response({"ok": ok, "message": message}, status=status)


class PitPage:
    def __init__(self, dsn: str, pins: PinStore, *, host: str = "127.0.0.1", port: int = 8090,
                 allow: tuple[str, ...] = ("127.0.0.0/8", "::1/128"), stale_after: float = STALE_AFTER,
                 readers: FeedReaders | None = None):
        self.dsn, self.pins, self.host, self.port = dsn, pins, host, port
        self.feed = Feed(readers, structlog.get_logger("pit"), issuer="table-controller --data-dir DIR")
        self.stale_after = stale_after
        self.allow = [_network(n) for n in allow]
        self.log = structlog.get_logger("pit")
        self.streams = Streams(self.log)
        self.fence = Fence(host)
        self.challenges = Challenges(120.0, 32)
        self.latest: dict[str, Any] = {"tables": [], "groups": {}, "pending": [], "holding": [], "unpaid": [],
                                       "floor": "connecting"}
        self._encoded: tuple[dict[str, Any] | None, bytes] = (None, b"")
        self.loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._failed: str | None = None         # why the page could not listen (a port in use, a bad host)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def start(self) -> str:
        for target, name in ((self._serve, "pit-page"), (self._listen, "pit-listener")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        self._ready.wait(10)
        if self._failed is not None:            # said, not a thread's traceback and a page that never answers
            self.stop()
            raise FloorError(f"the pit's page cannot listen on {self.host} port {self.port}: {self._failed}")
        return self.url

    def stop(self) -> None:
        self._stop.set()
        if self.loop is not None and self._stopping is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._stopping.set)
        for thread in self._threads:
            thread.join(5)

    # --- the floor's notices (the listener's thread) ----------------------------------------

    def _listen(self) -> None:
        conn: psycopg.Connection | None = None
        read_at = 0.0
        marker: object = None
        while not self._stop.is_set():
            try:
                if conn is None:
                    conn = psycopg.connect(self.dsn, autocommit=True, connect_timeout=5)
                    conn.execute(f"LISTEN {CHANNEL}")
                    marker = records_marker(conn)
                    self._publish(dict(floor_view(conn, self.stale_after), floor="up"))
                    read_at = time.monotonic()
                noticed = list(conn.notifies(timeout=QUIET, stop_after=1))
                now_marker = records_marker(conn)
                if not noticed and now_marker == marker and time.monotonic() - read_at < REFRESH:
                    continue
                marker = now_marker
                self._publish(dict(floor_view(conn, self.stale_after), floor="up"))
                read_at = time.monotonic()
            except psycopg.Error as err:
                self.log.warning("pit.floor_unreachable", error=str(err).strip())
                self._publish(dict(self.latest, floor=f"out of reach: {str(err).strip()}"))
                if conn is not None:
                    conn.close()
                conn = None
                self._stop.wait(1.0)
        if conn is not None:
            conn.close()

    def _publish(self, view: dict[str, Any]) -> None:
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._wake, view)
        else:
            self.latest = view

    def _wake(self, view: dict[str, Any]) -> None:
        self.latest = view
        self.streams.wake()
        self.feed.wake()

    # --- HTTP (the page's thread) -------------------------------------------------------------

    def _serve(self) -> None:
        loop = self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._stopping = asyncio.Event()
        app = web.Application(middlewares=[self._fenced], client_max_size=16 * 1024)
        app.router.add_get("/", self._index)
        app.router.add_static("/static/", STATIC, follow_symlinks=False)
        app.router.add_get("/api/floor", self._floor)
        app.router.add_get("/api/events", self._events)
        app.router.add_get("/api/feed", self._feed)
        app.router.add_get("/api/replay", self._replay)
        app.router.add_get("/api/challenge", self._challenge)
        app.router.add_post("/api/jackpot", self._post_jackpot)
        app.router.add_post("/api/close-claims", self._close_claims)
        app.on_response_prepare.append(self._headers)
        runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        loop.run_until_complete(runner.setup())
        try:
            loop.run_until_complete(web.TCPSite(runner, self.host, self.port).start())
        except (OSError, OverflowError, ValueError) as err:     # a port in use or out of range, a bad host
            self._failed = str(getattr(err, "strerror", None) or err)
            loop.run_until_complete(runner.cleanup())
            loop.close()
            self._ready.set()
            return
        self.port = runner.addresses[0][1]
        self._ready.set()
        loop.run_until_complete(self._stopping.wait())
        self.streams.wake()                     # streams and feeds see the stop and end (a feed left
        self.feed.wake()                        # waiting outlived the shutdown timeout, destroyed pending)
        loop.run_until_complete(runner.cleanup())
        loop.close()

    async def _index(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "pit.html")

    async def _floor(self, request: web.Request) -> web.Response:
        view = self.latest      # encoded once per view, not per request: 500 tables are a few ms of JSON
        if self._encoded[0] is not view:
            self._encoded = (view, json.dumps(view).encode())
        return web.Response(body=self._encoded[1], content_type="application/json")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        assert self._stopping is not None       # set before the server takes requests
        return await self.streams.serve(request, lambda: self.latest, self._stopping)

    async def _feed(self, request: web.Request) -> web.StreamResponse:
        """One table's facts as the floor holds them (controller/floor/feed.py, docs/feed.md)."""
        assert self._stopping is not None
        table = request.query.get("table", "")
        try:
            self.feed.reader(request)           # the token first: no database work, nor a table named, without it
        except FeedRefused as refused:
            return _answer(refused.status, False, str(refused))
        if _name_problem("table", table):
            return _answer(400, False, "say which table's facts to feed: ?table=ID")
        try:
            known = await asyncio.get_running_loop().run_in_executor(None, known_table, self.dsn, table)
        except psycopg.Error:
            return _answer(503, False, "the floor database is out of reach: reconnect in a moment")
        if not known:
            return _answer(404, False, f"no table {table} on this floor")
        return await self.feed.serve(request, self._stopping, FloorFacts(self.dsn, table))

    async def _replay(self, request: web.Request) -> web.Response:
        """A table's finished round step by step, from the floor's records (controller/floor/replay.py)."""
        table, number = request.query.get("table", ""), request.query.get("round", "")
        if _name_problem("table", table) or not (number.isascii() and number.isdigit()) or len(number) > 12:
            return _answer(400, False, "say which round to replay: ?table=ID&round=N")
        try:
            story = await asyncio.get_running_loop().run_in_executor(None, floor_round, self.dsn, table, int(number))
        except NotEnded as err:
            return _answer(409, False, str(err))
        except LookupError as err:
            return _answer(404, False, str(err))
        except psycopg.Error:
            return _answer(503, False, "the floor database is out of reach: try again in a moment")
        return web.json_response({"ok": True, **story})

    async def _challenge(self, request: web.Request) -> web.Response:
        return web.json_response({"challenge": self.challenges.issue()})

    @staticmethod
    async def _headers(request: web.Request, response: web.StreamResponse) -> None:
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)

    @web.middleware
    async def _fenced(self, request: web.Request, handler: Any) -> web.StreamResponse:
        try:
            address = ipaddress.ip_address((request.remote or "").split("%")[0])
        except ValueError:
            address = None
        if address is None or not any(address in net for net in self.allow):
            return _answer(403, False, f"address {request.remote} may not use the pit's page")
        sockname = request.transport.get_extra_info("sockname") if request.transport else None
        host = request.headers.get("Host")
        refusal = self.fence.host_refusal(host, sockname[0] if sockname else None, self.port)
        changes = request.method not in ("GET", "HEAD") or request.path == "/api/challenge"
        if refusal is None and request.path.startswith("/api/"):
            refusal = self.fence.origin_refusal(request.headers, host or "", changes=changes)
        if refusal is not None:
            self.log.warning("pit.request_refused", remote=request.remote, path=request.path, reason=refusal)
            return _answer(403, False, refusal)
        if request.method == "POST" and request.content_type != "application/json":
            return _answer(415, False, "the request body must be JSON")
        response: web.StreamResponse = await handler(request)
        return response

    async def _supervisor(self, request: web.Request, keys: set[str], action: str) -> tuple[dict, str] | web.Response:
        """A supervisor's request: its JSON body (only ``keys``), a one-time challenge and a PIN; the
        body and the supervisor's name, or the refusal to answer with."""
        try:
            body = await request.json()
        except ValueError:
            return _answer(400, False, "the request body must be a JSON object")
        if not isinstance(body, dict) or set(body) - keys - {"pin", "challenge"}:
            return _answer(400, False, f"expected {', '.join(sorted(keys))}, pin and challenge")
        reason = body.get("reason")
        if isinstance(reason, str) and (problem := text_problem("reason", reason)) is not None:
            return _answer(400, False, problem)     # the table's rule for typed text; before the challenge and PIN
        if (problem := _name_problem("group", body.get("group"))) is not None:
            return _answer(400, False, problem)     # a NUL was the database's error (503) after the PIN was tried
        pin = body.get("pin")
        if not isinstance(pin, str) or not pin:
            return _answer(401, False, f"{action} needs a supervisor's PIN")
        if (shape := never_a_pin("supervisor", pin)) is not None:
            return _answer(400, False, shape)       # untried, as on the table's page: a slip locks nobody out
        refusal = self.challenges.redeem(body.get("challenge"))
        if refusal is not None:
            return _answer(403, False, refusal)
        try:
            who = await asyncio.get_running_loop().run_in_executor(None, functools.partial(
                self.pins.check, "supervisor", pin, action=action, source=request.remote))
        except PinRefused as err:
            return _answer(403, False, str(err))
        reason = body.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            return _answer(409, False, f"say why: {action} is recorded with its reason")
        return body, str(who)

    async def _post_jackpot(self, request: web.Request) -> web.Response:
        checked = await self._supervisor(request, {"group", "mega", "major", "minor", "reason"},
                                         "post linked jackpot values")
        if isinstance(checked, web.Response):
            return checked
        body, who = checked
        values: dict[str, Any] = {k: body.get(k) for k in ("mega", "major", "minor")}   # post_values checks them
        reason = body["reason"].strip()
        try:
            generations = await asyncio.get_running_loop().run_in_executor(
                None, self._on_floor, lambda conn: post_values(conn, str(body.get("group")), values, by=who,
                                                               reason=reason))
        except FloorError as err:
            return _answer(409, False, str(err))
        except psycopg.Error as err:
            return _answer(503, False, f"the floor database: {str(err).strip()}")
        self.log.info("pit.jackpot_posted", group=body.get("group"), by=who, reason=reason, values=values,
                      generations=generations)
        return _answer(200, True, f"posted by {who}")

    async def _close_claims(self, request: web.Request) -> web.Response:
        checked = await self._supervisor(request, {"group", "level", "generation", "reason", "confirm"},
                                         "close linked jackpot claims")
        if isinstance(checked, web.Response):
            return checked
        body, who = checked
        group, level, generation = str(body.get("group")), str(body.get("level")), body.get("generation")
        if level not in ("mega", "major", "minor") or isinstance(generation, bool) or not isinstance(generation, int):
            return _answer(400, False, "level must be mega, major or minor and generation a whole number")
        loop = asyncio.get_running_loop()
        try:
            if body.get("confirm") is not True:
                missing = await loop.run_in_executor(None, self._on_floor, lambda conn: tables_without_ack(
                    conn, group, level, generation))
                return _answer(409, False, f"nothing closed: closing {level.upper()} generation {generation} makes "
                               f"the split final without table(s) {', '.join(missing) or 'none'}; a win they claim "
                               "later is refused and settled at the table without the award, held on the floor as "
                               "owed. Confirm to close")
            final = await loop.run_in_executor(None, self._on_floor, lambda conn: close_claims(
                conn, group, level, generation, by=who, reason=body["reason"].strip()))
        except FloorError as err:
            return _answer(409, False, str(err))
        except psycopg.Error as err:
            return _answer(503, False, f"the floor database: {str(err).strip()}")
        self.log.info("pit.claims_closed", group=group, level=level, generation=generation, by=who,
                      reason=body["reason"], claims=len(final))
        return _answer(200, True, f"closed by {who}: the split is final among {len(final)} claim(s)")

    def _on_floor(self, work: Callable[[psycopg.Connection], Any]) -> Any:
        """One piece of the floor's work on a connection of its own (an executor's thread)."""
        with psycopg.connect(self.dsn, autocommit=True, connect_timeout=5) as conn:
            return work(conn)
