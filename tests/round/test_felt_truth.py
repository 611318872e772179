"""The felt is the truth (issue 15): every touch and reading reconciled with the chips.

Through the engine with fake ports (tests/round/bench.py): a Play is chips, not a touch; a
position the table does not have is a device fault; a change after "No more bets" is past
posting in every state; an override is checked when it is made; a flapping sensor is one alert.
"""

from __future__ import annotations

from tests.round.bench import Bench

HANDS = ("As Ad 3c", "2h 7d 9s", "Ks 9c 4d")       # positions 2 and 4, then the dealer


def decisions(tmp_path, bets=None) -> Bench:
    bench = Bench(tmp_path)
    bench.devices_up()
    bench.open_and_bet(bets or {2: {"ante": 500, "pair_plus": 500}, 4: {"ante": 1000}})
    bench.deal(*HANDS)
    assert bench.state == "decisions"
    return bench


def alerts(bench: Bench, kind: str) -> list[tuple[int | None, str]]:
    return [(a["position"], a["message"]) for a in bench.snap["alerts"] if a["kind"] == kind]


def test_a_play_touch_without_play_chips_is_refused_and_records_nothing(tmp_path):
    bench = decisions(tmp_path)
    verdict = bench.act("play", position=2)
    assert not verdict.ok
    assert verdict.message == ("position 2 has no Play chips on the felt: a Play is $5.00 on the Play spot, "
                               "equal to the Ante")
    assert bench.records("decision") == [] and bench.state == "decisions"


def test_a_play_touch_with_the_wrong_amount_is_refused_and_the_right_amount_plays(tmp_path):
    bench = decisions(tmp_path)
    bench.place(4, "play", 2000)                     # the sensor sees $20 against a $10 Ante
    assert alerts(bench, "play_amount") == [(4, "Position 4: the Play must equal the Ante ($10.00), not $20.00")]
    verdict = bench.act("play", position=4)
    assert not verdict.ok and verdict.message == "position 4: the Play must equal the Ante ($10.00), not $20.00"
    assert bench.snap["positions"][3]["problems"] == ["Position 4: the Play must equal the Ante ($10.00), not $20.00"]
    bench.place(4, "play", 1000)                     # the player corrects it: the chips are the Play
    assert bench.records("decision")[-1].data == {"position": 4, "play": True, "by": "sensor"}


def test_unreadable_play_chips_need_a_supervisors_reading_then_the_dealers_touch(tmp_path):
    bench = decisions(tmp_path)
    bench.place(2, "play", None)                     # chips seen, value unreadable
    verdict = bench.act("play", position=2)
    assert not verdict.ok and "the sensor cannot read the Play chips; a supervisor reads them" in verdict.message
    refused = bench.act("override_wager", role="supervisor", who="supervisor Ana", position=2, spot="play",
                        amount=1000, reason="unreadable chips")
    assert not refused.ok and refused.message == "position 2: the Play must equal the Ante ($5.00), not $10.00"
    read = bench.act("override_wager", role="supervisor", who="supervisor Ana", position=2,
                     spot="play", amount=500, reason="unreadable chips")
    assert read.ok, read.message
    override = bench.records("override")[-1].data
    assert override == {"position": 2, "spot": "play", "amount": 500, "by": "supervisor Ana",
                        "reason": "unreadable chips"}
    bench.done("play", position=2)
    assert bench.records("decision")[-1].data == {"position": 2, "play": True, "by": "dealer"}


def test_a_fold_with_chips_on_the_play_spot_is_refused(tmp_path):
    bench = decisions(tmp_path)
    bench.place(4, "play", 500)                      # the wrong amount: no Play, and not a fold either
    verdict = bench.act("fold", position=4)
    assert not verdict.ok and verdict.message == "position 4 has chips on the Play spot: take them back to fold"
    bench.remove(4, "play")
    bench.done("fold", position=4)


def test_a_position_the_table_does_not_have_is_a_device_fault_never_a_wager(tmp_path):
    bench = Bench(tmp_path)
    bench.devices_up()
    bench.done("open_betting")
    bench.shuffled()
    for position in (0, 7, 200):
        bench.place(position, "ante", 1000)
    assert [p for p, _ in alerts(bench, "device_fault")] == [None, None, None]
    assert "position 7, which this table does not have (positions 1 to 6)" in alerts(bench, "device_fault")[1][1]
    assert bench.table.felt.sensed() == {}
    verdict = bench.act("no_more_bets")
    assert not verdict.ok and verdict.message == "no wagers on the table"
    bench.place(3, "ante", 1000)
    bench.done("no_more_bets")
    assert bench.records("wagers")[0].data["positions"] == {
        "3": {"ante": 1000, "pair_plus": 0, "six_card_bonus": 0, "super6": 0}}


