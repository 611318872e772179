"""The surveillance feed on a floor (GET /api/feed?table=ID on the pit's page, docs/feed.md): one
table's facts as the floor holds them, each with the number it has in the table's journal, resumed
with Last-Event-ID, woken by the floor's notices; a reader's token and nothing else reads it."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

from controller.floor.pit_page import PitPage
from controller.store.outbox import facts_after
from controller.store.pins import PinStore
from controller.store.readers import FeedReaders
from tests.floor.conftest import play
from tests.floor.test_forwarder import rows_of, send


def _open(url: str, query: str, headers: dict[str, str]) -> http.client.HTTPResponse:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request("GET", "/api/feed" + query, headers=headers)
    return conn.getresponse()


def _facts(response: http.client.HTTPResponse, until: int) -> list[dict]:
    got: list[dict] = []
    while not got or got[-1]["fact"] < until:
        line = response.readline()
        assert line, "the feed ended"
        if line.startswith(b"data: "):
            got.append(json.loads(line[6:]))
    return got


def _journal(table) -> list[tuple[int, str, str]]:
    rows = table.journal.db.execute(
        "SELECT chain, kind, digest FROM records WHERE chain IS NOT NULL UNION ALL "
        "SELECT chain, kind, digest FROM table_events WHERE chain IS NOT NULL ORDER BY 1").fetchall()
    return [tuple(r) for r in rows]


def test_a_tables_facts_from_the_floor_resume_and_arrive_as_they_come(cluster, table, tmp_path):
    play(table.journal, 2)
    send(table, rows_of(table, facts_after(table.journal, 0, 1000)))
    token = FeedReaders(tmp_path / "readers.json").add("surveillance")
    pit = PitPage(cluster.dsn(), PinStore(tmp_path / "pins.json"), port=0,
                  readers=FeedReaders(tmp_path / "readers.json"))
    url = pit.start()
    try:
        auth = {"Authorization": f"Bearer {token}"}
        assert _open(url, f"?table={table.table_id}", {}).status == 401
        assert _open(url, "?table=NO-SUCH", auth).status == 404
        assert _open(url, "?table=NO-SUCH", {}).status == 401            # the token first: no table named without it
        assert _open(url, "", auth).status == 400
        journal = _journal(table)
        head = journal[-1][0]
        stream = _open(url, f"?table={table.table_id}", auth)
        assert stream.status == 200
        got = _facts(stream, head)
        assert [(f["fact"], f["kind"], f["digest"]) for f in got] == journal       # the table's own numbers
        assert all(f["table"] == table.table_id for f in got)
        # the table plays on and forwards: the open stream is woken by the floor's notice
        play(table.journal, 1)
        send(table, rows_of(table, facts_after(table.journal, head, 1000)))
        journal = _journal(table)
        more = _facts(stream, journal[-1][0])
        assert [(f["fact"], f["kind"]) for f in more] == [(c, k) for c, k, _ in journal if c > head]
        # a reader that reconnects with the last number it saw gets what follows, once
        middle = journal[len(journal) // 2][0]
        again = _facts(_open(url, f"?table={table.table_id}", {**auth, "Last-Event-ID": str(middle)}),
                       journal[-1][0])
        assert [f["fact"] for f in again] == [c for c, _, _ in journal if c > middle]
    finally:
        pit.stop()
    # the stop ended the open feeds (each said so) instead of leaving them to aiohttp's shutdown timeout:
    # destroyed pending, a feed's last line was logged when it was collected, into a later test's output
    assert pit.feed.listeners == {}
