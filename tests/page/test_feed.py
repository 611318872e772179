"""The surveillance feed (GET /api/feed, docs/feed.md): a reader's token and nothing else reads it;
every fact arrives once, in order, through kills of the reader and a restart of the table; it is
bounded in readers; the documented example client is the one tested."""

from __future__ import annotations

import http.client
import json
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from controller.cli import main
from controller.page import feed as feed_module
from controller.store.journal import Journal
from controller.store.readers import READERS_FILE, FeedReaders
from tests.support import ROOT
from tests.support.rig import table

CLIENT = re.search(r"```python\n(.*?)```", (ROOT / "docs" / "feed.md").read_text(), re.S)[1]


def _journal_facts(data: Path) -> list[tuple[int, str]]:
    journal = Journal.read_only(data / "journal.sqlite", keyed=False)
    try:
        rows = journal.db.execute("SELECT chain, kind FROM records WHERE chain IS NOT NULL UNION ALL "
                                  "SELECT chain, kind FROM table_events WHERE chain IS NOT NULL ORDER BY 1").fetchall()
    finally:
        journal.close()
    return [(c, k) for c, k in rows]


def _open(url: str, headers: dict[str, str], query: str = "") -> http.client.HTTPResponse:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request("GET", "/api/feed" + query, headers=headers)
    return conn.getresponse()


def _read_facts(response: http.client.HTTPResponse, until: int) -> list[dict]:
    facts = []
    while not facts or facts[-1]["fact"] < until:
        line = response.readline()
        assert line, "the feed ended"
        if line.startswith(b"data: "):
            facts.append(json.loads(line[6:]))
    return facts


def test_readers_are_added_listed_removed_and_journaled(tmp_path, capsys):
    data = tmp_path / "data"
    with table(tmp_path, data_dir=data):
        pass                                            # a journal in the folder
    assert main(["feed", "add", "Room 2", "--data-dir", str(data)]) == 0
    token = capsys.readouterr().out.strip()
    assert len(token) == 43 and token not in (data / READERS_FILE).read_text()
    assert (data / READERS_FILE).stat().st_mode & 0o777 == 0o600
    assert FeedReaders(data / READERS_FILE).who(token) == "Room 2"
    assert main(["feed", "list", "--data-dir", str(data)]) == 0
    assert "Room 2" in capsys.readouterr().out
    assert main(["feed", "add", "bad/name", "--data-dir", str(data)]) == 2
    assert main(["feed", "remove", "Room 2", "--data-dir", str(data)]) == 0
    assert FeedReaders(data / READERS_FILE).who(token) is None
    assert main(["feed", "remove", "Room 2", "--data-dir", str(data)]) == 1
    kinds = [k for _, k in _journal_facts(data)]
    assert kinds.count("feed_reader_changed") == 2


def test_only_a_readers_token_reads_and_a_bad_resume_point_is_refused(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    token = FeedReaders(data / READERS_FILE).add("room")
    with table(tmp_path, data_dir=data, page=True) as rig:
        rig.state("ready")
        url = rig.run.page.url
        assert _open(url, {}).status == 401
        assert _open(url, {"Authorization": "Bearer " + "x" * 43}).status == 403
        assert _open(url, {"Authorization": f"Basic {token}"}).status == 403
        assert _open(url, {"Authorization": f"Bearer {token}", "Last-Event-ID": "-1"}).status == 400
        assert _open(url, {"Authorization": f"Bearer {token}"}, "?after=1e3").status == 400
        ok = _open(url, {"Authorization": f"Bearer {token}", "Last-Event-ID": "2"})
        assert ok.status == 200 and ok.getheader("Content-Type") == "text/event-stream"
        head = _journal_facts(data)[-1][0]
        facts = _read_facts(ok, head)
        assert [f["fact"] for f in facts] == list(range(3, head + 1))          # after 2: from 3, none missed
        assert all(f["table"] == "T-TEST" and f["data"] is not None for f in facts)


def test_the_readers_are_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(feed_module, "MOST", 2)
    data = tmp_path / "data"
    data.mkdir()
    token = FeedReaders(data / READERS_FILE).add("room")
    with table(tmp_path, data_dir=data, page=True) as rig:
        rig.state("ready")
        auth = {"Authorization": f"Bearer {token}"}
        first, second = _open(rig.run.page.url, auth), _open(rig.run.page.url, auth)
        assert first.status == second.status == 200
        third = _open(rig.run.page.url, auth)
        assert third.status == 503 and "the most it serves at once" in json.loads(third.read())["message"]


def _client(url: str, token: str, last: str, out: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CLIENT, url, token, last], stdout=out.open("ab"),
                            stderr=subprocess.DEVNULL)


