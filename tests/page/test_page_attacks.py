"""Issue 16, the dealer's page: the test lab's attacks, each reproduced against the real table
(simulated devices) and refused by construction.

1. Cross-site requests and DNS rebinding: another site's page making the dealer's browser post
   to the table (text/plain, form-encoded, or through a rebound name). controller/page/fence.py
2. A recorded supervisor request, PIN included, sent again. (One-time challenges.)
3. PIN guesses spread over both privileged roles (tests/store/test_pins.py has the arithmetic;
   tests/page/test_page.py the page's side, where the recorded request is replayed too).
4. Server-sent-event clients that never read. controller/page/streams.py
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest

from controller.page import streams
from controller.page.fence import Fence, Throttle
from controller.page.server import DealerPage
from tests.page.test_page_api import _act, _challenge, _request
from tests.support.browser import CHROMIUM
from tests.support.rig import table

HOST_REFUSED = ("request refused: Host {} is not this table's address (a page of another site may be reaching "
                "the table under its own name)")


@pytest.fixture
def rig(tmp_path):
    with table(tmp_path, "sheet-004", page=True) as r:
        r.wait(lambda s: s["state"] == "ready", what="ready")
        yield r


def _security_alerts(rig) -> list[dict]:
    rig.refused("no_more_bets")             # through the engine's queue: every alert posted before is in
    return [a for a in rig.snap["alerts"] if a["kind"] == "security"]


def _audit(rig, event: str) -> list[dict]:
    lines = (rig.run.data_dir / "audit" / "audit.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e["event"] == event]


# --- 1. cross-site requests ---------------------------------------------------------------------

def test_a_cross_site_request_is_refused_in_words_changes_nothing_and_alerts_the_dealer_once(rig):
    url = rig.run.page.url + "api/action"
    other = f"http://127.0.0.1:{rig.run.page.port + 1}"
    evil = "cross-site request refused: Origin http://evil.example is not this table's page"
    attacks = [  # the lab's: a form or a script of another site, each a body no JSON fence would parse
        (b'{"action": "open_betting"}', "text/plain", "http://evil.example", evil),
        (b"action=open_betting", "application/x-www-form-urlencoded", "http://evil.example", evil),
        (b"--b\r\nContent-Disposition: form-data; name=action\r\n\r\nopen_betting\r\n--b--\r\n",
         "multipart/form-data; boundary=b", "http://evil.example", evil),
        (b'{"action": "open_betting"}', "application/json", "http://evil.example", evil),
        (b'{"action": "open_betting"}', "application/json", "null",          # a sandboxed frame
         "cross-site request refused: Origin null is not this table's page"),
        (b'{"action": "open_betting"}', "application/json", other,           # another port is another site
         f"cross-site request refused: Origin {other} is not this table's page"),
    ]
    for body, kind, origin, words in attacks:
        response, payload = _request(url, "POST", body, {"Content-Type": kind, "Origin": origin})
        assert (response.status, json.loads(payload)) == (403, {"ok": False, "message": words})
    for site in ("cross-site", "same-site"):      # a browser that sends no Origin says where it was
        response, payload = _request(url, "POST", b'{"action": "open_betting"}',
                                     {"Content-Type": "application/json", "Sec-Fetch-Site": site})
        assert (response.status, json.loads(payload)["message"]) == (
            403, f"cross-site request refused: Sec-Fetch-Site {site} (only this table's page may ask)")
    # the page itself, or a client that is no web page: only JSON is taken
    response, payload = _request(url, "POST", b'{"action": "open_betting"}', {"Content-Type": "text/plain"})
    assert (response.status, json.loads(payload)["message"]) == (
        415, "the request body must be JSON, sent as Content-Type: application/json (not text/plain)")
    assert rig.snap["state"] == "ready" and rig.snap["round"] is None          # nothing changed
    # eight refusals from one source: one alert for the dealer, in the journal, and one audited line
    alerts = _security_alerts(rig)
    assert len(alerts) == 1 and alerts[0]["message"] == (
        f"Refused a request from 127.0.0.1 that is not from this table's page ({evil}): a web page may be "
        "trying to work the table; call a technician")
    journaled = [json.loads(d) for (d,) in rig.journal.db.execute("SELECT data FROM table_events WHERE kind = 'alert'")]
    assert [a["kind"] for a in journaled] == ["security"]
    assert [(e["reason"], e["more_refused"]) for e in _audit(rig, "page.request_refused")] == [(evil, 0)]
    # the page's own request is still taken
    assert _act(rig, {"action": "open_betting"}) == (200, {"ok": True, "message": "done"})


def test_a_request_to_the_table_under_another_name_is_refused_so_dns_rebinding_reaches_nothing(rig):
    page = rig.run.page
    port = page.port
    rebound = f"evil.example:{port}"
    for path in ("", "static/page.js", "api/state", "api/events", "api/health", "api/recall", "api/challenge"):
        response, payload = _request(page.url + path, headers={"Host": rebound})
        assert (response.status, json.loads(payload)["message"]) == (403, HOST_REFUSED.format(rebound)), path
    response, payload = _request(page.url + "api/action", "POST", {"action": "open_betting"},
                                 {"Host": rebound, "Origin": f"http://{rebound}", "Content-Type": "application/json"})
    assert (response.status, json.loads(payload)["message"]) == (403, HOST_REFUSED.format(rebound))
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LocalHost:{port}", f"[::1]:{port}"):
        assert _request(page.url + "api/health", headers={"Host": host})[0].status == 200, host
    for host in (f"127.0.0.1:{port + 1}", "127.0.0.1", f"0.0.0.0:{port}", f"localhost.:{port}",
                 f"127.0.0.1.evil.example:{port}", f"[::1:{port}", f"::1:{port}"):
        response, payload = _request(page.url + "api/health", headers={"Host": host})
        assert (response.status, json.loads(payload)["message"]) == (403, HOST_REFUSED.format(host)), host
    with socket.create_connection((urlsplit(page.url).hostname, port), timeout=10) as sock:
        sock.sendall(b"GET /api/health HTTP/1.0\r\n\r\n")
        answer = sock.makefile("rb").read()
    assert answer.split(b" ")[1] == b"403" and b"it names no Host" in answer
    assert rig.snap["state"] == "ready" and len(_security_alerts(rig)) == 1


def test_the_table_answers_to_its_own_addresses_and_this_pages_origin_only():
    loopback = {"localhost", "127.0.0.1", "::1"}
    assert Fence("127.0.0.1").names("127.0.0.1") == loopback
    assert Fence("::1").names("::1") == loopback
    assert Fence("localhost").names("127.0.0.1") == loopback
    assert Fence("10.1.2.3").names("10.1.2.3") == {"10.1.2.3"}            # no loopback names off loopback
    # bound to every address: the one the connection arrived at (a kiosk on another machine)
    assert Fence("0.0.0.0").names("192.168.7.20") == {"192.168.7.20"}
    assert Fence("::").names("::ffff:127.0.0.1") == loopback
    fence = Fence("10.1.2.3")
    assert fence.host_refusal("10.1.2.3:8080", "10.1.2.3", 8080) is None
    assert fence.host_refusal("localhost:8080", "10.1.2.3", 8080) is not None
    assert fence.host_refusal("10.1.2.3", "10.1.2.3", 8080) is not None   # no port: port 80
    assert fence.host_refusal("10.1.2.3", "10.1.2.3", 80) is None
    same = {"Origin": "http://10.1.2.3:8080", "Sec-Fetch-Site": "same-origin"}
    assert fence.origin_refusal(same, "10.1.2.3:8080", changes=True) is None
    assert fence.origin_refusal({}, "10.1.2.3:8080", changes=True) is None       # no browser page: curl, a test
    assert fence.origin_refusal({"Sec-Fetch-Site": "none"}, "10.1.2.3:8080", changes=False) is None  # typed in
    for headers in ({"Sec-Fetch-Site": "none"}, {"Origin": "https://10.1.2.3:8080"},
                    {"Origin": "http://10.1.2.3:8080/x"}, {"Origin": "http://10.1.2.3"}, {"Origin": "x" * 500}):
        assert fence.origin_refusal(headers, "10.1.2.3:8080", changes=True) is not None, headers
    assert len(fence.origin_refusal({"Origin": "x" * 500}, "10.1.2.3:8080", changes=True) or "") < 200


def test_a_page_bound_to_every_address_answers_to_the_address_each_connection_arrived_at(rig):
    wide = DealerPage(rig.engine, rig.run.pins, host="0.0.0.0", port=0, allow=("127.0.0.0/8",), table_id="T-TEST")
    wide.start()
    try:
        assert wide.url == f"http://127.0.0.1:{wide.port}/"             # an address its fence answers
        for host in (f"127.0.0.1:{wide.port}", f"localhost:{wide.port}"):
            assert _request(wide.url + "api/health", headers={"Host": host})[0].status == 200
        for host in (f"0.0.0.0:{wide.port}", f"10.1.2.3:{wide.port}", f"127.0.0.2:{wide.port}"):
            assert _request(wide.url + "api/health", headers={"Host": host})[0].status == 403, host
    finally:
        wide.stop()


def test_a_flood_of_refusals_is_one_alert_a_minute_per_source_counting_the_rest():
    now = [0.0]
    throttle = Throttle(window=60, most=2, clock=lambda: now[0])
    assert [throttle.due("a") for _ in range(4)] == [0, None, None, None]
    assert throttle.due("b") == 0                       # another source has its own minute
    now[0] = 60
    assert throttle.due("a") == 3 and throttle.due("a") is None
    throttle.due("c")                                    # bounded: the oldest source is forgotten
    assert set(throttle._last) == {"a", "c"}


@pytest.fixture(scope="module")
def rebinding_browser(browser):
    """A browser whose resolver answers 127.0.0.1 for evil.example, as a rebinding DNS server would."""
    rebinding = browser.browser_type.launch(executable_path=CHROMIUM, args=[
        "--no-sandbox", "--host-resolver-rules=MAP evil.example 127.0.0.1"])
    yield rebinding
    rebinding.close()


@contextmanager
def _site(html: str):
    """Another site: one page, served on loopback on a port of its own."""
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


ATTACK = """<!doctype html><form id="f" method="POST" action="{table}api/action" enctype="text/plain">
<input name='{{"action": "open_betting", "x": "' value='"}}'></form>
<script>
fetch("{table}api/action", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}},
                             body: '{{"action": "open_betting"}}'}});
