import random
from fractions import Fraction
from itertools import combinations

import pytest

from controller.rules.hand3 import qualifies, score3
from controller.rules.parsheet import DEALER_HANDS, all_three_card_hands, dealer_outcomes, par_sheet


@pytest.fixture(scope="module")
def three():
    return all_three_card_hands()


def test_dealer_outcomes_match_direct_enumeration(three):
    """Inclusion-exclusion counts against a plain loop over every dealer hand."""
    hands, scores = three
    outcomes = dealer_outcomes(hands, scores, qualify_rank=10)
    assert (outcomes.sum(axis=1) == DEALER_HANDS).all()
    rng = random.Random(7)
    sample = rng.sample(range(len(hands)), 12) + [0, len(hands) - 1]
    for i in sample:
        player = hands[i].tolist()
        ps = score3(player)
        rest = [c for c in range(52) if c not in player]
        counts = [0, 0, 0, 0]
        for dealer in combinations(rest, 3):
            ds = score3(dealer)
            if not qualifies(ds):
                counts[0] += 1
            else:
                counts[1 if ps > ds else 2 if ps == ds else 3] += 1
        assert outcomes[i].tolist() == counts


def test_published_figures_for_the_standard_game(presets):
    """Sheet 002 is the standard game: 3.37% house edge, 2.01% element of risk, play Q-6-4."""
    sheet = par_sheet(presets["sheet-002"])
    ap = sheet["ante_play"]
    assert ap["strategy"]["weakest_played"]["ranks"] == "Q-6-4"
    assert ap["strategy"]["play_every_hand_at_least_as_strong"]
    assert ap["strategy"]["play_hands"] == 14900
    assert round(ap["house_edge_per_ante"]["decimal"], 4) == 0.0337
    assert round(ap["element_of_risk"]["decimal"], 4) == 0.0201
    assert Fraction(sheet["pair_plus"]["house_edge"]["fraction"]) == Fraction(402, 5525)   # 7.28%
    outcome = ap["outcome_counts"]
    assert sum(v for k, v in outcome.items() if k != "of") == outcome["of"] == 22100 * 18424


def test_pair_plus_return_by_hand_counts(presets):
    """Pair Plus from the category counts directly, for each sheet's pay table."""
    counts = {"straight_flush": 48, "three_of_a_kind": 52, "straight": 720, "flush": 1096, "pair": 3744}
    for p in presets.values():
        won = sum(counts[h.key] * odds for h, odds in p.pair_plus.items())
        expected = Fraction(won - 16440, 22100)
        assert Fraction(par_sheet(p)["pair_plus"]["return"]["fraction"]) == expected


def test_strategy_is_derived_not_assumed(presets):
    """A richer Ante Bonus on every hand makes folding never worth it: the strategy must change."""
    from dataclasses import replace

    from controller.rules.hand3 import Hand3
    generous = replace(presets["sheet-002"], ante_bonus={h: 1 for h in Hand3})
    ap = par_sheet(generous)["ante_play"]
    assert ap["strategy"]["fold_hands"] == 0


def test_super6_with_jackpots(p004):
    sheet = par_sheet(p004, {"mega": 25_000_000, "major": 5_000_000, "minor": 1_000_000})
    row = sheet["super6"]["by_bet"]["1000"]
    hits = {k: Fraction(v["fraction"]) for k, v in row["jackpot_hit_probability"].items()}
    assert hits == {"mega": Fraction(1, 20358520), "major": Fraction(3, 20358520),
                    "minor": Fraction(184, 20358520)}
    base = Fraction(row["return_excluding_jackpots"]["fraction"])
    jackpot_part = (hits["mega"] * 25_000_000 + hits["major"] * 5_000_000 + hits["minor"] * 1_000_000) / 1000
    assert Fraction(row["return"]["fraction"]) == base + jackpot_part
    assert sheet["six_card_bonus"]["of"] == 20358520
