"""The pit's page and ``table-floor pit`` on odd input (the test lab's, session 18): a range that is
no range, a port it cannot listen on, names with a NUL or control characters. Each is refused in
words before any PIN is tried or the floor asked, and changes nothing."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request

import pytest

from controller.floor import cli
from controller.floor.pit_page import PitPage
from controller.store.pins import PinStore


def test_table_floor_pit_refuses_an_allowed_range_that_is_none(tmp_path, capsys):
    assert cli.main(["pit", "--pins", str(tmp_path / "pins.json"), "--allow", "garbage"]) == 2
    assert "table-floor: --allow 'garbage' is not an address range" in capsys.readouterr().err


def test_table_floor_pit_on_a_port_in_use_says_so_and_ends(cluster, tmp_path, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status = cli.main(["pit", "--dsn", cluster.dsn(), "--pins", str(tmp_path / "pins.json"),
                           "--port", str(port)])
    out = capsys.readouterr()
    assert status == 2, out
    assert f"table-floor: the pit's page cannot listen on 127.0.0.1 port {port}: " in out.err
    assert "address already in use" in out.err and "The pit:" not in out.out


@pytest.fixture
def pit(cluster, tmp_path):
    pins = PinStore(tmp_path / "pins.json")
    pins.set_pin("supervisor", "Ana", "2468")
    page = PitPage(cluster.dsn(), pins, port=0)
    url = page.start().rstrip("/")

    def ask(path: str, body: dict | None = None) -> tuple[int, dict]:
        request = urllib.request.Request(url + path, data=None if body is None else json.dumps(body).encode(),
                                         headers={"Origin": url, "Content-Type": "application/json"},
                                         method="GET" if body is None else "POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())

    yield ask, tmp_path / "pins.json"
    page.stop()


BODIES = {
    "/api/jackpot": {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000, "reason": "test"},
    "/api/close-claims": {"level": "minor", "generation": 1, "reason": "test", "confirm": True},
}


@pytest.mark.parametrize("path", sorted(BODIES))
@pytest.mark.parametrize("group", ["G\x00", "G\x1b[2J", "G" * 33, 7, ["G"]])
def test_a_group_that_can_be_no_group_is_refused_before_the_pin_is_tried(pit, path, group):
    ask, pins_file = pit
    challenge = ask("/api/challenge")[1]["challenge"]
    status, answer = ask(path, dict(BODIES[path], group=group, pin="1357", challenge=challenge))
    assert (status, answer["ok"]) == (400, False), answer
    assert "group" in answer["message"] and "database" not in answer["message"]
    # the wrong PIN was not tried: no supervisor's lockout nears
    assert json.loads(pins_file.read_text())["lockout"]["failures"] == 0
    status, answer = ask(path, dict(BODIES[path], group="NO-SUCH", pin="2468", challenge=challenge))
    assert status == 409, answer                    # and the challenge was not spent on it


@pytest.mark.parametrize("query", ["/api/replay?table=A%00&round=1", "/api/replay?table=A%1B&round=1"])
def test_a_table_that_can_be_no_table_is_refused_without_asking_the_floor(pit, query):
    status, answer = pit[0](query)
    assert status == 400 and "database" not in answer["message"], answer
