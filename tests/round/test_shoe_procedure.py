"""The shoe's side of the procedure (docs/protocols/shoe.md): the deck check at every shuffle, a
count error as a misdeal before any card reaches a player, the shuffle's time limit, the status
asked after every reconnect, and a hand reported again after a reconnect."""

from __future__ import annotations

from controller.rules.cards import parse_cards
from drivers.events import (
    DeckChecked,
    DeviceOffline,
    DeviceOnline,
    FeltRead,
    HandDealt,
    ShoeCount,
    ShoeMiscounted,
    ShuffleDone,
    ShuffleLate,
)
from tests.round.bench import Bench


def ready(tmp_path) -> Bench:
    bench = Bench(tmp_path, "sheet-004")
    bench.devices_up()
    assert bench.state == "ready"
    return bench


def betting(tmp_path) -> Bench:
    bench = ready(tmp_path)
    bench.done("open_betting")
    bench.place(1, "ante", 500)
    return bench


def test_the_deck_is_checked_after_every_shuffle_and_nothing_is_dealt_before(tmp_path):
    bench = betting(tmp_path)
    bench.shuffled(checked=False)
    assert bench.ports.shoe.calls[-1][0] == "deck_check"
    verdict = bench.act("no_more_bets")
    assert not verdict.ok and "has not yet checked the deck" in verdict.message
    bench.post(DeckChecked("shoe", 1, 52, (), (), ()))
    assert bench.records("deck_check")[0].data == {"deck": 1, "ok": True, "count": 52, "missing": [],
                                                   "duplicates": [], "foreign": []}
    bench.done("no_more_bets")


def test_a_failed_deck_check_is_a_misdeal_before_any_card_is_dealt(tmp_path):
    bench = betting(tmp_path)
    bench.shuffled(checked=False)
    bench.post(DeckChecked("shoe", 1, 52, (12,), (), ((12, 2),)))
    assert bench.state == "void"
    assert bench.records("void")[0].data == {
        "reason": "the deck check found 52 cards, missing 5c, of another deck 5c", "by": "controller"}
    assert bench.records("alert")[-1].data["message"].startswith("Misdeal: the deck check found 52 cards")
    assert bench.ports.shoe.asked("deliver_hand") == []
    assert bench.ports.shoe.asked("shuffle")[-1] == (1,)                  # reshuffled


def test_a_shuffle_of_51_cards_is_a_misdeal_without_a_check(tmp_path):
    bench = betting(tmp_path)
    bench.shuffled(51)
    assert bench.state == "void" and "deck_check" not in [c[0] for c in bench.ports.shoe.calls]
    assert bench.records("void")[0].data["reason"] == "the shoe counted 51 cards after the shuffle, not 52"


def test_the_shoes_own_count_error_is_a_misdeal_before_and_during_the_deal(tmp_path):
    bench = betting(tmp_path)
    bench.shuffled()
    bench.post(ShoeMiscounted("shoe", "count error: 53 cards"))
    assert bench.state == "void"
    bench.done("open_betting")
    bench.shuffled()
    bench.place(1, "ante", 500)
    bench.done("no_more_bets")
    bench.done("deal")
    bench.post(ShoeMiscounted("shoe", "count error"))
    assert bench.state == "void" and bench.records("void")[0].data == {
        "reason": "the shoe reports a count error (count error)", "by": "controller"}


def test_a_shuffle_past_its_limit_alerts_and_holds_until_it_completes(tmp_path):
    bench = betting(tmp_path)
    bench.post(ShuffleLate("shoe", 1, 60.0))
    assert bench.snap["alerts"][-1]["kind"] == "shuffle_late"
    verdict = bench.act("no_more_bets")
    assert not verdict.ok and verdict.message == ("The shoe has not finished shuffling within 60 s: "
                                                  "check the shoe or call a technician")
    bench.shuffled()                                                    # late, but done: the hold lifts
    bench.done("no_more_bets")