def test_a_spot_no_layout_has_is_a_device_fault_and_the_engine_goes_on(tmp_path):
    """The drivers refuse unknown spot codes; should one ever pass (a driver's bug), the engine's
    thread names it as a device fault instead of failing on it."""
    from drivers.events import SpotChanged, SpotFault
    bench = Bench(tmp_path)
    bench.devices_up()
    bench.done("open_betting")
    bench.shuffled()
    bench.post(SpotChanged("sensors", 2, "insurance", "placed", 1000, None), SpotFault("sensors", 3, "lucky", "dirty"))
    assert [m for p, m in alerts(bench, "device_fault")] == [
        "The bet sensors reported an unknown spot (insurance) on position 2: not a wager. Call a technician to "
        "check the sensors' set-up.",
        "The bet sensors reported an unknown spot (lucky) on position 3: not a wager. Call a technician to "
        "check the sensors' set-up."]
    assert bench.table.felt.sensed() == {} and alerts(bench, "internal_error") == []
    bench.place(2, "ante", 1000)
    bench.done("no_more_bets")
    assert bench.records("wagers")[0].data["positions"] == {
        "2": {"ante": 1000, "pair_plus": 0, "six_card_bonus": 0, "super6": 0}}


def test_chips_moved_after_the_reveal_are_past_posting_except_where_the_dealer_settles(tmp_path):
    bench = decisions(tmp_path)
    bench.play(2)
    bench.play(4)
    bench.done("reveal")
    assert bench.state == "settling" and bench.snap["next_to_pay"] == 4
    bench.place(2, "six_card_bonus", 500)            # a wager added at a position still to be settled
    bench.place(2, "ante", 1000)                     # the Ante raised
    assert [p for p, _ in alerts(bench, "past_posting")] == [2, 2]
    bench.remove(4, "ante")                          # the dealer collecting at the position being settled
    bench.later(1.0)
    bench.remove(2, "play")                          # Play chips taken before their position is settled
    bench.later(1.0)
    assert alerts(bench, "past_posting")[-1] == (
        2, "Past posting: position 2 Play removed after No more bets; not accepted (the wager stays $5.00)")
    assert len(alerts(bench, "past_posting")) == 3
    paid_before = [r.data for r in bench.records("paid")]
    bench.settle()
    assert bench.state == "complete"
    settlement = bench.records("settlement")[0].data
    nets = {s["seat"]: s["net"] for s in settlement["seats"]}
    assert [r.data["net"] for r in bench.records("paid")] == [nets[4], nets[2]] and paid_before == []


def test_an_override_past_the_limit_is_refused_when_it_is_made(tmp_path):
    bench = Bench(tmp_path)
    bench.devices_up()
    bench.open_and_bet({1: {"ante": 500}})
    verdict = bench.act("override_wager", role="supervisor", position=1, spot="ante", amount=5000, reason="x")
    assert not verdict.ok and verdict.message == "position 1 Ante: $50.00 is above the $10.00 maximum"
    assert bench.records("override") == []


def test_a_flapping_sensor_is_one_alert_not_one_record_per_blink(tmp_path):
    bench = decisions(tmp_path)
    for _ in range(200):
        bench.place(2, "pair_plus", 2500)
        bench.place(2, "pair_plus", 500)
    assert len(bench.records("alert")) == 1
    assert alerts(bench, "past_posting") == [
        (2, "Past posting: position 2 Pair Plus changed to $25.00 after No more bets; not accepted "
            "(the wager stays $5.00)")]


def test_the_procedure_shows_each_step_of_the_sheet(tmp_path):
    bench = Bench(tmp_path)
    bench.devices_up()
    bench.open_and_bet({2: {"ante": 500, "pair_plus": 500}, 4: {"ante": 1000}})
    bench.done("no_more_bets")
    assert bench.state == "closed"                   # "No more bets" stays until the dealer deals
    assert bench.snap["prompt"] == ["No more bets", "No PAIR PLUS, position 4", "Deal"]
    assert bench.ports.shoe.asked("deliver_hand") == []
    bench.done("deal")
    for hand in HANDS:
        bench.deliver(hand)
    bench.play(2)
    bench.done("fold", position=4)
    assert bench.state == "collecting"
    assert bench.snap["prompt"] == ["Collect the folded hands and their wagers: position 4",
                                    "Then reveal the dealer's hand"]
    assert bench.snap["dealer"]["cards"] is None     # not revealed before the folds are collected
    bench.done("reveal")
    positions = {p["position"]: p for p in bench.snap["positions"]}
    assert positions[2]["cards"] == "As Ad 3c" and positions[4]["cards"] is None   # the fold stays face down
    assert bench.snap["dealer"]["cards"] == "Ks 9c 4d"    # arranged from the highest card down
    assert bench.snap["next_to_pay"] == 2            # the fold was settled when it was collected
    assert bench.records("paid")[0].data == {"position": 4, "net": -1000, "by": "dealer", "folded": True}


