"""What the dealer sees when something is wrong, in a real browser against the simulated table:
touches the table refuses (with the reason on screen), a position's problems in its own box,
alerts with their time and round, and game recall from the page.

The players are paused: the test puts the chips on the felt itself (``rig.bet``,
``rig.sim.sensors.place``) and is the dealer on the page.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from controller.page.server import DealerPage
from controller.store.recall import recall
from tests.support.browser import VIEWPORTS, open_page, shuffled, snapshot, tap, touch, wait_state
from tests.support.rig import table

ZONE = "Asia/Kolkata"           # UTC+05:30: a local time that is not UTC, nor a whole hour from it


@pytest.fixture
def local_page(browser):
    """A tab whose browser keeps another time zone than the table's UTC journal."""
    context = browser.new_context(viewport=VIEWPORTS["tablet"], timezone_id=ZONE)
    tab = context.new_page()
    yield tab
    context.close()


def _local(iso: str) -> str:
    return datetime.fromisoformat(iso).astimezone(ZoneInfo(ZONE)).strftime("%H:%M:%S")


def _dealt(page, rig, bets: dict[int, dict[str, int]]) -> None:
    """Betting opened from the page, the chips put down, No more bets and Deal touched."""
    tap(page, "button[data-action=open_betting]")
    wait_state(page, "betting")
    rig.bet(bets)
    shuffled(page)
    tap(page, "button[data-action=no_more_bets]")
    tap(page, "button[data-action=deal]")
    wait_state(page, "decisions")


def test_a_play_touched_without_chips_is_refused_with_the_reason_on_screen(tmp_path, page):
    with table(tmp_path, "sheet-002", page=True, seed=3) as rig:
        open_page(page, rig)
        # a touch the table does not offer now looks disabled and says why
        expect(page.locator("button[data-action=deal]")).to_have_attribute("aria-disabled", "true")
        touch(page, "button[data-action=deal]")
        expect(page.locator("#toast")).to_have_text("Not now: no round is open")
        _dealt(page, rig, {1: {"ante": 500}, 2: {"ante": 1000}})
        # no Play chips: the Play button looks disabled; touched, it is posted and the table says why
        play = page.locator("#pos-2 button[data-pos-action=play]")
        expect(play).to_have_attribute("aria-disabled", "true")
        touch(page, "#pos-2 button[data-pos-action=play]")
        expect(page.locator("#toast")).to_have_text("position 2 has no Play chips on the felt: a Play is $10.00 on "
                                                    "the Play spot, equal to the Ante")
        assert snapshot(page)["positions"][1]["decision"] is None and not rig.records("decision")
        # Play chips of the wrong amount: the position's problem in its box, in red; no fold either
        rig.sim.sensors.place(2, "play", 500)
        problem = "Position 2: the Play must equal the Ante ($10.00), not $5.00"
        expect(page.locator("#pos-2 .problems")).to_have_text(problem)
        expect(page.locator("#pos-2 .problems")).to_have_css("background-color", "rgb(229, 72, 77)")
        expect(page.locator("#pos-2 .spots")).to_contain_text("Play chips$5.00")
        expect(page.locator("#pos-2 button[data-pos-action=fold]")).to_have_attribute("aria-disabled", "true")
        touch(page, "#pos-2 button[data-pos-action=fold]")
        expect(page.locator("#toast")).to_have_text("position 2 has chips on the Play spot: take them back to fold")
        # a footer action out of its state, and a supervisor's choice out of its state, say why
        touch(page, "button[data-action=open_betting]")
        expect(page.locator("#toast")).to_have_text("Not now: the players are deciding")
        tap(page, "#supervisor-menu")
        expect(page.locator("[data-sup=reset_meters]")).to_have_attribute("aria-disabled", "true")
        touch(page, "[data-sup=reset_meters]")
        expect(page.locator("#sup-error")).to_have_text("Not now: the players are deciding")
        expect(page.locator("#sup-fields")).to_be_hidden()
        expect(page.locator("[data-sup=void_round]")).to_have_attribute("aria-disabled", "false")
        page.locator("#sup-dialog .cancel").click()
        # the right chips make the Play
        rig.sim.sensors.place(2, "play", 1000)
        expect(page.locator("#pos-2 .decision")).to_have_text("Plays")
        assert rig.records("decision")[-1].data == {"position": 2, "play": True, "by": "sensor"}


