"""The test lab's connections that never finish a request (session lab17): 1,100 of them, each half
a request line, took every file descriptor systemd gives the controller and the table halted
("the audit trail cannot be written ([Errno 24] Too many open files)"). controller/page/gate.py
bounds them; the table plays on whatever they do."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import pytest

from controller.page import gate
from controller.page.server import DealerPage
from tests.page.test_page_api import _request
from tests.support.rig import table

HALF_A_REQUEST = b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n"       # and never the rest


@pytest.fixture
def rig(tmp_path):
    with table(tmp_path, "sheet-004", page=True) as r:
        r.wait(lambda s: s["state"] == "ready", what="ready")
        yield r


def _idle(port: int, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket()
    sock.settimeout(5)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    sock.sendall(HALF_A_REQUEST)
    return sock


def _turned_away(socks: list[socket.socket], wait: float = 1.0) -> list[bool]:
    """For each connection, whether the page closed it without a word (a reset or an end) within
    ``wait`` seconds, or else kept it (all of them looked at after one wait)."""
    time.sleep(wait)
    out = []
    for sock in socks:
        sock.setblocking(False)
        try:
            out.append(sock.recv(1) == b"")
        except ConnectionResetError:
            out.append(True)
        except BlockingIOError:
            out.append(False)
        finally:
            sock.settimeout(5)
    return out


def _open_fds() -> int:
    import os
    return len(os.listdir("/proc/self/fd"))


def test_connections_that_never_finish_a_request_are_bounded_and_the_table_plays_on(rig, monkeypatch):
    monkeypatch.setattr(gate, "MOST", 24)
    page = rig.run.page
    before = _open_fds()
    held = [_idle(page.port) for _ in range(gate.MOST)]
    try:
        more = [_idle(page.port) for _ in range(40)]        # before the gate every one was kept open
        assert all(_turned_away(more))
        for s in more:
            s.close()
        assert not any(_turned_away(held[:3]))    # the first ones are kept, as aiohttp keeps them
        # the page's side holds one descriptor each at most: the client's own are the other half
        assert _open_fds() - before <= 2 * gate.MOST + 4
        rig.act("open_betting")                              # the table plays on: nothing it needs is taken
        held.pop().close()                                   # a place freed is a place for the dealer's page
        deadline = time.monotonic() + 5
        while sum(page.gate.open.values()) >= gate.MOST and time.monotonic() < deadline:
            time.sleep(0.05)
        response, body = _request(page.url + "api/state")
        assert response.status == 200 and json.loads(body)["state"] == "betting"
    finally:
        for s in held:
            s.close()
    audit = (rig.run.data_dir / "audit" / "audit.jsonl").read_text().splitlines()
    refused = [e for e in map(json.loads, audit) if e["event"] == "page.connection_refused"]
    assert len(refused) == 1 and refused[0]["remote"] == "127.0.0.1"     # a flood is one line a minute


def test_addresses_outside_page_allow_hold_a_few_connections_never_the_dealers_place(rig, monkeypatch):
    monkeypatch.setattr(gate, "MOST", 24)
    monkeypatch.setattr(gate, "OUTSIDERS", 4)
    fenced = DealerPage(rig.engine, rig.run.pins, host="127.0.0.1", port=0, allow=("127.0.0.1/32",),
                        table_id="T-TEST")
    fenced.start()
    outsiders: list[socket.socket] = []
    try:
        outsiders = [_idle(fenced.port, source="127.0.0.2") for _ in range(12)]
        assert _turned_away(outsiders) == [False] * 4 + [True] * 8
        response, body = _request(fenced.url + "api/state")           # the dealer's page is served
        assert response.status == 200 and json.loads(body)["table"] == rig.snap["table"]
    finally:
        for s in outsiders:
            s.close()
        fenced.stop()


def test_one_address_holds_at_most_its_share_the_others_are_served(rig, monkeypatch):
    """A tablet in the pit, inside page.allow, whose browser misbehaves: it cannot take the places of
    the dealer's kiosk."""
    monkeypatch.setattr(gate, "MOST", 24)
    monkeypatch.setattr(gate, "EACH", 6)
    page = rig.run.page
    tablet = [_idle(page.port, source="127.0.0.3") for _ in range(10)]
    try:
        assert _turned_away(tablet) == [False] * 6 + [True] * 4
        kiosk = [_idle(page.port, source="127.0.0.4") for _ in range(5)]     # another address: its own share
        assert not any(_turned_away(kiosk))
        for s in kiosk:
            s.close()
        response, body = _request(page.url + "api/state")
        assert response.status == 200 and json.loads(body)["state"] == "ready"
    finally:
        for s in tablet:
            s.close()


class _Transport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.aborted = False

    def get_extra_info(self, name, default=None):
        return ("10.0.0.7", 40000) if name == "peername" else default

    def abort(self) -> None:
        self.aborted = True


def test_a_connection_nobody_can_serve_is_neither_kept_nor_counted():
    def broken() -> asyncio.Protocol:
        raise RuntimeError("the server's protocol could not be made")
    door = gate.Gate(broken, allowed=lambda address: True, log=None)
    transport = _Transport()
    with pytest.raises(RuntimeError):
        door().connection_made(transport)
    assert transport.aborted and door.open == {True: 0, False: 0}
    assert door.admit("10.0.0.7") is True      # and its place, and its address's share, are free again


def test_machines_in_the_pit_together_leave_the_table_pcs_own_places(monkeypatch):
    """Several tablets inside page.allow, each within its share, cannot fill the places the table PC's
    own kiosk (loopback) needs: the review's open question, answered at the gate."""
    monkeypatch.setattr(gate, "MOST", 24)
    monkeypatch.setattr(gate, "KEPT", 8)
    door = gate.Gate(lambda: asyncio.Protocol(), allowed=lambda address: True, log=None)
    tablets = [f"10.0.0.{n}" for n in range(1, 5)]
    taken = [door.admit(tablets[i % 4]) for i in range(16)]
    assert taken == [True] * 16
    monkeypatch.setattr(door, "_throttle", type("Quiet", (), {"due": lambda self, key: None})())
    assert door.admit("10.0.0.9") is None and door.admit("::ffff:10.0.0.1") is None     # the pit's are full
    assert [door.admit(a) for a in ("127.0.0.1", "::1", "::ffff:127.0.0.1") * 2] == [True] * 6   # the kiosk's
    door.closed(True, "10.0.0.1")
    assert door.admit("10.0.0.9") is True          # a place freed in the pit is the pit's again