def test_the_shoe_is_asked_for_its_status_after_every_reconnect_and_its_door_holds(tmp_path):
    bench = betting(tmp_path)
    bench.shuffled()
    bench.done("no_more_bets")
    bench.done("deal")
    asked = len(bench.ports.shoe.asked("request_status"))
    bench.post(DeviceOffline("shoe", "fake://shoe", "cable"), DeviceOnline("shoe", "fake://shoe"))
    assert len(bench.ports.shoe.asked("request_status")) == asked + 1
    bench.post(ShoeCount("shoe", 52, 1, False, door_open=True))
    assert bench.state == "held" and bench.snap["holds"] == ["Shoe door open: close the shoe's door"]
    bench.post(ShoeCount("shoe", 52, 1, True))
    assert bench.state == "dealing"


def test_a_deck_check_lost_with_the_link_is_asked_again_when_the_shoe_is_back(tmp_path):
    """Found by the soak: the check asked while the shoe went silent was never answered, and the
    round waited on "Shoe shuffling" for ever."""
    bench = betting(tmp_path)
    bench.shuffled(checked=False)
    checks = len(bench.ports.shoe.asked("deck_check"))
    bench.post(DeviceOffline("shoe", "fake://shoe", "silent"), DeviceOnline("shoe", "fake://shoe"))
    assert len(bench.ports.shoe.asked("deck_check")) == checks + 1
    assert bench.ports.shoe.asked("shuffle") == [(1,)]                 # shuffled once: not again
    bench.post(DeckChecked("shoe", 1, 52, (), (), ()))
    bench.done("no_more_bets")


def test_a_hand_reported_again_after_a_reconnect_is_not_a_second_hand(tmp_path):
    bench = betting(tmp_path)
    bench.place(2, "ante", 500)
    bench.shuffled()
    bench.done("no_more_bets")
    bench.done("deal")
    bench.post(DeviceOffline("shoe", "fake://shoe", "cable"))
    bench.post(DeviceOnline("shoe", "fake://shoe"))
    assert bench.ports.shoe.asked("deliver_hand") == [(1,), (1,)]       # asked again after the return
    hand = tuple((c, 1) for c in parse_cards("As Kd 3c"))
    bench.post(HandDealt("shoe", 1, hand))                              # the report kept by the shoe
    bench.post(HandDealt("shoe", 1, hand))                              # its answer to the second ask
    assert len(bench.records("hand")) == 1 and bench.state == "dealing"
    assert not [a for a in bench.snap["alerts"] if a["kind"] in ("dead_hand", "misdeal")]
    assert bench.ports.shoe.asked("deliver_hand")[-1] == (2,)
    bench.post(HandDealt("shoe", 1, tuple((c, 1) for c in parse_cards("2c 2d 2h"))))   # a second hand 1
    assert bench.records("hand")[-1].data["target"] == -1                # the shoe broke the rule: dead
    assert bench.snap["alerts"][-1]["kind"] == "dead_hand"


def test_the_hand_asked_for_is_taken_when_it_arrives_after_a_hold_stopped_the_deal(tmp_path):
    """Found by the 100,000-round soak: the sensors lost while dealing held the round, the hand
    already asked for arrived during the hold and was taken for a dead hand, and the shoe's
    answer to the asking again after the hold, the same cards, voided the round "read twice"
    (55 rounds). The hand is its position's; the deal goes on with the next after the hold."""
    bench = betting(tmp_path)
    bench.place(2, "ante", 500)
    bench.shuffled()
    bench.done("no_more_bets")
    bench.done("deal")
    assert bench.ports.shoe.asked("deliver_hand") == [(1,)]
    bench.post(DeviceOffline("sensors", "fake://sensors", "connection reset"))
    assert bench.state == "held"
    hand = tuple((c, 1) for c in parse_cards("As Kd 7h"))
    bench.post(HandDealt("shoe", 1, hand))                              # under way before the hold
    assert [(r.data["hand_no"], r.data["target"]) for r in bench.records("hand")] == [(1, 1)]
    assert bench.ports.shoe.asked("deliver_hand") == [(1,)]             # nothing more asked while held
    bench.post(DeviceOnline("sensors", "fake://sensors"), FeltRead("sensors"))
    assert bench.state == "dealing" and bench.ports.shoe.asked("deliver_hand")[-1] == (2,)
    bench.post(HandDealt("shoe", 1, hand))                              # the shoe's kept report again
    bench.deliver("2c 9d Jh")
    bench.deliver("Qs Qd 4c")
    assert bench.state == "decisions"
    assert [r.data["target"] for r in bench.records("hand")] == [1, 2, 0]
    assert not [a for a in bench.snap["alerts"] if a["kind"] in ("dead_hand", "misdeal")]


