"""The page's HTTP side without a browser: addresses, refusals, PINs, the event stream, headers,
game recall; and the table actions behind it (call supervisor, meter reset) in the journal."""

from __future__ import annotations

import http.client
import json
import socket
import sqlite3
from urllib.parse import urlsplit

import pytest

from controller.page.server import DealerPage
from controller.store.journal import Journal
from controller.store.pins import MAX_PIN, MIN_PIN
from controller.store.recall import meters, recall
from tests.support.rig import table


def _request(url: str, method: str = "GET", body=None, headers=None):
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    conn.request(method, parts.path or "/", body=data,
                 headers=headers or ({"Content-Type": "application/json"} if data is not None else {}))
    response = conn.getresponse()
    payload = response.read()
    conn.close()
    return response, payload


def _act(rig, body):
    response, payload = _request(rig.run.page.url + "api/action", "POST", body)
    return response.status, json.loads(payload)


def _challenge(page: DealerPage) -> str:
    response, payload = _request(page.url + "api/challenge")
    assert response.status == 200, payload
    return json.loads(payload)["challenge"]


def _supervise(rig, body):
    """A supervisor's action as the page sends it: with a fresh one-time challenge."""
    return _act(rig, {**body, "challenge": _challenge(rig.run.page)})


@pytest.fixture
def rig(tmp_path):
    with table(tmp_path, "sheet-004", page=True, page_settings="pin_attempts = 2\n") as r:
        r.wait(lambda s: s["state"] == "ready", what="ready")
        yield r


def test_the_page_and_its_files_come_from_the_package_with_a_strict_policy(rig):
    response, body = _request(rig.run.page.url)
    assert response.status == 200 and b"/static/page.js" in body
    csp = response.getheader("Content-Security-Policy")
    assert csp.startswith("default-src 'self'")
    for name in ("page.js", "page.css"):
        response, body = _request(rig.run.page.url + f"static/{name}")
        assert response.status == 200 and len(body) > 1000
    assert b"http" not in _request(rig.run.page.url + "static/page.css")[1]   # nothing from elsewhere
    response, _ = _request(rig.run.page.url + "static/../pins.py")
    assert response.status in (403, 404)
    # every device's hello through the engine: the table is ready on the shoe's and the sensors' (two
    # frames measured), and the sign's hello, like the shoe's count and the felt's reading, may come
    # after it; the test's few requests took longer than those round trips, but a loaded machine need not
    rig.wait(lambda s: all(d["online"] for d in s["devices"].values()), what="every device online")
    response, body = _request(rig.run.page.url + "api/health")
    health = json.loads(body)
    latency = health.pop("latency")
    assert health == {"ok": True, "table": "T-TEST", "state": "ready"}
    assert set(latency) == {"frame_to_snapshot", "snapshot_to_page"}
    # the devices' hellos went through the engine: measured
    assert latency["frame_to_snapshot"]["n"] >= 3 and latency["frame_to_snapshot"]["max_ms"] > 0
    assert set(latency["snapshot_to_page"]) == {"n", "p50_ms", "p99_ms", "max_ms", "buckets"}
    assert sum(c for _, c in latency["frame_to_snapshot"]["buckets"]) == latency["frame_to_snapshot"]["n"]


def test_malformed_or_unauthorised_requests_change_nothing_and_say_why(rig):
    assert _act(rig, b"not json") == (400, {"ok": False, "message": "the request body must be a JSON object"})
    assert _act(rig, [1, 2]) == (400, {"ok": False, "message": "the request body must be a JSON object"})
    assert _act(rig, {"action": "open_betting", "cash": 1}) == (400, {"ok": False,
                                                                     "message": "unknown field 'cash'"})
    assert _act(rig, {"action": "call_supervisor", "position": 2}) == \
        (400, {"ok": False, "message": "call_supervisor: unknown argument 'position'"})     # malformed (lab17)
    assert _act(rig, {"action": "no_more_bets"}) == (409, {"ok": False,
                                                          "message": "no more bets is not possible while ready"})
    assert _act(rig, {"action": "reset_meters", "reason": "audit"}) == \
        (401, {"ok": False, "message": "reset meters needs a supervisor or technician PIN"})
    assert _act(rig, {"action": "reset_meters", "reason": "audit", "role": "dealer", "pin": "1"})[0] == 401
    assert _act(rig, {"action": "open_betting", "role": "supervisor", "pin": "1234"}) == \
        (400, {"ok": False, "message": "open betting is a dealer's action; it takes no role, PIN or challenge"})
    assert _act(rig, {"action": "open_betting", "challenge": _challenge(rig.run.page)}) == \
        (400, {"ok": False, "message": "open betting is a dealer's action; it takes no role, PIN or challenge"})
    assert _supervise(rig, {"action": "reset_meters", "reason": "audit", "role": "supervisor", "pin": "1234"}) == \
        (403, {"ok": False, "message": "no supervisor PIN is set on this table (a technician sets one "
                                       "with `table-controller pin set supervisor NAME`)"})
    assert rig.snap["state"] == "ready" and not rig.journal.db.execute(
        "SELECT 1 FROM table_events WHERE kind = 'meters_reset'").fetchall()


