"""A finished round replayed from the recall dialog, in Chromium: the slider and the step buttons move
through the journal's facts, each step shows the felt and cards as they stood with its words and
time, the last step the independent check; a round in play offers no replay (its cards are hidden)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from playwright.sync_api import expect

from controller.store.journal import Journal
from controller.store.replay import replay
from tests.support.browser import tap
from tests.support.rig import table


def test_a_round_replays_step_by_step_from_recall(tmp_path, page):
    with table(tmp_path, "sheet-004", page=True, autoplay=True, rounds=2, seed=3) as rig:
        assert rig.run.dealer.done.wait(60)
        journal = Journal.read_only(rig.journal.path, keyed=False)
        try:
            story = replay(journal, 1)
        finally:
            journal.close()
        steps = story["steps"]
        page.set_viewport_size({"width": 1024, "height": 768})
        page.goto(rig.run.page.url)
        tap(page, "#recall-open")
        tap(page, "#recall-1 button.replay")
        view = page.locator("#replay-view")
        expect(view).to_be_visible()
        expect(page.locator("#recall-list")).to_be_hidden()
        expect(page.locator("#replay-words")).to_have_text(steps[0]["words"])
        expect(page.locator("#replay-where")).to_have_text(f"Step 1 of {len(steps)}")
        expect(page.locator("#replay-first")).to_be_disabled()
        dealt = next(i for i, s in enumerate(steps) if s["kind"] == "hand")
        for _ in range(dealt):
            tap(page, "#replay-next")
        expect(page.locator("#replay-words")).to_have_text(steps[dealt]["words"])
        expect(page.locator("#replay-felt .card")).to_have_count(3)             # the first hand, as it stood
        tap(page, "#replay-last")
        expect(page.locator("#replay-words")).to_have_text("Round complete")
        expect(page.locator("#replay-check")).to_contain_text("every position agrees")
        expect(page.locator("#replay-next")).to_be_disabled()
        tap(page, "#replay-back")
        expect(page.locator("#replay-where")).to_have_text(f"Step {len(steps) - 1} of {len(steps)}")
        for selector in ("#replay-first", "#replay-back", "#replay-slider", "#replay-next", "#replay-last",
                         "#replay-close"):                                # nothing out of a finger's reach
            box = page.locator(selector).bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= 768 and box["x"] + box["width"] <= 1024
        tap(page, "#replay-close")
        expect(page.locator("#recall-list")).to_be_visible()


def test_the_replay_route_refuses_a_round_in_play_and_no_round(tmp_path):
    with table(tmp_path, "sheet-004", page=True) as rig:
        rig.open_and_bet({1: {"ante": 500}})
        for query, status in ((f"?round={rig.snap['round']}", 409), ("?round=77", 404), ("?round=x", 400)):
            try:
                urllib.request.urlopen(rig.run.page.url + "api/replay" + query, timeout=10)
                raise AssertionError(f"{query} answered 200")
            except urllib.error.HTTPError as err:
                assert err.code == status, (query, err.code)
                assert json.loads(err.read())["ok"] is False