def test_a_bad_hand_arriving_during_a_hold_is_still_a_misdeal(tmp_path):
    bench = betting(tmp_path)
    bench.shuffled()
    bench.done("no_more_bets")
    bench.done("deal")
    bench.post(DeviceOffline("sensors", "fake://sensors", "connection reset"))
    bench.post(HandDealt("shoe", 1, tuple((c, 2) for c in parse_cards("As Kd 7h"))))   # the other deck
    assert bench.state == "void" and "is from deck 2, not the deck in play" in bench.snap["void_reason"]


def test_a_shuffle_done_in_any_state_lifts_the_shuffle_hold(tmp_path):
    bench = betting(tmp_path)
    bench.post(ShuffleLate("shoe", 1, 60.0))
    assert bench.act("void_round", role="supervisor", who="supervisor Ana", reason="shoe stuck").ok
    assert bench.state == "void" and "shoe-shuffle" in bench.table.holds
    bench.post(ShuffleDone("shoe", 1, 52))                               # the void's reshuffle, done
    assert "shoe-shuffle" not in bench.table.holds


def test_each_connects_identity_is_journaled_and_shown_to_a_technician(tmp_path):
    import json
    bench = ready(tmp_path)
    identity = {"manufacturer": "Acme", "model": "HFS-3", "serial": "SN42", "firmware_version": "1.4.2",
                "firmware_checksum": "dead", "capabilities": ["timestamps"]}
    info = {"protocol_version": 1, "identity": identity, "capabilities_used": ["timestamps"]}
    bench.post(DeviceOffline("shoe", "fake://shoe", "cable"), DeviceOnline("shoe", "fake://shoe", info))
    bench.post(DeviceOffline("shoe", "fake://shoe", "cable"),
               DeviceOnline("shoe", "fake://shoe", {**info, "identity": {**identity, "firmware_version": "1.5"}}))
    rows = [json.loads(d) for (d,) in bench.journal.db.execute(
        "SELECT data FROM table_events WHERE kind = 'device_identity' ORDER BY seq")]
    assert [r["firmware_version"] for r in rows] == ["1.4.2", "1.5"]
    assert rows[0] == {"device": "shoe", **identity, "protocol_version": 1, "capabilities_used": ["timestamps"]}
    assert bench.snap["devices"]["shoe"]["identity"]["firmware_version"] == "1.5"
    assert bench.snap["devices"]["sign"]["identity"] is None


def test_a_refused_frame_is_alerted_as_such_and_changes_nothing(tmp_path):
    from drivers.events import DeviceFault
    bench = betting(tmp_path)
    before = len(bench.records())
    bench.post(DeviceFault("shoe", "fake://shoe", "refused: bad MAC", "00 11", security=True))
    alert = bench.snap["alerts"][-1]
    assert alert["kind"] == "device_security"
    assert "sending frames that fail authentication (refused: bad MAC)" in alert["message"]
    assert [r.kind for r in bench.records()][before:] == ["alert"] and bench.state == "betting"


def test_a_hand_keeps_the_time_the_shoe_stamped_on_it(tmp_path):
    bench = betting(tmp_path)
    bench.shuffled()
    bench.done("no_more_bets")
    bench.done("deal")
    bench.post(HandDealt("shoe", 1, tuple((c, 1) for c in parse_cards("As Kd 3c")),
                         device_time="2026-11-22T03:00:00.123+00:00"))
    assert bench.records("hand")[0].data["device_time"] == "2026-11-22T03:00:00.123+00:00"