def test_a_reading_for_a_position_the_table_does_not_have_is_a_device_fault_with_its_time(tmp_path, local_page):
    page = local_page
    with table(tmp_path, "sheet-004", page=True, seed=5) as rig:
        open_page(page, rig)
        tap(page, "button[data-action=open_betting]")
        wait_state(page, "betting")
        rig.sim.sensors.place(7, "ante", 500)
        snap = rig.wait(lambda s: any(a["kind"] == "device_fault" for a in s["alerts"]), what="the fault")
        fault = next(a for a in snap["alerts"] if a["kind"] == "device_fault")
        assert fault["position"] is None and fault["round"] == snap["round"]
        item = page.locator("#alerts li", has_text=fault["message"])
        expect(item).to_have_count(1)
        expect(item.locator(".kind")).to_have_text(f"{_local(fault['at'])} · round {fault['round']} · device fault")
        expect(page.locator(".pos")).to_have_count(6)                  # no box for position 7
        expect(page.locator("#pos-7")).to_have_count(0)
        assert all(not p["wagers"] and "ante" not in p["felt"] for p in snapshot(page)["positions"])
        # an alert of the table's own, between rounds, says so in place of a round
        rig.act("void_round", role="supervisor", reason="test")
        wait_state(page, "void")
        tap(page, "button[data-action=call_supervisor]")
        expect(page.locator("#alerts li .kind").first).to_contain_text(" · table · supervisor called")


def test_past_posting_during_settlement_shows_in_that_positions_box(tmp_path, page):
    with table(tmp_path, "sheet-002", page=True, seed=6) as rig:
        open_page(page, rig)
        _dealt(page, rig, {1: {"ante": 500}, 2: {"ante": 500}, 3: {"ante": 500}})
        for position in (1, 2, 3):
            rig.play(position)
        tap(page, "button[data-action=reveal]")
        wait_state(page, "settling")
        order = snapshot(page)["settlement_order"]
        late = order[-1]                              # a position the dealer has not settled yet
        assert snapshot(page)["next_to_pay"] != late
        rig.sim.sensors.place(late, "pair_plus", 500)
        box = page.locator(f"#pos-{late} .problems li")
        expect(box).to_have_text(f"Past posting: position {late} Pair Plus placed $5.00 after No more bets; "
                                 "not accepted (no wager there this round)")
        expect(page.locator(f"#pos-{late}")).to_have_class("pos trouble")
        for other in set(order) - {late}:
            expect(page.locator(f"#pos-{other} .problems")).to_have_count(0)
        expect(page.locator("#alerts li", has_text=f"Past posting: position {late}")).to_have_count(1)
        # the settlement stands as it was journaled
        seat = next(s for s in rig.records("settlement")[0].data["seats"] if s["seat"] == late)
        assert seat["wagers"]["pair_plus"] == 0 and seat["results"]["pair_plus"] == 0


def test_the_recall_panel_lists_the_last_rounds_from_the_journal(tmp_path, page):
    with table(tmp_path, "sheet-002", page=True, seed=8) as rig:
        recall_page = DealerPage(rig.engine, rig.run.pins, host="127.0.0.1", port=0, allow=("127.0.0.0/8",),
                                 table_id="T-TEST", journal_path=rig.journal.path)
        recall_page.start()
        try:
            open_page(page, rig, recall_page.url)
            # round 1: played through, position 2 folds
            _dealt(page, rig, {1: {"ante": 500, "pair_plus": 500}, 2: {"ante": 500}})
            rig.play(1)
            tap(page, "#pos-2 button[data-pos-action=fold]")
            tap(page, "button[data-action=reveal]")
            wait_state(page, "settling")
            while (snap := snapshot(page))["state"] == "settling":
                tap(page, f"#pos-{snap['next_to_pay']} button[data-pos-action=confirm]")
                page.wait_for_function("n => window.tableSnapshot.next_to_pay !== n", arg=snap["next_to_pay"])
            wait_state(page, "complete")
            rig.clear_table()                 # paid, taken and picked up
            # round 2: in play, its cards still face down
            _dealt(page, rig, {3: {"ante": 1000}})
            tap(page, "#recall-open")
            dialog = page.locator("#recall-dialog")
            expect(dialog).to_be_visible()
            expect(dialog.locator(".recall-round")).to_have_count(2)
            expect(dialog.locator(".recall-round").first).to_have_attribute("data-round", "2")   # newest first
            current = dialog.locator("#recall-2")
            expect(current.locator("h3 .status")).to_have_text("in play (decisions)")
            expect(current.locator(".recall-dealer")).to_contain_text("hidden")
            expect(current.locator("tr[data-seat='3']")).to_contain_text("hidden")
            expect(current.locator("tr[data-seat='3']")).to_contain_text("Ante $10.00")
            # round 1, as the journal has it
            done = recall(rig.journal)[0]
            first = dialog.locator("#recall-1")
            expect(first.locator("h3 .status")).to_have_text("complete")
            expect(first.locator("h3 time")).to_have_text(
                datetime.fromisoformat(done["table"]["opened_at"]).astimezone().strftime("%Y-%m-%d %H:%M:%S"))
            expect(first.locator(".recall-dealer b")).to_have_text(done["table"]["announcement"])
            expect(first.locator(".recall-dealer .card")).to_have_count(3)
            results = {r["seat"]: r for r in done["table"]["results"]}
            for seat in done["seats"]:
                row = first.locator(f"tr[data-seat='{seat['seat']}']")
                expect(row.locator(".card")).to_have_count(3)                # folded hands too, once over
                net = results[seat["seat"]]["net"]
                expect(row.locator(".net")).to_contain_text(
                    ("+" if net > 0 else "-" if net < 0 else "") + f"${abs(net) // 100}.{abs(net) % 100:02d}")
            expect(first.locator("tr[data-seat='1']")).to_contain_text("Ante $5.00, Play $5.00, Pair Plus $5.00")
            expect(first.locator("tr[data-seat='1']")).to_contain_text("Plays")
            expect(first.locator("tr[data-seat='2']")).to_contain_text("Folds")
            expect(first.locator("tr[data-seat='2']")).to_contain_text("Ante -$5.00")
            page.locator("#recall-dialog .cancel").click()
            expect(dialog).to_be_hidden()
        finally:
            recall_page.stop()