def test_the_dealers_hand_is_arranged_high_to_low(tmp_path):
    bench = Bench(tmp_path)
    bench.devices_up()
    bench.open_and_bet({1: {"ante": 500}})
    bench.deal("2h 7d 9s", "4d Qs 10c")
    bench.play(1)
    bench.done("reveal")
    assert bench.snap["dealer"]["cards"] == "Qs 10c 4d"


def test_a_sensor_fault_on_a_spot_that_matters_holds_the_round_until_it_reads_again(tmp_path):
    from drivers.events import SpotFault
    bench = decisions(tmp_path)
    bench.post(SpotFault("sensors", 5, "ante", "blocked"))     # no wager there: alerted, no hold
    assert bench.state == "decisions"
    assert alerts(bench, "sensor_fault")[-1][0] == 5
    bench.post(SpotFault("sensors", 4, "ante", "hardware fault"))
    assert bench.state == "held"
    assert bench.snap["holds"] == ["Position 4 Ante cannot be read (hardware fault): call a technician"]
    bench.place(4, "ante", 1000)                                # the spot reads again, as it was
    assert bench.state == "decisions" and alerts(bench, "past_posting") == []


def test_a_device_refusing_a_command_is_told_in_words_not_wire_codes(tmp_path):
    from drivers.events import CommandFailed
    bench = decisions(tmp_path)
    bench.post(CommandFailed("sensors", "Lamp", "no acknowledgement after 3 attempts"))
    assert alerts(bench, "command_failed") == [
        (None, "The bet sensors are not taking the command to light a spot: no acknowledgement after 3 attempts")]


def test_collecting_a_folds_chips_is_no_past_posting_but_touching_a_played_position_is(tmp_path):
    bench = decisions(tmp_path)
    bench.play(4)
    bench.done("fold", position=2)
    assert bench.state == "collecting"
    bench.remove(2, "ante")                     # the dealer collects the fold's Ante and Pair Plus
    bench.remove(2, "pair_plus")
    bench.later(1.0)
    assert alerts(bench, "past_posting") == []
    bench.remove(4, "ante")                     # a played position's Ante: not the dealer's to take now
    bench.later(1.0)
    assert [p for p, _ in alerts(bench, "past_posting")] == [4]


def test_a_fold_whose_side_bets_stay_is_settled_without_taking_its_forfeits_twice(tmp_path):
    bench = decisions(tmp_path, {2: {"ante": 500, "pair_plus": 500, "six_card_bonus": 500}, 4: {"ante": 1000}})
    bench.play(4)
    bench.done("fold", position=2)
    assert bench.snap["prompt"][1] == ("Set the cards of position 2 aside face down: they settle the 6 Card Bonus "
                                       "and Super 6")
    bench.done("reveal")
    seat = next(p for p in bench.snap["positions"] if p["position"] == 2)["settlement"]
    assert seat["lines"][0] == "Folded: its forfeited wagers were collected with the cards"
    assert not any(line.startswith(("Take Ante", "Take Pair Plus")) for line in seat["lines"])
    # its cards were set aside, not collected: turned up now to settle the 6 Card Bonus (issue 31)
    assert seat["hand"] is None and bench.snap["positions"][1]["cards"] is not None
    assert 2 in bench.snap["settlement_order"] and 2 not in bench.table.open_round.paid


def test_a_sensor_fault_while_betting_flags_the_spot_until_it_reads_again_or_a_supervisor_reads_it(tmp_path):
    """Issue 17: what lies on a faulty spot is not known, so "No more bets" cannot take it as a wager;
    the sensor reading again, or a supervisor's reading, ends that."""
    from controller.round.ports import Lamp
    from drivers.events import SpotFault
    bench = Bench(tmp_path)
    bench.devices_up()
    bench.open_and_bet({2: {"ante": 500}, 4: {"ante": 1000}})
    bench.post(SpotFault("sensors", 4, "ante", "blocked"))
    assert alerts(bench, "sensor_fault") == [(4, "Position 4 Ante: the sensor reports blocked; the spot cannot "
                                                 "be read. Call a technician")]
    assert bench.state == "betting" and bench.snap["holds"] == []         # betting is not held
    assert (4, "ante", Lamp.FLASH) in bench.ports.sensors.asked("lamp")
    verdict = bench.act("no_more_bets")
    assert not verdict.ok and verdict.message == ("position 4 Ante: the sensor reports blocked, so the spot cannot "
                                                  "be read: call a technician, or a supervisor enters what lies there")
    bench.place(4, "ante", 1000)                     # it reads again, as it was
    assert bench.ports.sensors.asked("lamp")[-1] == (4, "ante", Lamp.OFF)
    bench.post(SpotFault("sensors", 2, "ante", "no reading"))
    assert not bench.act("no_more_bets").ok
    assert bench.act("override_wager", role="supervisor", who="supervisor Ana", position=2, spot="ante",
                     amount=500, reason="sensor blocked").ok
    bench.done("no_more_bets")
    assert bench.records("wagers")[-1].data["positions"]["2"]["ante"] == 500