def restarted_mid_deal(folder, positions=(1,)) -> Bench:
    """A round killed just after it asked the shoe for hand 1, and the table started again on the
    same journal: recovered in dealing, waiting for the shoe's count."""
    before = betting(folder)
    before.shuffled()
    for position in positions:
        before.place(position, "ante", 500)
    before.done("no_more_bets")
    before.done("deal")
    assert before.ports.shoe.asked("deliver_hand") == [(1,)]
    before.journal.close()                                  # killed: hand 1 never reached it
    after = Bench(folder, "sheet-004")
    after.devices_up()
    assert after.state == "dealing" and after.table.dealing.counting()
    return after


def test_the_hand_asked_for_before_a_restart_is_the_rounds_next_hand_not_a_dead_one(tmp_path):
    """Found by the soak: a controller killed after asking for hand 1 restarts; the shoe reports the
    hand it had formed before the new controller's count. Taken for a dead hand, the shoe's answer
    to the hand asked again (the same cards) was a misdeal, "As was read twice"."""
    after = restarted_mid_deal(tmp_path, (1, 2))
    after.post(HandDealt("shoe", 1, tuple((c, 1) for c in parse_cards("As Kd 7h"))))
    assert [(r.data["hand_no"], r.data["target"]) for r in after.records("hand")] == [(1, 1)]
    assert not [a for a in after.snap["alerts"] if a["kind"] in ("dead_hand", "misdeal")]
    assert after.ports.shoe.asked("deliver_hand") == []     # not before the count agrees
    after.post(ShoeCount("shoe", 49, 1, True))
    assert after.ports.shoe.asked("deliver_hand") == [(2,)]
    after.deliver("2c 9d Jh")
    after.deliver("Qs Qd 4c")                               # the dealer's
    assert after.state == "decisions"
    assert [r.data["target"] for r in after.records("hand")] == [1, 2, 0]


def test_a_count_one_hand_short_after_a_restart_is_the_hand_asked_for_before_it(tmp_path):
    """The same restart with the count first: three cards short is the hand the controller before
    asked for (only one is asked at a time), asked for again and reported once; four short is a
    misdeal."""
    for short, voided in ((3, False), (4, True)):
        after = restarted_mid_deal(tmp_path / str(short))
        after.post(ShoeCount("shoe", 52 - short, 1, True))
        if voided:
            assert after.state == "void" and after.snap["void_reason"] == (
                "cards left the shoe while the controller was down (the shoe holds 48, the journal expects 52)")
            continue
        assert after.state == "dealing" and after.ports.shoe.asked("deliver_hand") == [(1,)]
        after.deliver("As Kd 7h")
        after.post(HandDealt("shoe", 1, tuple((c, 1) for c in parse_cards("As Kd 7h"))))   # the kept report too
        assert after.ports.shoe.asked("deliver_hand") == [(1,)]        # counted again first: that hand?
        after.post(ShoeCount("shoe", 49, 1, True))                     # yes: no other card left the shoe
        after.deliver("Qs Qd 4c")
        assert after.state == "decisions"
        assert [r.data["target"] for r in after.records("hand")] == [1, 0]


def test_three_cards_gone_with_no_hand_formed_before_a_restart_are_found_by_the_second_count(tmp_path):
    after = restarted_mid_deal(tmp_path)
    after.post(ShoeCount("shoe", 49, 1, True))       # three short: taken for the hand formed before
    after.deliver("As Kd 7h")                        # but the shoe formed a new hand: six gone in all
    after.post(ShoeCount("shoe", 46, 1, True))
    assert after.state == "void" and after.snap["void_reason"] == (
        "cards left the shoe while the controller was down (the shoe holds 46, the journal expects 49)")


