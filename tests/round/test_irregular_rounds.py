"""Irregular rounds as a busy shift plays them, through the engine with fake ports (tests/round/bench.py):
touches out of turn, chips moved after the decision, devices lost and back, a fault outliving its round.
Each says what the dealer is told and what the journal holds."""

from __future__ import annotations

from tests.round.test_round_core import BETS, HANDS, ready


def test_a_second_confirm_or_a_position_with_nothing_to_settle_is_refused_in_its_own_words(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet(BETS)
    bench.deal(*HANDS)
    bench.decide({1: True, 3: False, 5: True})
    bench.done("confirm", position=5)
    # the page's touch sent twice: the position is settled, not "to be settled first"
    assert bench.act("confirm", position=5).message == "position 5 is already settled; settle position 1 next"
    # the fold was collected with its cards before the reveal
    assert bench.act("confirm", position=3).message == "position 3 is already settled; settle position 1 next"
    assert bench.act("confirm", position=2).message == "position 2 has nothing to settle; settle position 1 next"
    assert [r.data["position"] for r in bench.records("paid")] == [3, 5]      # nothing paid twice
    bench.done("confirm", position=1)
    assert bench.state == "complete"
