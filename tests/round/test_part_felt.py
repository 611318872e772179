"""The felt alone: what lies on the spots, what may be accepted, lamps and locks told only as they
change, past posting once the spots are locked, and Play chips that are a decision. A clerk on a
journal in memory and a Super 6 that is open or closed as the test says; no engine."""

from __future__ import annotations

from controller.round.felt import Felt
from controller.round.locks import lock_commands
from controller.round.ports import Lamp, LockSpots, SetLamp
from controller.rules.spots import Spot
from drivers.events import SpotChanged, SpotFault
from tests.round.parts import Desk, table_config

CONFIG = table_config()
WAGERS = {"1": {"ante": 500, "pair_plus": 500, "six_card_bonus": 0, "super6": 0},
          "3": {"ante": 1000, "pair_plus": 0, "six_card_bonus": 0, "super6": 0}}


def felt_at(state: str, *, super6_closed: str | None = None, wagers: bool = False) -> tuple[Desk, Felt]:
    desk = Desk(state, round_id=1)
    if wagers:
        desk.clerk.fact("wagers", positions=WAGERS, linked=[])
    return desk, Felt(desk.clerk, desk.holds, CONFIG, CONFIG.preset, super6_closed=lambda: super6_closed)


def chips(position: int, spot: str, value: int | None, change: str = "placed") -> SpotChanged:
    return SpotChanged("sensors", position, spot, change, value, None)


def test_a_stack_over_the_limit_flashes_its_lamp_once_and_is_no_wager_until_it_is_within():
    desk, felt = felt_at("betting")
    felt.on_spot(chips(2, "ante", 5000))
    felt.on_spot(chips(2, "pair_plus", 500))
    assert felt.problems() == {(2, "ante"): "$50.00 is above the $10.00 maximum"}
    assert desk.commands() == [SetLamp(2, Spot.ANTE, Lamp.FLASH)]
    felt.show_flags()                                   # nothing changed: nothing told again
    assert desk.commands() == []
    felt.on_spot(chips(2, "ante", 1000, "changed"))
    assert felt.problems() == {} and desk.commands() == [SetLamp(2, Spot.ANTE, Lamp.OFF)]
    assert felt.accepted_wagers() == {"2": {"ante": 1000, "pair_plus": 500, "six_card_bonus": 0, "super6": 0}}


def test_super6_closed_locks_its_spots_for_betting_and_refuses_its_stacks():
    desk, felt = felt_at("betting", super6_closed="the sign is not showing the posted values")
    felt.lock_for_betting()
    assert desk.commands() == [LockSpots(False), LockSpots(True, None, (Spot.SUPER6,))]
    felt.on_spot(chips(4, "super6", 500))
    assert felt.problems() == {(4, "super6"): "Super 6 closed: the sign is not showing the posted values"}


def test_locks_are_told_only_as_they_change_and_all_again_after_the_sensors_reconnect():
    desk, felt = felt_at("dealing", wagers=True)
    felt.lock_all()
    felt.lock_all()
    assert desk.commands() == [LockSpots(True)]
    felt.lock_for_decisions()                           # the Play spots of positions with an Ante
    assert desk.commands() == [LockSpots(False, 1, (Spot.PLAY,)), LockSpots(False, 3, (Spot.PLAY,))]
    felt.set_lamp(3, Spot.PLAY, Lamp.FLASH)
    desk.commands()
    felt.sensors_back()                                 # a Hello cleared their locks and lamps
    assert desk.commands() == [LockSpots(True), LockSpots(False, 1, (Spot.PLAY,)), LockSpots(False, 3, (Spot.PLAY,)),
                               SetLamp(3, Spot.PLAY, Lamp.FLASH)]


def test_the_fewest_lock_commands_take_the_sensors_from_one_picture_to_the_next():
    every = frozenset((p, s.value) for p in range(1, 7) for s in Spot)
    super6 = frozenset((p, Spot.SUPER6.value) for p in range(1, 7))
    assert lock_commands(frozenset(), every, 6) == [LockSpots(True)]
    assert lock_commands(every, super6, 6) == [LockSpots(False, None, tuple(s for s in Spot if s != Spot.SUPER6))]
    assert lock_commands(super6, super6, 6) == []


def test_once_the_spots_are_locked_a_change_is_past_posting_and_a_stack_gone_is_timed_first():
    desk, felt = felt_at("closed", wagers=True)
    felt.on_spot(chips(1, "super6", 500))
    assert desk.alerts("past_posting") == ["Past posting: position 1 Super 6 placed $5.00 after No more bets; "
                                           "not accepted (no wager there this round)"]
    felt.on_spot(chips(3, "ante", None, "removed"))
    assert desk.timers == {"removed 3 ante": 0.5}       # a blinking sensor is not an offence
    felt.on_stack_gone(3, "ante")
    assert desk.alerts("past_posting")[-1] == ("Past posting: position 3 Ante removed after No more bets; "
                                               "not accepted (the wager stays $10.00)")


def test_a_supervisors_reading_stands_in_for_an_unreadable_stack_while_betting():
    desk, felt = felt_at("betting")
    felt.on_spot_fault(SpotFault("sensors", 2, "ante", "a dirty lens"))
    assert felt.problems()[(2, "ante")].startswith("the sensor reports a dirty lens")
    desk.clerk.fact("override", position=2, spot="ante", amount=500, by="supervisor", reason="read by eye")
    assert felt.readings() == {(2, "ante"): 500} and felt.problems() == {}
    assert felt.sensed() == {}                          # the sensors' own picture is unchanged


def test_play_chips_equal_to_the_ante_are_the_positions_play_and_any_other_amount_is_flagged():
    desk, felt = felt_at("decisions", wagers=True)
    felt.on_spot(chips(3, "play", 500))
    assert desk.fired == [] and desk.alerts("play_amount") == [
        "Position 3: the Play must equal the Ante ($10.00), not $5.00"]
    felt.on_spot(chips(3, "play", 1000, "changed"))
    assert desk.fired == [("play", {"position": 3, "by": "sensor"})]