def test_recall_finds_any_round_by_number_or_earlier_and_lays_out_the_dealers_cards_high_to_low(tmp_path, page):
    """Twelve rounds: the panel shows ten, "Earlier rounds" the two before them, a round number typed
    on the recall's keypad that one; the dealer's cards as the live page arranges them. The icon is served."""
    with table(tmp_path, "sheet-002", autoplay=True, rounds=12, seed=9, page=True) as rig:
        assert rig.run.dealer.done.wait(90)
        page.goto(rig.run.page.url)
        assert page.evaluate("fetch('/favicon.ico').then(r => [r.status, r.headers.get('content-type')])") == [
            200, "image/vnd.microsoft.icon"]
        tap(page, "#recall-open")
        dialog = page.locator("#recall-dialog")
        expect(dialog.locator(".recall-round")).to_have_count(10)
        expect(dialog.locator(".recall-round").first).to_have_attribute("data-round", "12")
        page.locator("#recall-earlier").click()
        expect(dialog.locator(".recall-round")).to_have_count(2)
        expect(dialog.locator(".recall-round").first).to_have_attribute("data-round", "2")
        expect(page.locator("#recall-earlier")).to_be_hidden()               # round 1 is the first
        ranks = "23456789TJQKA"

        def high_to_low(cards):
            return sorted(cards, key=lambda c: ranks.index(c[:-1].replace("10", "T")) * 4 + "cdhs".index(c[-1]),
                          reverse=True)
        # a round whose dealer's hand the journal holds in another order than high to low
        target = next(r["id"] for r in recall(rig.journal, last=12)
                      if r["id"] < 10 and r["dealer"].split() != high_to_low(r["dealer"].split()))
        page.locator("#recall-digits button", has_text="7").first.click()
        page.locator("#recall-digits button[data-key=back]").click()
        page.locator("#recall-digits button", has_text=str(target)).first.click()
        page.locator("#recall-digits button[data-key=show]").click()
        expect(dialog.locator(".recall-round")).to_have_count(1)
        expect(dialog.locator(f"#recall-{target}")).to_be_visible()
        dealt = recall(rig.journal, round_id=target)[0]["dealer"].split()
        shown = dialog.locator(f"#recall-{target} .recall-dealer .card").all_text_contents()
        assert [c.replace("♣", "c").replace("♦", "d").replace("♥", "h").replace("♠", "s") for c in shown] == \
            high_to_low(dealt) != dealt
        status = page.evaluate("fetch('/api/recall?round=99').then(r => r.status)")
        assert status == 404
        assert page.evaluate("fetch('/api/recall?round=x').then(r => r.status)") == 400


def test_an_alert_for_a_technician_is_said_in_the_dealers_words_and_a_missing_time_says_so(tmp_path, page):
    """The configuration-changed alert comes with digests and no time (the snapshot's, until the round
    core words it): the page says what happened and what to do, keeps the digests in its title."""
    with table(tmp_path, "sheet-002", page=True, seed=9) as rig:
        open_page(page, rig)
        raw = "The configuration changed since the last run (0123456789ab -> ba9876543210); check it before play"
        page.evaluate("m => render({...window.tableSnapshot, alerts: [{kind: 'config_changed', message: m, "
                      "at: null, round: null, position: null}]})", raw)
        item = page.locator("#alerts li").first
        expect(item).to_have_text("time not recorded · table · configuration changed"
                                  "The table's settings were changed since it last ran: call a technician to "
                                  "check them before play")
        expect(item).to_have_attribute("title", raw)