fetch("{table}api/action", {{method: "POST", mode: "no-cors", body: new URLSearchParams({{action: "open_betting"}})}});
new EventSource("{table}api/events");
</script>"""


def test_another_sites_page_in_the_dealers_browser_cannot_work_the_table(rig, rebinding_browser, mocker):
    table_url = rig.run.page.url
    alarm = mocker.spy(rig.run.page, "_alarm")
    context = rebinding_browser.new_context()
    try:
        tab = context.new_page()
        with _site(ATTACK.format(table=table_url)) as port:
            tab.goto(f"http://evil.example:{port}/")
            rig.eventually(lambda: alarm.call_count == 3, what="the attacking page's three requests refused")
            words = f"cross-site request refused: Origin http://evil.example:{port} is not this table's page"
            assert sorted((c.args[0].method, c.args[0].path, c.args[1]) for c in alarm.call_args_list) == [
                ("GET", "/api/events", words), ("POST", "/api/action", words), ("POST", "/api/action", words)]
            assert not rig.run.page.streams.listeners            # no event stream taken either
            with tab.expect_navigation():
                tab.evaluate("document.getElementById('f').submit()")
            assert json.loads(tab.inner_text("body")) == {"ok": False, "message": words}
        # DNS rebinding: a page of evil.example, then the name points at the table (here: the attacker's server
        # goes and the table's page answers on its port), so to the browser the table is the page's own origin
        with _site("<p>nothing to see</p>") as port:
            tab.goto(f"http://evil.example:{port}/")
        rebound = DealerPage(rig.engine, rig.run.pins, host="127.0.0.1", port=port, allow=("127.0.0.0/8",),
                             table_id="T-TEST")
        rebound.start()
        try:
            reads = tab.evaluate("""async () => Promise.all([
                fetch("/api/action", {method: "POST", headers: {"Content-Type": "application/json"},
                                      body: JSON.stringify({action: "open_betting"})}),
                fetch("/api/state"), fetch("/api/challenge")].map(async (p) => { const r = await p;
                    return [r.status, (await r.json()).message]; }))""")
        finally:
            rebound.stop()
        assert reads == [[403, HOST_REFUSED.format(f"evil.example:{port}")]] * 3
    finally:
        context.close()
    assert rig.snap["state"] == "ready" and rig.snap["round"] is None
    alerts = [a["message"] for a in _security_alerts(rig)]          # each page: one alert a minute
    assert len(alerts) == 2 and "(cross-site request refused: Origin http://evil.example:" in alerts[0]
    assert f"(request refused: Host evil.example:{port} is not this table's address" in alerts[1]


# --- 2. a recorded supervisor request -------------------------------------------------------------

def test_a_recorded_supervisor_request_cannot_be_played_again(rig, mocker):
    page = rig.run.page
    rig.run.pins.set_pin("supervisor", "Ana", "2468")
    rig.open_and_bet({1: {"ante": 500}})
    response, payload = _request(page.url + "api/challenge")
    answer = json.loads(payload)
    assert response.status == 200 and answer["ok"] and answer["expires_in"] == 120 and len(answer["challenge"]) >= 32
    assert response.getheader("Cache-Control") == "no-store"
    check = mocker.spy(rig.run.pins, "check")
    recorded = {"action": "void_round", "reason": "dispute", "role": "supervisor", "pin": "2468",
                "challenge": answer["challenge"]}
    assert _act(rig, recorded) == (200, {"ok": True, "message": "done"})
    rig.state("void")
    meters = {"action": "reset_meters", "reason": "shift", "role": "supervisor", "pin": "2468"}
    refusals = [
        (recorded, "this challenge was already used: a request is never taken twice (ask for a new one)"),
        ({**meters, "challenge": answer["challenge"]},
         "this challenge was already used: a request is never taken twice (ask for a new one)"),
        (meters, "a supervisor's action needs a challenge: the page asks GET /api/challenge for one first"),
        ({**meters, "challenge": "guessed"}, "this challenge is unknown or was pushed out by newer ones "
                                             "(ask for a new one)"),
    ]
    for body, words in refusals:
        assert _act(rig, body) == (403, {"ok": False, "message": words})
    stale = _challenge(page)                             # two minutes on, it has expired
    clock = page.challenges.clock
    page.challenges.clock = lambda: clock() + 121
    try:
        assert _act(rig, {**meters, "challenge": stale}) == (403, {"ok": False, "message": (
            "this challenge expired (ask for a new one)")})
    finally:
        page.challenges.clock = clock
    oldest = _challenge(page)                            # at most 32 outstanding: the oldest goes
    for _ in range(32):
        _challenge(page)
    assert _act(rig, {**meters, "challenge": oldest})[1]["message"].startswith("this challenge is unknown")
    # no challenge for another site's page, and none under another name
    for headers in ({"Origin": "http://evil.example"}, {"Sec-Fetch-Site": "cross-site"},
                    {"Host": f"evil.example:{page.port}"}):
        assert _request(page.url + "api/challenge", headers=headers)[0].status == 403
    assert check.call_count == 1 and len(rig.records("void")) == 1      # one PIN tried, one void
    assert len(_audit(rig, "page.challenge_refused")) == 1                 # a flood is one line a minute
    assert _act(rig, {**meters, "challenge": _challenge(page)}) == (200, {"ok": True, "message": "done"})


# --- 4. event streams ---------------------------------------------------------------------------

def _stream(page, *, rcvbuf: int | None = None, source: str | None = None) -> socket.socket:
    parts = urlsplit(page.url)
    sock = socket.socket()
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(10)
    if source:
        sock.bind((source, 0))
    sock.connect((parts.hostname, parts.port))
    sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: {parts.netloc}\r\nAccept: text/event-stream\r\n\r\n".encode())
    return sock


def _status(sock: socket.socket) -> int:
    """The answer's status, peeked at: the client still reads nothing of the stream."""
    head = sock.recv(12, socket.MSG_PEEK | socket.MSG_WAITALL)
    return int(head[9:12])