def test_an_address_outside_the_allowed_range_is_refused(rig):
    fenced = DealerPage(rig.engine, rig.run.pins, host="127.0.0.1", port=0, allow=("10.9.0.0/16",),
                        table_id="T-TEST")
    fenced.start()
    try:
        response, body = _request(fenced.url + "api/action", "POST", {"action": "open_betting"})
        assert response.status == 403
        assert json.loads(body)["message"] == ("address 127.0.0.1 may not use this table's page "
                                               "(page.allow in the table configuration)")
        assert _request(fenced.url)[0].status == 403
        assert _request(fenced.url + "api/recall")[0].status == 403
    finally:
        fenced.stop()
    assert rig.snap["state"] == "ready"


def test_the_event_stream_sends_the_state_at_once_then_every_change(rig):
    parts = urlsplit(rig.run.page.url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: {parts.netloc}\r\nAccept: text/event-stream\r\n\r\n"
                     .encode())
        reader = sock.makefile("rb")
        assert b"200" in reader.readline()
        headers = {}
        while (line := reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            headers[name.lower()] = value.strip()
        assert headers["content-type"] == "text/event-stream"

        def next_snapshot():
            while True:
                line = reader.readline()
                assert line, "stream ended"
                if b"data: {" in line:
                    return json.loads(line[line.index(b"{"):])

        assert next_snapshot()["state"] == "ready"
        rig.act("open_betting")
        while (snap := next_snapshot())["state"] != "betting":
            pass
        assert snap["round"] is not None and snap["version"] <= rig.snap["version"]


def test_a_supervisor_resets_the_meters_between_rounds_and_the_reset_is_journaled(rig):
    rig.run.pins.set_pin("supervisor", "Ana", "2468")
    rig.open_and_bet({1: {"ante": 500}})
    status, answer = _supervise(rig, {"action": "reset_meters", "reason": "shift", "role": "supervisor",
                                      "pin": "2468"})
    assert (status, answer["message"]) == (409, "meters are reset between rounds, not while betting")
    rig.act("void_round", role="supervisor", reason="test")
    rig.state("void")
    assert meters(rig.journal)["rounds"]["void"] == 1
    status, answer = _supervise(rig, {"action": "reset_meters", "role": "supervisor", "pin": "2468"})
    assert (status, answer["message"]) == (409, "say why the meters are reset")
    status, answer = _supervise(rig, {"action": "reset_meters", "reason": "end of shift", "role": "supervisor",
                                      "pin": "2468"})
    assert (status, answer) == (200, {"ok": True, "message": "done"})
    since = meters(rig.journal)
    assert since["rounds"] == {"complete": 0, "void": 0, "open": 0}
    assert since["since_reset"]["by"] == "supervisor Ana" and since["since_reset"]["reason"] == "end of shift"
    assert since["since_reset"]["after_round"] == 1
    assert meters(rig.journal, lifetime=True)["rounds"]["void"] == 1      # nothing was deleted


def test_calling_a_supervisor_alerts_and_is_journaled(rig):
    assert _act(rig, {"action": "call_supervisor"}) == (200, {"ok": True, "message": "done"})
    snap = rig.wait(lambda s: any(a["kind"] == "supervisor_called" for a in s["alerts"]))
    alert = next(a for a in snap["alerts"] if a["kind"] == "supervisor_called")
    assert alert["kind"] == "supervisor_called" and alert["message"] == "Supervisor called to the table by the dealer"
    row = rig.journal.db.execute("SELECT data FROM table_events WHERE kind = 'alert'").fetchall()[-1]
    assert json.loads(row[0])["kind"] == "supervisor_called"


def test_a_pin_that_can_be_no_pin_is_refused_in_words_and_does_not_count_towards_the_lockout(rig, mocker):
    rig.run.pins.set_pin("supervisor", "Ana", "2468")
    rig.open_and_bet({1: {"ante": 500}})
    check = mocker.spy(rig.run.pins, "check")
    short = "1" * (MIN_PIN - 1)
    for _ in range(3):                                  # more than the table's 2 attempts
        status, answer = _supervise(rig, {"action": "void_round", "reason": "test", "role": "supervisor",
                                          "pin": short})
        assert (status, answer["message"]) == (400, f"a supervisor PIN has at least {MIN_PIN} digits; this one "
                                                    "was not tried and does not count as a wrong PIN")
    # nor can letters, a pasted name, more digits than any PIN or other digits (the test lab's: they counted)
    for never in ("abcd", "Ana 2468", "1" * (MAX_PIN + 1), "１２３４", "12 34", "x" * 16_000):
        status, answer = _supervise(rig, {"action": "void_round", "reason": "test", "role": "supervisor",
                                          "pin": never})
        assert (status, answer["message"]) == (400, f"a supervisor PIN is {MIN_PIN} to {MAX_PIN} digits; this one "
                                                    "was not tried and does not count as a wrong PIN")
    assert check.call_count == 0 and rig.run.pins.locked_for("supervisor") == 0
    status, answer = _supervise(rig, {"action": "void_round", "reason": "test", "role": "supervisor", "pin": "1111"})
    assert (status, answer["message"]) == (403, "wrong supervisor PIN (PIN entry locks for every role after 1 more "
                                                "wrong PIN)")
    assert rig.snap["state"] == "betting" and not rig.records("void")


def _recall_page(rig) -> DealerPage:
    page = DealerPage(rig.engine, rig.run.pins, host="127.0.0.1", port=0, allow=("127.0.0.0/8",),
                      table_id="T-TEST", journal_path=rig.journal.path)
    page.start()
    return page


def _get(url: str):
    response, body = _request(url)
    return response.status, json.loads(body)


def test_recall_gives_the_last_ten_rounds_and_shows_no_card_the_table_does_not(rig):
    for _ in range(10):                                 # rounds 1 to 10: opened and voided
        rig.act("open_betting")
        rig.state("betting")
        rig.act("void_round", role="supervisor", reason="recall test")
        rig.state("void")
    rig.open_and_bet({1: {"ante": 500, "pair_plus": 500}, 2: {"ante": 500}})     # round 11 in play
    rig.deal()
    rig.state("decisions")
    rig.play(1)
    page = _recall_page(rig)
    try:
        status, answer = _get(page.url + "api/recall")
        assert status == 200 and answer["ok"] and answer["table"] == "T-TEST"
        rounds = answer["rounds"]
        assert [r["id"] for r in rounds] == list(range(2, 12))
        assert rounds[:-1] == recall(rig.journal)[:-1]            # finished rounds: as the journal has them
        current = rounds[-1]
        assert current["table"]["status"] == "open" and current["table"]["state"] == "decisions"
        assert "dealer" not in current and not any("cards" in seat for seat in current["seats"])
        assert current["seats"][0]["wagers"]["pair_plus"] == 500 and current["seats"][0]["play"] is True
        assert current["hidden"].startswith("cards are shown once the dealer's hand is revealed")
        rig.act("fold", position=2)
        rig.reveal()
        current = _get(page.url + "api/recall")[1]["rounds"][-1]
        full = recall(rig.journal)[-1]
        assert current["dealer"] == full["dealer"]
        assert current["seats"][0]["cards"] == full["seats"][0]["cards"]
        assert "cards" not in current["seats"][1]                  # the fold stays face down
        while (snap := rig.snap)["state"] == "settling":
            rig.act("confirm", position=snap["next_to_pay"])
            rig.wait(lambda s, n=snap["next_to_pay"]: s["next_to_pay"] != n)
        rig.state("complete")
        assert _get(page.url + "api/recall")[1]["rounds"][-1] == recall(rig.journal)[-1]
    finally:
        page.stop()


def test_recall_reads_the_journal_without_writing_and_says_when_it_cannot(rig, tmp_path):
    journal = Journal.read_only(rig.journal.path, keyed=False)
    try:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            journal.db.execute("INSERT INTO meta(key, value) VALUES ('page', 'wrote')")
        assert journal.round_ids(10) == rig.journal.round_ids(10)
    finally:
        journal.close()
    bare = DealerPage(rig.engine, rig.run.pins, host="127.0.0.1", port=0, allow=("127.0.0.0/8",),
                      table_id="T-TEST")
    missing = DealerPage(rig.engine, rig.run.pins, host="127.0.0.1", port=0, allow=("127.0.0.0/8",),
                         table_id="T-TEST", journal_path=tmp_path / "nowhere" / "journal.sqlite")
    bare.start()
    missing.start()
    try:
        assert _get(bare.url + "api/recall") == (503, {"ok": False, "message": "recall is not available: this "
                                                       "page was started without the journal"})
        status, answer = _get(missing.url + "api/recall")
        assert status == 503 and answer["message"].startswith("recall: cannot read the journal: ")
        assert not (tmp_path / "nowhere").exists()                 # nothing created
    finally:
        bare.stop()
        missing.stop()


def test_health_says_the_table_halted_when_its_disk_is_full(rig, monkeypatch):
    """A full disk halts the table: the health check (monitoring, the kiosk launcher) says so with 503
    and the reason, never ``ok: true`` over a table that records nothing more."""
    import errno

    def full(fd: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(rig.run.audit, "_write_all", full)
    # the touch's commit or its anchor meets the full disk first (a device's log line may have met it
    # already, and then the commit itself is refused): either way the table halts
    rig.engine.act("open_betting")
    rig.wait(lambda s: bool(s["halted"]), what="the halt")
    response, body = _request(rig.run.page.url + "api/health")
    monkeypatch.undo()                  # the table stops on a disk with room again
    health = json.loads(body)
    assert response.status == 503 and health["ok"] is False
    assert "No space left on device" in health["halted"]
    assert health["halted"].startswith(("the audit trail cannot be written", "the journal cannot be written"))
