"""The test lab's careless and hostile requests (session lab17), each refused in words with the
right status and nothing changed: no server error, no challenge or PIN spent on a request that
could never be taken, the journal as it was."""

from __future__ import annotations

import http.client
import json
from urllib.parse import quote, urlsplit

import pytest

from controller.engine_events import bad_arguments
from tests.page.test_page_api import _act, _challenge, _request
from tests.support.rig import table


@pytest.fixture
def rig(tmp_path):
    with table(tmp_path, "sheet-004", page=True) as r:
        r.wait(lambda s: s["state"] == "ready", what="ready")
        r.run.pins.set_pin("supervisor", "Sam", "7391")
        yield r


def _facts(rig) -> tuple[int, int]:
    db = rig.journal.db
    return (db.execute("SELECT count(*) FROM records").fetchone()[0],
            db.execute("SELECT count(*) FROM table_events").fetchone()[0])


def _get(url: str) -> tuple[int, dict]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request("GET", f"{parts.path}?{parts.query}")
    response = conn.getresponse()
    try:
        return response.status, json.loads(response.read())
    finally:
        conn.close()


@pytest.mark.parametrize("query", ["round=" + quote("²"), "before=" + quote("³")])
def test_a_round_number_in_other_digits_is_refused_in_words_not_a_server_error(rig, query):
    # str.isdigit says yes to "²", int() says no: it was a 500 with aiohttp's own words
    assert _get(rig.run.page.url + "api/recall?" + query) == (400, {"ok": False, "message": (
        "recall: say one round number (?round=N) or the rounds before one (?before=N)")})


def _report(rig, **fields) -> tuple[int, dict]:
    page = rig.run.page
    body = {"role": "supervisor", "pin": "7391", "challenge": _challenge(page), **fields}
    response, payload = _request(page.url + "api/report", "POST", body)
    return response.status, json.loads(payload)


@pytest.mark.parametrize("shift", [["day"], {"day": 1}])
def test_a_shift_that_is_not_a_name_is_refused_in_words(rig, shift):
    status, answer = _report(rig, shift=shift)          # was a 500: unhashable in the shifts' lookup
    assert (status, answer["ok"]) == (400, False)
    assert answer["message"].startswith(f"shift {shift!r}: no such shift")


def test_a_day_at_the_calendars_end_is_refused_in_words_before_the_pin(rig):
    facts = _facts(rig)
    status, answer = _report(rig, day="9999-12-31", pin="0000")  # was a 500 after a right PIN
    assert (status, answer) == (400, {"ok": False, "message": (
        "day '9999-12-31': a gaming day is a date YYYY-MM-DD")})
    assert _facts(rig) == facts


@pytest.mark.parametrize("body, message", [
    ({"action": "explode"}, "unknown action 'explode'"),
    ({"action": "play", "position": "1"}, "play: position must be a whole number, not '1'"),
    ({"action": "play", "position": True}, "play: position must be a whole number, not True"),
    ({"action": "play", "position": 1.0}, "play: position must be a whole number, not 1.0"),
    ({"action": "open_betting", "position": 1}, "open_betting: unknown argument 'position'"),
    ({"action": "misdeal", "reason": 5}, "misdeal: reason must be text, not 5"),
    # the page's own field holds 200 characters; ten reasons of 16 KiB took the snapshot to 157 KB
    ({"action": "call_supervisor", "reason": "x" * 201}, "call_supervisor: reason must be at most 200 characters, "
                                                          "not 201"),
    ({"action": "call_supervisor", "reason": "ok\x1b[2Jcleared"},
     "call_supervisor: reason must be plain text, without control or formatting characters"),
    ({"action": "call_supervisor", "reason": "ok\nsecond line"},
     "call_supervisor: reason must be plain text, without control or formatting characters"),
    ({"action": "call_supervisor", "reason": "abc\u202edcba"},          # shown reversed
     "call_supervisor: reason must be plain text, without control or formatting characters"),
    ({"action": "play", "position": 10 ** 4000}, "play: position must be a whole number of at most 15 digits"),
    ({"action": "fold"}, 'fold: say which position ("position": N)'),     # it read "position None has no Ante"
    ({"action": "open_betting", "role": False}, "role must be one of dealer, supervisor, technician, or none for "
                                                "the dealer"),                # it was read as the dealer
    ({"action": "open_betting", "role": ["supervisor"]}, "role must be one of dealer, supervisor, technician, or "
                                                         "none for the dealer"),
    ({"action": "set_jackpots", "reason": "r", "mega": -10 ** 15, "major": 1, "minor": 1},
     "set_jackpots: mega must be a whole number of at most 15 digits"),
])
def test_an_action_the_table_could_never_take_is_malformed_400_not_the_tables_refusal(rig, body, message):
    facts = _facts(rig)
    assert _act(rig, body) == (400, {"ok": False, "message": message})      # was 409, "the table refused"
    raw = b'{"action": "play", "position": NaN}'                            # Python's JSON reads NaN
    response, payload = _request(rig.run.page.url + "api/action", "POST", raw)
    assert (response.status, json.loads(payload)["message"]) == (400, "play: position must be a whole number, "
                                                                          "not nan")
    assert _facts(rig) == facts and rig.snap["state"] == "ready"