def test_at_most_sixteen_event_streams_the_seventeenth_refused_in_words(rig):
    page = rig.run.page
    clients = [_stream(page) for _ in range(streams.MOST)]
    try:
        assert [_status(c) for c in clients] == [200] * streams.MOST
        extra = http.client.HTTPResponse(_stream(page))
        extra.begin()
        assert (extra.status, json.loads(extra.read())) == (503, {"ok": False, "message": (
            "this table's page already serves 16 live pages, the most it serves at once: close another page of "
            "this table, then reload")})
        extra.close()
        clients.pop().close()                        # a page closed frees its place within a second
        rig.eventually(lambda: len(page.streams.listeners) == streams.MOST - 1, timeout=5, what="a free place")
        clients.append(_stream(page))
        assert _status(clients[-1]) == 200
    finally:
        for c in clients:
            c.close()


def _vm_rss() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmRSS:"))


def _unsent_in_kernel(port: int) -> int:
    """Bytes the kernel still holds to send on the page's side of its connections (/proc/net/tcp)."""
    with open("/proc/net/tcp") as table_file:
        rows = [line.split() for line in table_file.readlines()[1:]]
    return sum(int(row[4].split(":")[0], 16) for row in rows if int(row[1].split(":")[1], 16) == port)


def test_a_hundred_clients_that_never_read_hold_bounded_memory_and_are_dropped(rig, monkeypatch):
    monkeypatch.setattr(streams, "STALL", 1.0)
    page = rig.run.page
    warm = _stream(page)                             # the code paths once, before measuring
    assert _status(warm) == 200
    warm.close()
    rig.eventually(lambda: not page.streams.listeners, timeout=5, what="the warm-up stream closed")
    before = _vm_rss()
    # the lab's: a request, then no reading; from four addresses, as one address holds at most
    # controller/page/gate.py EACH connections (a stream refused 503 stays open, kept alive)
    clients = [_stream(page, rcvbuf=4096, source=f"127.0.0.{10 + i % 4}") for i in range(100)]
    try:
        assert sorted(_status(c) for c in clients) == [200] * streams.MOST + [503] * (100 - streams.MOST)
        base = rig.snap
        pad = "x" * 100_000                          # a snapshot of ~100 KB, published 50 times
        for i in range(50):
            page._published({**base, "version": base["version"] + 1 + i, "pad": pad})
            time.sleep(0.02)
        time.sleep(0.3)
        held_rss, held_kernel = _vm_rss() - before, _unsent_in_kernel(page.port)
        one = len(page.streams.event(page._latest))
        # before issue 16 the kernel alone held over 200 MiB here (each stream's send buffer grew to 4 MiB)
        # and every client had a stream; now 16 streams, each at most the mark and an event or two
        assert held_kernel <= streams.MOST * 4 * streams.SNDBUF, f"{held_kernel / 2 ** 20:.1f} MiB in the kernel"
        bound = streams.MOST * (streams.HIGH_WATER + 2 * one) + 8 * 2 ** 20        # 8 MiB: the allocator's slack
        assert held_rss <= bound, f"{held_rss / 2 ** 20:.1f} MiB resident"
        # none of them reads: within the stall every stream is cut and what it held is freed
        rig.eventually(lambda: not page.streams.listeners, timeout=10, what="the stalled streams dropped")
        rig.eventually(lambda: _unsent_in_kernel(page.port) < one, timeout=5, what="the kernel's buffers freed")
        assert len(_audit(rig, "page.stream_dropped")) == streams.MOST
    finally:
        for c in clients:
            c.close()
    reader = _stream(page)                           # and a page that reads is served as ever
    try:
        lines = reader.makefile("rb")
        while not (line := lines.readline()).startswith(b"data: "):
            assert line
        assert json.loads(line[6:])["version"] == page._latest["version"]
    finally:
        reader.close()