def _last_seen(out: Path) -> str:
    text = out.read_bytes()
    lines = [line for line in text[:text.rfind(b"\n") + 1].split(b"\n") if line.strip()]    # whole lines only
    return str(json.loads(lines[-1])["fact"]) if lines else "0"


def test_a_reader_killed_ten_times_and_a_table_restart_miss_nothing_and_repeat_nothing(tmp_path):
    """The documented client, SIGKILLed ten times while the table plays (and once while the table is
    restarted on the same journal), resumed each time from the last fact it printed: every fact of
    the journal arrives exactly once, in order."""
    data = tmp_path / "data"
    data.mkdir()
    token = FeedReaders(data / READERS_FILE).add("room")
    out = tmp_path / "facts.jsonl"
    out.touch()
    alive = None                                        # a reader left running across the restart
    with socket.socket() as s:                          # one port for both runs: the reader comes back to it
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for run in range(2):                                # the table, then the same table restarted
        with table(tmp_path / f"run{run}", data_dir=data, page=True, autoplay=True, rounds=3, seed=run + 1,
                   port=port) as rig:
            for kill in range(5):
                client = alive or _client(rig.run.page.url, token, _last_seen(out), out)
                alive = None
                time.sleep(0.4)
                if run == 0 and kill == 4:
                    alive = client                      # goes on retrying while the table is down
                    break
                client.send_signal(signal.SIGKILL)
                client.wait(10)
            assert rig.run.dealer.done.wait(60), rig.snap["prompt"]
        if run == 0:
            time.sleep(1.5)                             # down: the reader retries, gets nothing twice
    with table(tmp_path / "run2", data_dir=data, page=True) as rig:
        rig.state("ready")
        head = _journal_facts(data)[-1][0]
        client = _client(rig.run.page.url, token, _last_seen(out), out)
        # up to the head at least: the table may journal more after it (a device heard after "ready"),
        # and waiting for the head itself then waited out the deadline (30 s of a loaded run)
        deadline = time.monotonic() + 30
        while int(_last_seen(out)) < head and time.monotonic() < deadline:
            time.sleep(0.1)
        client.send_signal(signal.SIGKILL)
        client.wait(10)
    received = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    assert [(f["fact"], f["kind"]) for f in received] == _journal_facts(data)[:len(received)]
    # every fact up to the head seen at the last start, none twice (the table may journal more after it)
    assert [f["fact"] for f in received] == list(range(1, len(received) + 1)) and len(received) >= head
    assert sum(1 for f in received if f["kind"] == "complete") >= 3


@pytest.mark.parametrize("header", ["Bearer", "Bearer  ", ""])
def test_a_token_that_is_not_one_is_nobody(tmp_path, header):
    readers = FeedReaders(tmp_path / READERS_FILE)
    readers.add("room")
    assert readers.who(header.partition(" ")[2]) is None


def test_a_removed_reader_is_cut_off_and_one_reader_cannot_take_every_feed(tmp_path, monkeypatch):
    monkeypatch.setattr(feed_module, "PER_READER", 2)
    data = tmp_path / "data"
    data.mkdir()
    readers = FeedReaders(data / READERS_FILE)
    token = readers.add("room")
    other = readers.add("casino system")
    with table(tmp_path, data_dir=data, page=True) as rig:
        rig.state("ready")
        url = rig.run.page.url
        first, second = (_open(url, {"Authorization": f"Bearer {token}"}) for _ in range(2))
        assert first.status == second.status == 200
        third = _open(url, {"Authorization": f"Bearer {token}"})
        assert third.status == 503 and "reader room has 2 feeds open" in json.loads(third.read())["message"]
        assert _open(url, {"Authorization": f"Bearer {other}"}).status == 200    # another reader still gets in
        readers.remove("room")
        first.fp.raw._sock.settimeout(10)
        deadline = time.monotonic() + 10
        while first.readline() and time.monotonic() < deadline:              # the stream ends on its own
            pass
        assert time.monotonic() < deadline


def test_a_reader_ahead_of_the_journal_is_told_and_odd_numbers_are_refused(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    token = FeedReaders(data / READERS_FILE).add("room")
    with table(tmp_path, data_dir=data, page=True) as rig:
        rig.state("ready")
        auth = {"Authorization": f"Bearer {token}"}
        last = _journal_facts(data)[-1][0]
        ahead = _open(rig.run.page.url, {**auth, "Last-Event-ID": str(last + 1000)})
        said = json.loads(ahead.read())
        assert ahead.status == 409 and said["last"] >= last and "rolled back" in said["message"]
        superscript_two = "\u00b2"                                     # a digit to str.isdigit, not to int()
        assert _open(rig.run.page.url, {**auth, "Last-Event-ID": superscript_two}).status == 400