def test_a_malformed_supervisors_request_spends_neither_its_challenge_nor_a_pin_guess(rig):
    page = rig.run.page
    challenge = _challenge(page)
    override = {"action": "override_wager", "role": "supervisor", "challenge": challenge, "position": 1,
                "spot": "ante", "reason": "lab"}
    # a wrong PIN with an amount in words: before, the challenge was used up and the PIN counted as wrong
    assert _act(rig, {**override, "pin": "0000", "amount": "500"}) == (400, {"ok": False, "message": (
        "override_wager: amount must be a whole number, not '500'")})
    status, answer = _act(rig, {**override, "pin": "7391", "amount": 500})        # the same challenge
    assert (status, answer["message"]) == (409, "override wager is not possible while ready")
    for _ in range(rig.run.pins.attempts - 1):          # and the wrong PINs left are all there
        body = {**override, "pin": "0000", "amount": 500, "challenge": _challenge(page)}
        assert _act(rig, body)[0] == 403
    assert rig.run.pins.locked_for() == 0


def test_the_reports_refusals_are_in_the_readers_language_as_the_dealers_page_answers_are(rig):
    page = rig.run.page
    body = {"role": "supervisor", "pin": "0000", "challenge": _challenge(page)}
    response, payload = _request(page.url + "api/report", "POST", body,
                                 headers={"Content-Type": "application/json", "Cookie": "lang=es"})
    # the report page shows this message to a supervisor reading Spanish; it came in English
    assert (response.status, json.loads(payload)["message"]) == (403, (
        "PIN de supervisor erróneo (la entrada de PIN se bloquea para todos los roles tras 4 PIN erróneos más)"))


@pytest.mark.parametrize("reason", ["x" * 200, "jugador disputó la apuesta — señal rota", "fila 3: 2 × $25",
                                    "no\u00a0break space", "emoji 🃏 ok",
                                    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",   # Persian, with its non-joiner
                                    "\U0001f469\u200d\u2695\ufe0f medic called"])           # an emoji joined
def test_a_reason_a_person_writes_is_taken(reason):
    """What the page's own field holds, in any language, is not refused by the checks above."""
    assert bad_arguments({"reason": reason}, ("reason",)) is None


def _said(response, payload) -> tuple[int, str, dict]:
    return response.status, response.getheader("Content-Type", ""), json.loads(payload)


def test_the_apis_own_protocol_errors_are_said_in_json_in_the_readers_language(rig):
    """aiohttp's own answers were plain text ("Maximum request body size 16384 exceeded."): the page's
    script reads JSON and could show none of them."""
    url, facts = rig.run.page.url, _facts(rig)
    status, kind, body = _said(*_request(url + "api/nothing"))
    assert (status, body) == (404, {"ok": False, "message": "the page's API has no such request"})
    assert kind.startswith("application/json")
    response, payload = _request(url + "api/action", "DELETE")
    assert _said(response, payload)[::2] == (405, {"ok": False, "message": "this request does not take that method"})
    assert response.getheader("Allow") == "POST"
    big = json.dumps({"action": "call_supervisor", "reason": "x" * 20_000}).encode()
    assert _said(*_request(url + "api/action", "POST", big))[::2] == (
        413, {"ok": False, "message": "the request is too large: at most 16 KiB"})
    spanish = {"Cookie": "lang=es"}
    assert _said(*_request(url + "api/nothing", headers=spanish))[2]["message"] == (
        "la API de la página no tiene esa petición")
    assert _facts(rig) == facts and rig.snap["state"] == "ready"


def test_outside_the_api_a_missing_file_keeps_its_plain_answer(rig):
    response, payload = _request(rig.run.page.url + "static/nothing.js")
    assert response.status == 404 and not response.getheader("Content-Type", "").startswith("application/json")


def test_numbers_up_to_fifteen_digits_are_taken():
    assert bad_arguments({"amount": 10 ** 15 - 1, "position": -(10 ** 15 - 1)}, ("amount", "position")) is None
