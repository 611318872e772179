"""The clerk and the holds alone: facts journaled before they are applied, alerts said once, commands
taken once, a hold said once and only where it stops a round. A journal in memory; no engine."""

from __future__ import annotations

from controller.round.ports import CheckDeck, DealHand
from tests.round.parts import Desk


def test_a_fact_is_journaled_then_applied_to_the_open_round():
    desk = Desk("betting", round_id=7)
    at = desk.clerk.fact("override", position=2, spot="ante", amount=500, by="supervisor Ana", reason="unread")
    assert [(r.round_id, r.kind, r.data["amount"]) for r in desk.journal.written] == [(7, "override", 500)]
    assert desk.clerk.open_round.overrides == {(2, "ante"): 500}
    assert desk.clerk.open_round.times["override"] == at


def test_commands_are_collected_in_order_and_taken_once():
    desk = Desk()
    desk.clerk.emit(CheckDeck())
    desk.clerk.emit(DealHand(1))
    assert desk.commands() == [CheckDeck(), DealHand(1)]
    assert desk.commands() == []


def test_a_device_alert_still_standing_is_not_said_again_but_what_people_do_always_is():
    desk = Desk("betting", round_id=1)
    for _ in range(3):
        desk.clerk.alert("past_posting", "Past posting: position 2 Ante", 2)
        desk.clerk.alert("supervisor_called", "Supervisor called to the table by the dealer")
    assert desk.journal.kinds() == ["alert"] * 4
    assert desk.alerts("past_posting") == ["Past posting: position 2 Ante"]
    assert len(desk.alerts("supervisor_called")) == 3


def test_between_rounds_an_alert_is_a_table_event_and_the_rounds_alerts_are_no_longer_shown():
    desk = Desk("betting", round_id=1)
    desk.clerk.alert("sensor_fault", "Position 1 Ante: the sensor reports dirt", 1)
    desk.clerk.fact("void", reason="misdeal declared", by="dealer")
    desk.clerk.alert("device_offline", "The sign is not answering")
    assert desk.journal.table_events == [("alert", {"kind": "device_offline", "message": "The sign is not answering",
                                                    "position": None})]
    assert desk.alerts() == ["The sign is not answering"]


def test_a_refusal_is_false_with_the_dealers_words():
    desk = Desk()
    assert desk.clerk.refuse("no wagers on the table") is False
    assert desk.clerk.refusal == "no wagers on the table"


def test_a_hold_is_said_once_and_only_while_the_round_can_be_held():
    desk = Desk("betting", round_id=1)
    desk.holds.set("shoe-door", "Shoe door open: close the shoe's door")      # betting is not held: no alert
    assert "shoe-door" in desk.holds and desk.alerts("hold") == []
    desk.clerk.state = "dealing"
    desk.holds.set("shoe-jam", "Shoe jammed: clear it")
    desk.holds.set("shoe-jam", "Shoe jammed: clear it")
    assert desk.alerts("hold") == ["Round held: Shoe jammed: clear it"]
    assert desk.holds.reasons() == ["Shoe door open: close the shoe's door", "Shoe jammed: clear it"]


def test_the_shoes_first_problem_is_its_jam_then_its_door_then_its_link_then_its_shuffle():
    desk = Desk()
    assert desk.holds.shoe_problem() is None and not desk.holds
    desk.holds.set("shoe-shuffle", "late shuffle")
    desk.holds.set("shoe-door", "door open")
    desk.holds.set("shoe-jam", "jammed")
    assert desk.holds.shoe_problem() == "jammed"
    desk.holds.set("shoe-jam", None)
    assert desk.holds.shoe_problem() == "door open"
    desk.holds.set("shoe-door", None)
    desk.holds.set("shoe-shuffle", None)
    assert not desk.holds and desk.holds.shoe_problem() is None
