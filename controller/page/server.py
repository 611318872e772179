"""The dealer's touchscreen page: static files from the package, live snapshots, touch actions.

Owns the HTTP side of the table. It never touches game state: it reads the engine's published
snapshots and posts dealer actions, like every other producer of events (rule 1). aiohttp runs
on its own thread with its own event loop, so a slow browser never slows the engine.

Every route is refused unless the client's address is in ``page.allow`` and its ``Host``
names the table; an ``/api/`` request a browser says comes from another site's page, and any
state-changing request that is not this page's JSON, are refused too (controller/page/fence.py).

Routes:
  GET  /                 the page (controller/page/static/index.html)
  GET  /static/...       its script, style and card images; nothing comes from elsewhere
  GET  /words.js         the page's words in the reader's language (controller/page/languages.py)
  GET  /api/state        the current snapshot (JSON)
  GET  /api/events       server-sent events: the current snapshot at once, then the newest one
                         whenever one is published (``event: snapshot``, ``data:`` the JSON); a
                         keepalive every 15 s, ``retry: 500``; at most 16 at once, a client that
                         does not read is dropped (controller/page/streams.py)
  GET  /api/feed         the surveillance feed: every journaled fact as a resumable server-sent event,
                         for a reader's token only (controller/page/feed.py, docs/feed.md)
  GET  /api/health       200 once the page is serving (the kiosk launcher waits on it); 503 with
                         ``ok`` false and ``halted`` (the reason) once the table has halted
  GET  /api/recall       game recall: the last ten rounds, ?round=N, ?before=N (controller/page/recalls.py)
  GET  /favicon.ico      the page's icon (static/favicon.ico)
  GET  /api/replay       ?round=N: a round that has ended, step by step (controller/page/replays.py)
  GET  /api/challenge    a one-time challenge for a supervisor's action (valid CHALLENGE_TTL s)
  GET  /report, POST /api/report   the supervisor's report, behind a PIN (controller/page/reports.py)
  POST /api/action       {"action", "position"?, "other"?, "spot"?, "amount"?, "reason"?,
                          "role"?, "pin"?, "challenge"?} -> {"ok", "message"}; supervisor
                         actions need "role" (supervisor | technician), "pin" and "challenge"; a
                         dealer's sign-in ("sign_in_dealer") "role": "dealer", their "pin", "challenge";
                         the sign-out the dealer on duty's PIN or a supervisor's (machine.PIN_ROLES)

Status codes of /api/action: 200 done; 409 the table refused (the reason says why); 504 the
table did not answer in time (the outcome is unknown: the action may still be done);
400 a malformed request (a PIN shorter than any PIN is refused so, without being tried: it
does not count towards the lockout); 401 a PIN is needed; 403 a wrong or locked PIN, a
missing, used or expired challenge, a request from another site's page, or an address outside
``page.allow``; 415 a body that is not JSON. A request refused for any reason changes nothing.
docs/page-api.md is the public description of these routes and of the snapshot.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import threading
import time
from pathlib import Path

import structlog
from aiohttp import web

from controller.engine_events import PageAlert
from controller.errors import InputError
from controller.page.actions import DealerActions
from controller.page.api_errors import MOST_BODY, api_errors
from controller.page.feed import Feed, JournalFacts
from controller.page.fence import Challenges, Fence, Throttle, quoted
from controller.page.gate import Gate
from controller.page.languages import Languages
from controller.page.recalls import RoundRecall
from controller.page.replays import RoundReplays
from controller.page.reports import SupervisorReports
from controller.page.streams import Streams
from controller.store.pins import PinRefused, PinStore, duration
from controller.store.readers import FeedReaders

STATIC_DIR = Path(__file__).with_name("static")
# the page may load nothing from anywhere but this controller. Referrers go to this page only
# ("no-referrer" would make the browser send "Origin: null" with the page's own POSTs, which the
# fence must refuse, since a sandboxed page of another site sends the same)
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-cache",
}
CHALLENGE_TTL, CHALLENGES_OPEN = 120.0, 32


class PageError(InputError, RuntimeError):
    """The page could not start (the port is taken, the address cannot be bound): the
    configuration's ``page`` section does not fit this machine."""