def test_the_second_count_is_taken_before_the_deal_ends_when_the_kept_hand_was_the_last(tmp_path):
    """Review finding (session 11): killed after asking for the dealer's hand, the last; the count
    one hand short took it for the hand kept; the deal ended with that hand, before the second count
    answered, and a count is only read while dealing: three more cards gone went unseen."""
    for remaining, voided in ((43, True), (46, False)):
        before = betting(tmp_path / str(remaining))
        before.shuffled()
        before.done("no_more_bets")
        before.done("deal")
        before.deliver("As Kd 7h")
        assert before.ports.shoe.asked("deliver_hand")[-1] == (2,)   # the dealer's hand, the last
        before.journal.close()                                         # killed
        after = Bench(tmp_path / str(remaining), "sheet-004")
        after.devices_up()
        after.post(ShoeCount("shoe", 46, 1, True))      # one hand short: the dealer's hand kept
        after.deliver("2c 9d Jh")
        assert after.state == "dealing"                 # not before the count says what left the shoe
        after.post(ShoeCount("shoe", remaining, 1, True))
        if voided:                                      # a new hand formed in place of the kept one
            assert after.state == "void" and after.snap["void_reason"] == (
                "cards left the shoe while the controller was down (the shoe holds 43, the journal expects 46)")
        else:
            assert after.state == "decisions"
            assert [r.data["target"] for r in after.records("hand")] == [1, 0]


def test_the_hand_formed_before_a_restart_is_taken_while_a_hold_stops_the_deal(tmp_path):
    """Review finding: a hold before the count (the sensors away) made the kept hand a dead hand,
    and the same cards, asked for again after the hold, a misdeal "read twice"."""
    after = restarted_mid_deal(tmp_path, (1, 2))
    after.post(DeviceOffline("sensors", "fake://sensors", "cable"))
    assert after.state == "held"
    after.post(HandDealt("shoe", 1, tuple((c, 1) for c in parse_cards("As Kd 7h"))))
    assert [(r.data["hand_no"], r.data["target"]) for r in after.records("hand")] == [(1, 1)]
    assert not [a for a in after.snap["alerts"] if a["kind"] in ("dead_hand", "misdeal")]
    after.post(DeviceOnline("sensors", "fake://sensors"), FeltRead("sensors"))
    assert after.state == "dealing" and after.ports.shoe.asked("deliver_hand") == []   # the count first
    after.post(ShoeCount("shoe", 49, 1, True))
    assert after.ports.shoe.asked("deliver_hand") == [(2,)]
    after.deliver("2c 9d Jh")
    after.deliver("Qs Qd 4c")
    assert after.state == "decisions"
    assert [r.data["target"] for r in after.records("hand")] == [1, 2, 0]


def test_only_one_unasked_hand_is_taken_before_the_count(tmp_path):
    after = restarted_mid_deal(tmp_path, (1, 2))
    for hand_no, cards in ((1, "As Kd 7h"), (2, "2c 9d Jh")):     # the shoe sends two, unasked
        after.post(HandDealt("shoe", hand_no, tuple((c, 1) for c in parse_cards(cards))))
    assert [(r.data["hand_no"], r.data["target"]) for r in after.records("hand")] == [(1, 1), (2, -1)]
    assert after.snap["alerts"][-1]["kind"] == "dead_hand"


def test_a_count_lost_after_a_restart_is_asked_again_and_a_hold_before_it_waits_for_it(tmp_path):
    """Found by the soak: a restarted round held (the shoe's door) before its count resumed by
    asking for a hand, and waited on "Dealing: hand 2 of 6" with no word once the count stopped
    asking for the next one."""
    after = restarted_mid_deal(tmp_path)
    asked = len(after.ports.shoe.asked("request_status"))
    after.later(after.config.hand_timeout + 0.1)                      # the count's answer was lost
    assert after.snap["alerts"][-1]["message"] == (
        f"The shoe has not reported its count within {after.config.hand_timeout:g} s; asking again")
    assert len(after.ports.shoe.asked("request_status")) == asked + 1
    after.post(DeviceOffline("shoe", "fake://shoe", "cable"))          # a hold before the count is taken
    assert after.state == "held"
    after.post(DeviceOnline("shoe", "fake://shoe"))                    # back: resumed, and counted first
    assert after.state == "dealing" and after.table.dealing.counting()
    assert after.ports.shoe.asked("deliver_hand") == []               # no hand before the count agrees
    after.post(ShoeCount("shoe", 52, 1, True))
    assert after.ports.shoe.asked("deliver_hand") == [(1,)]
    after.deliver("As Kd 7h")
    after.deliver("Qs Qd 4c")
    assert after.state == "decisions"
