"""The device links, the position pairs and the conditions alone. The conditions ask the parts that
know; here some of those are stand-ins that answer as the test says. A clerk on a journal in
memory; no engine, no machine."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from controller.round.conditions import Conditions
from controller.round.links import DeviceLinks
from controller.round.pairs import PositionPairs
from tests.round.parts import Desk, table_config

CONFIG = table_config()
IDENTITY = {"manufacturer": "Acme", "model": "S1", "serial": "42", "firmware": "1.0", "firmware_crc": "beef"}


def test_a_device_back_online_is_journaled_with_who_answered_and_lifts_its_hold():
    desk = Desk("dealing", round_id=1)
    links = DeviceLinks(desk.clerk, desk.holds, ("shoe", "sensors", "sign"))
    assert links.required_lost() == ["shoe", "sensors"]
    links.went_offline("sensors", "no answer")
    links.hold_while_away("sensors")
    assert desk.holds.reasons() == ["Call a technician: the bet sensors are not answering"]
    links.came_online("sensors", {"identity": IDENTITY, "protocol_version": 2})
    # answering, but the round stays held until the felt is read again (a fold on the felt as it lay
    # before would refuse the Play chips put out meanwhile)
    assert links.answering("sensors")
    assert desk.holds.reasons() == ["The bet sensors are back and reading every spot (asked again until they do); "
                                    "if it lasts, call a technician"]
    assert desk.journal.table_events[-1] == ("device_identity", {"device": "sensors", **IDENTITY,
                                                                 "protocol_version": 2, "capabilities_used": []})
    # answering, but the felt is not read until their snapshot of every spot is in
    assert links.view()["sensors"] == {"online": True, "detail": "online, reading every spot", "status": "reading",
                                       "identity": desk.journal.table_events[-1][1]}
    assert links.awaiting("sensors") == "reading every spot"
    links.reported("sensors")
    assert links.awaiting("sensors") is None and not desk.holds
    assert links.view()["sensors"] == {"online": True, "detail": "online", "status": "online",
                                       "identity": desk.journal.table_events[-1][1]}


def test_a_lost_sign_never_holds_the_round_and_a_jammed_shoe_shows_as_jammed():
    desk = Desk("dealing", round_id=1)
    links = DeviceLinks(desk.clerk, desk.holds, ("shoe", "sign"))
    links.came_online("shoe", {})
    links.went_offline("sign", "no answer")
    links.hold_while_away("sign")
    assert not desk.holds and desk.alerts("device_offline")
    desk.holds.set("shoe-jam", "Shoe jammed")
    assert {role: d["status"] for role, d in links.view().items()} == {"shoe": "jammed", "sign": "offline"}


def test_two_adjacent_positions_may_be_linked_once_where_the_table_allows_it():
    pairs = PositionPairs(6, allowed=True)
    assert pairs.link_problem(2, None) == "name the two positions to link (position and other)"
    assert pairs.link_problem(2, 4) == "positions 2 and 4 are not two adjacent positions"
    assert pairs.link(3, 2) == (2, 3) and pairs.partner(2) == 3 and pairs.partner(3) == 2
    assert pairs.link_problem(3, 4) == "position 3 or 4 is already linked"
    assert pairs.as_record() == [[2, 3]]
    pairs.unlink(3)
    assert pairs.partner(2) is None
    assert PositionPairs(6, allowed=False).link_problem(1, 2).startswith("one player on two positions is not allowed")


def stand_in(**answers: Any) -> SimpleNamespace:
    """A part that answers each named question as given."""
    return SimpleNamespace(**{name: (lambda value=value: value) for name, value in answers.items()})


def conditions(desk: Desk, **parts: Any) -> Conditions:
    links = parts.pop("links", DeviceLinks(desk.clerk, desk.holds, ("shoe", "sensors", "sign")))
    given = {"felt": stand_in(wagers={}, problems={}), "dealing": stand_in(counting=False),
             "jackpots": stand_in(pending_hits=[], refer_problem=None), "recovery": stand_in(found=None, problem=None),
             "pairs": PositionPairs(6, allowed=True), "shift": stand_in(problem=None), **parts}
    return Conditions(desk.clerk, CONFIG, holds=desk.holds, links=links, **given)


def event(**kwargs: Any) -> Any:
    return SimpleNamespace(kwargs=kwargs, transition=SimpleNamespace(dest=kwargs.pop("dest", None)))


def test_a_failing_condition_leaves_the_dealers_reason():
    desk = Desk("starting")
    asked = conditions(desk)
    assert asked.devices_answering() is False and desk.clerk.refusal == "waiting for the shoe and sensors to answer"
    assert asked.has_wagers() is False and desk.clerk.refusal == "no wagers on the table"
    assert asked.positions_linkable(event(position=1, other=3)) is False
    assert desk.clerk.refusal == "positions 1 and 3 are not two adjacent positions"


def test_the_deck_is_ready_once_the_shoe_has_no_problem_shuffled_counted_and_checked_the_deck():
    desk = Desk("betting", round_id=1)
    asked = conditions(desk)
    desk.holds.set("shoe-door", "Shoe door open: close the shoe's door")
    assert not asked.deck_ready() and desk.clerk.refusal == "Shoe door open: close the shoe's door"
    desk.holds.set("shoe-door", None)
    assert not asked.deck_ready() and desk.clerk.refusal == "the shoe has not finished shuffling"
    desk.clerk.fact("shuffled", deck=1, count=51)
    assert not asked.deck_ready() and desk.clerk.refusal == "the shoe counted 51 cards after the shuffle, not 52"
    desk.clerk.fact("shuffled", deck=1, count=52)
    assert not asked.deck_ready() and desk.clerk.refusal.startswith("the shoe has not yet checked the deck")
    desk.clerk.fact("deck_check", deck=1, ok=True, count=52, missing=[], duplicates=[], foreign=[])
    assert asked.deck_ready()


def test_nothing_is_paid_while_a_jackpot_hit_waits_for_a_supervisor():
    desk = Desk("settling", round_id=1)
    hit = {"jackpot": "minor", "seat": 2}
    asked = conditions(desk, jackpots=stand_in(pending_hits=[hit], refer_problem="nothing refused"))
    assert asked.position_next_to_pay(event(position=2)) is False
    assert desk.clerk.refusal == ("Super 6 MINOR jackpot at position 2: a supervisor verifies the six cards "
                                  "before anything is paid")
    assert asked.jackpot_unverified(event()) is True
    assert asked.jackpot_refused(event()) is False and desk.clerk.refusal == "nothing refused"


def test_the_deal_is_complete_only_once_a_restarts_count_has_agreed():
    desk = Desk("dealing", round_id=1)
    desk.clerk.fact("wagers", positions={}, linked=[])        # no position: the dealer's hand alone
    desk.clerk.fact("hand", hand_no=1, target=0, cards=[[0, 1], [1, 1], [2, 1]])
    assert conditions(desk, dealing=stand_in(counting=True)).hands_complete() is False
    assert conditions(desk).hands_complete() is True