class DealerPage:
    def __init__(self, engine, pins: PinStore, *, host: str, port: int, allow: tuple[str, ...],
                 table_id: str, journal_path: Path | None = None, language: str = "en",
                 readers: FeedReaders | None = None):
        self.engine = engine
        self.pins = pins
        self.journal_path = journal_path        # read for recall only, never written
        self.host, self.port = host, port
        self.allow = [ipaddress.ip_network(net, strict=False) for net in allow]
        self.log = structlog.get_logger("page").bind(table=table_id)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._stopping: asyncio.Event | None = None
        self.streams = Streams(self.log)
        self.feed = Feed(readers, self.log)
        # each fact checked under the table's key before it is sent (a row edited while the table plays)
        key = getattr(getattr(engine, "journal", None), "key", None)
        self.facts = JournalFacts(journal_path, table_id, key if isinstance(key, bytes) else None) \
            if journal_path is not None else None
        self.words = Languages(language)        # what each reader reads, in the language their browser chose
        self._pending: tuple[dict, float] = (engine.snapshot, time.monotonic())   # see _published
        self._wake_due = False
        self.fence = Fence(host)
        self.challenges = Challenges(CHALLENGE_TTL, CHALLENGES_OPEN)
        self._throttle = Throttle()         # one alert or log line per source and kind a minute
        self.gate: Gate | None = None       # the connections open (set once serving)

    # --- life cycle (called from the main thread) ---------------------------------------

    @property
    def url(self) -> str:
        """The page's address on this machine (bound to every address: its loopback one, since the
        fence answers no Host of 0.0.0.0 or ::)."""
        host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(self.host, self.host)
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}/"

    def start(self) -> str:
        self._thread = threading.Thread(target=self._serve, name="dealer-page", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        if self._error is not None:
            raise PageError(f"dealer page: cannot listen on {self.host}:{self.port}: {self._error}")
        self.engine.observers.append(self._published)
        self.log.info("page.listening", url=self.url, allow=[str(n) for n in self.allow])
        return self.url

    def stop(self) -> None:
        if self.loop is None or self._stopping is None:
            return
        if self._published in self.engine.observers:
            self.engine.observers.remove(self._published)
        self.loop.call_soon_threadsafe(self._stopping.set)
        if self._thread:
            self._thread.join(5)

    def _serve(self) -> None:
        loop = self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._stopping = asyncio.Event()
        runner = web.AppRunner(self._app(), access_log=None, handle_signals=False, shutdown_timeout=1.0)
        try:
            loop.run_until_complete(runner.setup())
            # not web.TCPSite: the gate counts connections before aiohttp reads a byte (gate.py)
            assert runner.server is not None       # made by setup()
            self.gate = Gate(runner.server, self._allowed, self.log)
            server = loop.run_until_complete(loop.create_server(self.gate, self.host, self.port, backlog=128))
            self.port = server.sockets[0].getsockname()[1]
        except OSError as err:
            self._error = err
            self._ready.set()
            loop.run_until_complete(runner.cleanup())
            loop.close()
            return
        self._ready.set()
        loop.run_until_complete(self._stopping.wait())
        self.streams.wake()                     # streams see the stop and end
        self.feed.wake()
        server.close()
        loop.run_until_complete(runner.cleanup())
        loop.close()

    # --- snapshots (called on the engine's thread: hand over and return) -----------------

    def _published(self, snap: dict) -> None:
        # the newest snapshot waits here; the loop is woken once however many arrive before it runs
        # (a wake-up is a write to its socket: one per burst of published moments, not one each)
        # With no page open nobody waits to be woken (a table played unattended, a benchmark): the
        # newest snapshot is read from here by the next request or stream. Stored before the look
        # at the listeners: a stream added after the look reads this snapshot when it starts.
        self._pending = (snap, time.monotonic())
        if not self.streams.listeners and not self.feed.listeners:
            return
        if not self._wake_due and self.loop is not None and not self.loop.is_closed():
            self._wake_due = True
            try:
                self.loop.call_soon_threadsafe(self._wake)
            except RuntimeError:                # the loop closed meanwhile (the page stopping)
                self._wake_due = False

    @property
    def _latest(self) -> dict:
        """The newest snapshot the engine published, in the page's language."""
        return self._translate(self._pending[0])

    def _translate(self, snap: dict) -> dict:
        # on the page's loop only, once per snapshot and language (for English, the engine's own object)
        return self.words.snapshot(snap)

    def _wake(self) -> None:
        self._wake_due = False              # cleared before reading: a later snapshot wakes again
        snap, published = self._pending
        self.streams.stamp(self._translate(snap), published)
        self.streams.wake()
        self.feed.wake()

    # --- HTTP -----------------------------------------------------------------------------

    def _app(self) -> web.Application:
        app = web.Application(middlewares=[self._only_allowed, self._fenced, self.words.choose,
                                           api_errors(self.words, MOST_BODY)], client_max_size=MOST_BODY)
        app.router.add_get("/", self._index)
        app.router.add_get("/words.js", self._words)
        app.router.add_static("/static/", STATIC_DIR, follow_symlinks=False)
        app.router.add_get("/api/state", self._state)
        app.router.add_get("/api/events", self._events)
        app.router.add_get("/api/feed", self._feed)
        app.router.add_get("/api/health", self._health)
        app.router.add_get("/favicon.ico", self._favicon)
        app.router.add_get("/api/challenge", self._challenge)
        DealerActions(self).add_routes(app)
        SupervisorReports(self).add_routes(app)
        RoundReplays(self.journal_path, self.words, self.log).add_routes(app)
        RoundRecall(self.journal_path, self.words, self._latest["table"], self.log).add_routes(app)
        app.on_response_prepare.append(self._headers)
        return app

    @staticmethod
    async def _headers(request: web.Request, response: web.StreamResponse) -> None:
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)

    def _allowed(self, remote: str) -> bool:
        try:
            address = ipaddress.ip_address(remote.split("%")[0])
        except ValueError:
            return False
        return any(address in net for net in self.allow)

    @web.middleware
    async def _only_allowed(self, request: web.Request, handler):
        if not self._allowed(request.remote or ""):
            held = self._throttle.due(f"address {request.remote}")
            if held is not None:            # a flood is one line a minute, with its count
                self.log.warning("page.address_refused", remote=request.remote, path=request.path,
                                 more_refused=held)
            return _answer(403, False, f"address {request.remote} may not use this table's page "
                                       "(page.allow in the table configuration)")
        return await handler(request)

    @web.middleware
    async def _fenced(self, request: web.Request, handler):
        """Host names this table; an /api/ request is from this page, not another site's; a state-
        changing request (a POST, a new challenge) says so with same-origin and is JSON."""
        sockname = request.transport.get_extra_info("sockname") if request.transport else None
        local = sockname[0] if sockname else None
        host = request.headers.get("Host")
        refusal = self.fence.ambiguity(request.headers) or self.fence.host_refusal(host, local, self.port)
        changes = request.method not in ("GET", "HEAD") or request.path == "/api/challenge"
        if refusal is None and request.path.startswith("/api/"):
            refusal = self.fence.origin_refusal(request.headers, host or "", changes=changes)
        if refusal is not None:
            self._alarm(request, refusal)
            return _answer(403, False, refusal)
        if request.method == "POST" and request.content_type != "application/json":
            return _answer(415, False, "the request body must be JSON, sent as Content-Type: application/json "
                                       f"(not {quoted(request.content_type)})")
        return await handler(request)

    def _alarm(self, request: web.Request, refusal: str) -> None:
        """A request that is not this page's own: logged and alerted to the dealer, once a minute per
        source at most (a flood is one alert, counting the rest)."""
        held = self._throttle.due(f"security {request.remote}")
        if held is None:
            self.log.debug("page.request_refused", remote=request.remote, path=request.path, reason=refusal)
            return
        self.log.warning("page.request_refused", remote=request.remote, path=request.path, reason=refusal,
                         more_refused=held)
        more = f"; {held} more refused in the minute before" if held else ""
        self.engine.post(PageAlert("security", f"Refused a request from {request.remote} that is not from "
                                   f"this table's page ({refusal}){more}: a web page may be trying to work "
                                   "the table; call a technician"))

    async def _index(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC_DIR / "index.html")

    async def _favicon(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC_DIR / "favicon.ico")

    async def _words(self, request: web.Request) -> web.Response:
        return web.Response(text=self.words.words_script(), content_type="text/javascript")

    async def check_pin(self, role: str, pin: str, action: str, words: str, remote: str | None) -> str:
        """Who holds ``pin`` for ``role`` (checked off the loop: it is slow on purpose); PinRefused
        otherwise, after telling the table when the wrong PINs just locked PIN entry."""
        try:
            identity = await asyncio.get_running_loop().run_in_executor(
                None, functools.partial(self.pins.check, role, pin, action=action, source=remote))
        except PinRefused as err:
            if err.locked:
                self.engine.post(PageAlert("pin_lockout", f"PIN entry locked for every role for "
                                           f"{duration(err.locked)} after {self.pins.attempts} wrong PINs in a "
                                           f"row, the last a {role} PIN for {words} from {remote}: "
                                           "call a technician if nobody at the table mistyped them"))
            raise
        return str(identity)

    async def _health(self, request: web.Request) -> web.Response:
        snap = self._latest
        if snap.get("halted"):              # serving, but the table has stopped: not healthy
            return web.json_response({"ok": False, "table": snap["table"], "state": snap["state"],
                                      "halted": snap["halted"], "latency": self.latencies()}, status=503)
        return web.json_response({"ok": True, "table": snap["table"], "state": snap["state"],
                                  "latency": self.latencies()})

    def latencies(self) -> dict:
        """How fast the table answers while it plays: a device's frame to the snapshot it made (the
        engine's), a snapshot to its event written to a page (this page's); see controller/latency.py."""
        return {"frame_to_snapshot": self.engine.latency.summary(),
                "snapshot_to_page": self.streams.latency.summary()}

    async def _state(self, request: web.Request) -> web.Response:
        return web.json_response(self._latest)

    async def _challenge(self, request: web.Request) -> web.Response:
        return web.json_response({"ok": True, "challenge": self.challenges.issue(),
                                  "expires_in": int(CHALLENGE_TTL)}, headers={"Cache-Control": "no-store"})

    async def _events(self, request: web.Request) -> web.StreamResponse:
        assert self._stopping is not None       # set by _serve before the server takes requests
        return await self.streams.serve(request, lambda: self._latest, self._stopping)

    async def _feed(self, request: web.Request) -> web.StreamResponse:
        assert self._stopping is not None
        return await self.feed.serve(request, self._stopping, self.facts)

def _answer(status: int, ok: bool, message: str) -> web.Response:
    return web.json_response({"ok": ok, "message": message}, status=status)

