"""A table's finished round replayed on the pit's page, from the floor's records (GET /api/replay and
the page's replay dialog in Chromium): the same story as the table's own replay, and the same check."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request

from playwright.sync_api import expect

from controller.floor.pit_page import PitPage
from controller.store.journal import Journal
from controller.store.outbox import facts_after
from controller.store.pins import PinStore
from controller.store.replay import replay
from tests.floor.conftest import make_table
from tests.floor.test_forwarder import rows_of, send
from tests.support import ROOT


def _status(url: str) -> int:
    try:
        return urllib.request.urlopen(url, timeout=10).status
    except urllib.error.HTTPError as err:
        return err.code


def test_a_round_on_the_floor_replays_as_the_table_tells_it(cluster, admin, browser, tmp_path):
    t = make_table(cluster, admin, tmp_path)
    folder = t.journal.path.parent
    t.journal.close()
    t.journal.path.unlink()                              # the table's key stays: its journal is played anew
    done = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--autoplay", "--rounds", "2", "--seed",
                           "6", "--data-dir", str(folder), "--port", "0", "--log-format", "json"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    t.journal = Journal(folder / "journal.sqlite")
    send(t, rows_of(t, facts_after(t.journal, 0, 10_000)))
    own = replay(t.journal, 2)
    pit = PitPage(cluster.dsn(), PinStore(tmp_path / "pins.json"), port=0)
    url = pit.start()
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        answer = json.loads(urllib.request.urlopen(f"{url}api/replay?table={t.table_id}&round=2", timeout=10).read())
        assert answer["ok"] and answer["table"] == t.table_id
        assert [(s["fact"], s["kind"], s["words"]) for s in answer["steps"]] == \
            [(s["fact"], s["kind"], s["words"]) for s in own["steps"]]           # the table's own story
        assert answer["check"] == own["check"] and answer["check"]["settled_again"] is True
        assert _status(f"{url}api/replay?table={t.table_id}&round=9") == 404
        assert _status(f"{url}api/replay?table={t.table_id}") == 400

        page = context.new_page()
        page.goto(url)
        page.locator("#replay-open").click()
        page.locator("#replay-table").fill(t.table_id)
        page.locator("#replay-round").fill("2")
        page.locator("#replay-ask button[type=submit]").click()
        expect(page.locator("#replay-words")).to_have_text(own["steps"][0]["words"])
        expect(page.locator("#replay-where")).to_have_text(f"{t.table_id} round 2: step 1 of {len(own['steps'])}")
        page.locator("#replay-last").click()
        expect(page.locator("#replay-check")).to_have_text(
            "Settled again from the cards and wagers: every position agrees")
        expect(page.locator("#replay-felt tbody tr")).not_to_have_count(0)
    finally:
        context.close()
        pit.stop()
        t.journal.close()