# --- 5. requests the page cannot read (issue 33) -------------------------------------------------

def _raw(page: DealerPage, lines: list[str], body: bytes = b"") -> tuple[int, dict]:
    """One request written as the bytes given (headers repeated as an attacker repeats them)."""
    with socket.create_connection(("127.0.0.1", page.port), timeout=10) as sock:
        head = "\r\n".join([*lines, f"Content-Length: {len(body)}", "Connection: close", "", ""])
        sock.sendall(head.encode() + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status, body = int(data.split(b" ", 2)[1]), data.split(b"\r\n\r\n", 1)[1]
    return status, json.loads(body) if body.startswith(b"{") else {"text": body.decode(errors="replace")}


def test_sixteen_kib_of_nested_json_is_refused_in_words_not_a_server_error(rig):
    page = rig.run.page
    host = f"Host: 127.0.0.1:{page.port}"
    deep = b"[" * 8_000 + b"]" * 8_000           # 16 KiB: the most a request may carry
    for path in ("/api/action", "/api/report"):
        status, answer = _raw(page, [f"POST {path} HTTP/1.1", host, "Content-Type: application/json"], deep)
        assert (status, answer["ok"]) == (400, False), (path, answer)
        assert "nested too deeply" in answer["message"]
    assert rig.snap["state"] == "ready"


@pytest.mark.parametrize("name, first, second", [
    ("Origin", "http://127.0.0.1:{port}", "http://evil.example"),      # judged by the first, it passed
    ("Origin", "http://evil.example", "http://127.0.0.1:{port}"),
    ("Sec-Fetch-Site", "same-origin", "cross-site"),
])
def test_a_header_given_twice_is_refused_as_ambiguous_never_judged_by_one_copy(rig, name, first, second):
    page = rig.run.page
    port = page.port
    headers = [f"Host: 127.0.0.1:{port}"] if name != "Host" else []
    headers += [f"{name}: {first.format(port=port)}", f"{name}: {second.format(port=port)}",
                "Content-Type: application/json"]
    status, answer = _raw(page, ["POST /api/action HTTP/1.1", *headers], b'{"action": "open_betting"}')
    assert (status, answer) == (403, {"ok": False, "message": f"request refused: {name} given 2 times (ambiguous)"})
    assert rig.snap["state"] == "ready"


def test_a_host_given_twice_never_reaches_the_table():
    """aiohttp's parser refuses it (400) before any handler; the fence would too (a test of its own)."""
    from multidict import CIMultiDict
    twice = CIMultiDict([("Host", "127.0.0.1:8080"), ("Host", "evil.example")])
    assert Fence.ambiguity(twice) == "request refused: Host given 2 times (ambiguous)"
    assert Fence.ambiguity(CIMultiDict([("Host", "127.0.0.1:8080")])) is None
