"""Recovery and the records alone. Recovery re-checks the round the journal left open before it goes
on; the records make each transition's data from what the parts say. A journal in memory; no
engine, no machine (a transition is a plain object with the names ``transitions`` gives it)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from controller.round.felt import Felt
from controller.round.pairs import PositionPairs
from controller.round.records import Records
from controller.round.recovery import Recovery
from controller.rules.cards import parse_cards
from tests.round.parts import Desk, table_config

CONFIG = table_config()


def felt(desk: Desk) -> Felt:
    return Felt(desk.clerk, desk.holds, CONFIG, CONFIG.preset, super6_closed=lambda: None)


def journal_left_open(desk: Desk, *hands: str, preset: str = "sheet-004") -> None:
    write = desk.journal.append
    write(1, "opened", {"preset": preset, "deck": 1, "jackpots": {}})
    write(1, "shuffled", {"deck": 1, "count": 52})
    write(1, "wagers", {"positions": {"1": {"ante": 500}}, "linked": []})
    for number, text in enumerate(hands, 1):
        write(1, "hand", {"hand_no": number, "target": 1 if number == 1 else 0,
                          "cards": [[c, 1] for c in parse_cards(text)]})


def test_an_open_round_that_replays_cleanly_is_found_and_becomes_the_open_round():
    desk = Desk("starting")
    journal_left_open(desk, "As Kd 3c")
    recovery = Recovery(desk.clerk, CONFIG)
    recovery.load(False, felt(desk))
    assert recovery.found() is desk.clerk.round and desk.clerk.round.hands_received == 1
    assert recovery.problem() is None
    recovery.end()
    assert recovery.found() is None


def test_a_replayed_misdeal_or_another_preset_is_what_does_not_hold():
    desk = Desk("starting")
    journal_left_open(desk, "As Kd 3c", "As 2d 9c")
    recovery = Recovery(desk.clerk, CONFIG)
    recovery.load(False, felt(desk))
    assert recovery.problem() == "on recovery: As was read twice (the dealer's hand)"
    other = Desk("starting")
    journal_left_open(other, preset="sheet-000")
    elsewhere = Recovery(other.clerk, CONFIG)
    elsewhere.load(False, felt(other))
    assert elsewhere.problem() == "on recovery: the round opened under preset sheet-000, not sheet-004"


def transition(trigger: str, source: str, dest: str, **kwargs: Any) -> Any:
    return SimpleNamespace(transition=SimpleNamespace(source=source, dest=dest), event=SimpleNamespace(name=trigger),
                           kwargs=kwargs)


def records(desk: Desk, pairs: PositionPairs | None = None) -> Records:
    jackpots = SimpleNamespace(opening=lambda: {"jackpots": {"mega": 1}}, claim_hits=lambda: None)
    return Records(desk.clerk, CONFIG, felt=felt(desk), jackpots=jackpots,   # type: ignore[arg-type]
                   pairs=pairs or PositionPairs(6, allowed=True), recovery=Recovery(desk.clerk, CONFIG),
                   shift=SimpleNamespace(opening=lambda: {"dealer": "Ana"}))  # type: ignore[arg-type]


def test_opening_betting_journals_the_new_round_then_the_state_it_enters():
    desk = Desk("ready")
    desk.journal.open_round = lambda preset: 8                # the journal's next round number
    records(desk).record_state(transition("open_betting", "ready", "betting"))
    assert [(r.round_id, r.kind) for r in desk.journal.written] == [(8, "opened"), (8, "state")]
    opened = desk.journal.written[0].data
    assert opened["preset"] == "sheet-004" and opened["jackpots"] == {"mega": 1} and opened["deck"] == 1
    assert opened["dealer"] == "Ana"                          # who deals it (controller/round/shift.py)
    assert desk.clerk.open_round.id == 8


def test_no_more_bets_journals_the_wagers_as_they_lie_with_the_linked_positions():
    desk = Desk("betting", round_id=1)
    pairs = PositionPairs(6, allowed=True)
    pairs.link(1, 2)
    made = records(desk, pairs)
    made.record_state(transition("no_more_bets", "betting", "closed"))
    wagers, state = desk.journal.written
    assert wagers.kind == "wagers" and wagers.data == {"positions": {}, "linked": [[1, 2]], "felt": []}
    assert state.data == {"state": "closed"}


def test_a_supervisors_void_says_who_and_why_to_the_dealer():
    desk = Desk("betting", round_id=1)
    records(desk).record_state(transition("void_round", "betting", "void", by="supervisor Ana", reason="a fight"))
    alert, void, state = desk.journal.written
    assert alert.data["message"] == "Round voided by the supervisor Ana: a fight. Return all wagers."
    assert (void.data, state.data) == ({"reason": "a fight", "by": "supervisor Ana"}, {"state": "void"})

