"""Exact par sheets: what a pay table returns, by enumeration, never sampling.

Owns the mathematics an operator checks before putting a pay table on a table:

- Three-card categories out of all C(52,3) = 22,100 hands, and the Pair Plus
  return.
- Ante/Play: for each of the 22,100 player hands, the dealer's 18,424 hands
  from the other 49 cards are counted by outcome (dealer does not qualify,
  player wins, tie, dealer wins). Counting uses inclusion-exclusion over the
  player's cards: dealer hands disjoint from P = all hands - hands holding
  each card of P + hands holding each pair of P's cards - P itself, with the
  per-card and per-pair counts kept as cumulative histograms over hand
  strength. The expected values of playing and of folding are compared hand
  by hand, so the strategy is derived, not assumed.
- Six cards (6 Card Bonus and Super 6): every rank multiset of six cards is
  visited once, with the exact number of suit assignments giving each
  category (a flush needs five distinct ranks in one suit), out of
  C(52,6) = 20,358,520.

Every figure is an exact ``Fraction``; decimals are shown beside them. The
tests re-derive these counts by independent brute force.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from itertools import combinations, combinations_with_replacement
from math import comb, prod
from typing import Any

import numpy as np

from controller.rules.cards import cards_text
from controller.rules.hand3 import Hand3, describe3, qualifies, score3
from controller.rules.hand6 import Hand6, Super6, rank_category, suited_category
from controller.rules.paytable import Preset, Super6Bet

HANDS3 = comb(52, 3)                 # 22,100
DEALER_HANDS = comb(49, 3)           # 18,424 per player hand
HANDS6 = comb(52, 6)                 # 20,358,520


def exact(value: Fraction) -> dict[str, str | float]:
    return {"fraction": f"{value.numerator}/{value.denominator}", "decimal": float(value)}


# --- three cards -------------------------------------------------------------

def all_three_card_hands() -> tuple[np.ndarray, np.ndarray]:
    """(cards (22100, 3), scores (22100,)) for every three-card hand."""
    hands = np.array(list(combinations(range(52), 3)), dtype=np.int64)
    scores = np.fromiter((score3(h) for h in hands.tolist()), dtype=np.int64, count=HANDS3)
    return hands, scores


def three_card_counts(scores: np.ndarray) -> dict[Hand3, int]:
    counts = Counter((scores >> 12).tolist())
    return {h: counts.get(int(h), 0) for h in sorted(Hand3, reverse=True)}


def dealer_outcomes(hands: np.ndarray, scores: np.ndarray, qualify_rank: int) -> np.ndarray:
    """For every player hand, counts of dealer hands (from the other 49 cards) by outcome.

    Returns an int64 array (22100, 4): dealer does not qualify, player wins
    against a qualifier, tie with a qualifier, qualifier wins. Rows sum to 18,424.
    """
    strengths, level = np.unique(scores, return_inverse=True)
    levels = len(strengths)
    qual = np.array([qualifies(int(s), qualify_rank) for s in scores], dtype=np.int64)
    notq = 1 - qual
    pairs = [(0, 1), (0, 2), (1, 2)]
    pair_ids = [hands[:, a] * 52 + hands[:, b] for a, b in pairs]

    # Histograms of qualifying dealer hands by strength: over all hands, over
    # hands holding a given card, and over hands holding a given pair.
    h0 = np.bincount(level, weights=qual, minlength=levels).astype(np.int64)
    h1 = np.zeros((52, levels), dtype=np.int64)
    h2 = np.zeros((52 * 52, levels), dtype=np.int64)
    for m in range(3):
        np.add.at(h1, (hands[:, m], level), qual)
    for ids in pair_ids:
        np.add.at(h2, (ids, level), qual)
    n0 = int(notq.sum())
    n1 = np.zeros(52, dtype=np.int64)
    n2 = np.zeros(52 * 52, dtype=np.int64)
    for m in range(3):
        np.add.at(n1, hands[:, m], notq)
    for ids in pair_ids:
        np.add.at(n2, ids, notq)

    # Cumulative counts strictly below each strength.
    c0 = np.concatenate(([0], np.cumsum(h0)))
    c1 = np.concatenate((np.zeros((52, 1), np.int64), np.cumsum(h1, axis=1)), axis=1)
    c2 = np.concatenate((np.zeros((52 * 52, 1), np.int64), np.cumsum(h2, axis=1)), axis=1)

    Counts = Callable[[np.ndarray], np.ndarray]         # hands holding the given cards / pairs

    def disjoint(total: np.ndarray | int, per_card: Counts, per_pair: Counts,
                 itself: np.ndarray | int) -> np.ndarray | int:
        return (total - sum(per_card(hands[:, m]) for m in range(3))
                + sum(per_pair(ids) for ids in pair_ids) - itself)

    below = disjoint(c0[level], lambda c: c1[c, level], lambda p: c2[p, level], 0)
    tied = disjoint(h0[level], lambda c: h1[c, level], lambda p: h2[p, level], qual)
    not_qualifying = disjoint(n0, lambda c: n1[c], lambda p: n2[p], notq)
    above = DEALER_HANDS - not_qualifying - below - tied
    return np.stack([not_qualifying, below, tied, above], axis=1)


def ante_play(preset: Preset, hands: np.ndarray, scores: np.ndarray) -> dict[str, Any]:
    """Derived strategy and house edge of Ante/Play with the preset's Ante Bonus."""
    outcomes = dealer_outcomes(hands, scores, preset.dealer_qualifies_with)
    nq, win, tie, lose = outcomes.T
    bonus = np.array([preset.ante_bonus.get(Hand3(int(s) >> 12), 0) for s in scores], dtype=np.int64)
    # Expected values per unit Ante, times 18,424: playing risks Ante + Play.
    ev_play = bonus * DEALER_HANDS + nq + 2 * win - 2 * lose
    ev_fold = -DEALER_HANDS
    play = ev_play > ev_fold
    indifferent = int((ev_play == ev_fold).sum())
    best = np.where(play, ev_play, ev_fold)
    total = HANDS3 * DEALER_HANDS
    edge = Fraction(-int(best.sum()), total)
    p_play = Fraction(int(play.sum()), HANDS3)
    threshold, monotone = _threshold(scores, play)
    return {
        "strategy": {
            "play_hands": int(play.sum()),
            "fold_hands": int((~play).sum()),
            "indifferent_hands": indifferent,
            "weakest_played": threshold,
            "play_every_hand_at_least_as_strong": monotone,
        },
        "probability_of_play": exact(p_play),
        "house_edge_per_ante": exact(edge),
        "element_of_risk": exact(edge / (1 + p_play)),
        "ante_bonus_return_per_ante": exact(Fraction(int((bonus * play).sum()), HANDS3)),
        "outcome_counts": {
            "of": total,
            "fold": int((~play).sum()) * DEALER_HANDS,
            "dealer_not_qualifying": int(nq[play].sum()),
            "player_wins": int(win[play].sum()),
            "tie": int(tie[play].sum()),
            "dealer_wins": int(lose[play].sum()),
        },
    }


def _threshold(scores: np.ndarray, play: np.ndarray) -> tuple[dict[str, str], bool]:
    """The weakest hand the derived strategy plays, and whether every stronger hand plays too."""
    weakest = int(scores[play].min())
    monotone = bool(play[scores >= weakest].all())
    example = next(h for h, s in zip(combinations(range(52), 3), scores.tolist(), strict=True) if s == weakest)
    ranks = "-".join("23456789TJQKA"[(weakest >> shift) & 15] for shift in (8, 4, 0))
    return {"hand": describe3(weakest), "ranks": ranks, "example": cards_text(example)}, monotone


def pair_plus(preset: Preset, counts: dict[Hand3, int]) -> dict[str, Any]:
    won = sum(counts[h] * odds for h, odds in preset.pair_plus.items())
    lost = sum(n for h, n in counts.items() if h not in preset.pair_plus)
    ret = Fraction(won - lost, HANDS3)
    return {"return": exact(ret), "house_edge": exact(-ret),
            "pays": {h.key: odds for h, odds in preset.pair_plus.items()}}


# --- six cards ---------------------------------------------------------------

def six_card_counts() -> tuple[dict[Hand6, int], dict[Super6, int]]:
    """Counts of every 6 Card Bonus and Super 6 category over all C(52,6) hands."""
    bonus: Counter[Hand6] = Counter()
    super6: Counter[Super6] = Counter()

    def add(category: tuple[Hand6, Super6], ways: int) -> None:
        bonus[category[0]] += ways
        super6[category[1]] += ways

    for ranks in combinations_with_replacement(range(13), 6):
        counts = [0] * 13
        for r in ranks:
            counts[r] += 1
        if max(counts) > 4:
            continue
        assignments = prod(comb(4, n) for n in counts)
        distinct = [r for r in range(13) if counts[r]]
        flush_ways = 0
        if len(distinct) == 6:
            full = sum(1 << r for r in distinct)
            for suit in range(4):                       # all six cards of one suit
                add(suited_category(full, suit), 1)
            for odd in distinct:                        # five of one suit, one of another
                add(suited_category(full & ~(1 << odd), 0), 4 * 3)
            flush_ways = 4 + 6 * 12
        elif len(distinct) == 5:                        # one pair: one of its cards off-suit
            add(suited_category(sum(1 << r for r in distinct), 0), 4 * 3)
            flush_ways = 12
        add(rank_category(counts), assignments - flush_ways)
    return ({h: bonus.get(h, 0) for h in sorted(Hand6, reverse=True)},
            {h: super6.get(h, 0) for h in sorted(Super6, reverse=True)})


def six_card_bonus(pays: dict[Hand6, int], counts: dict[Hand6, int]) -> dict[str, Any]:
    won = sum(counts[h] * odds for h, odds in pays.items())
    lost = sum(n for h, n in counts.items() if h not in pays)
    ret = Fraction(won - lost, HANDS6)
    return {"counts": {h.key: n for h, n in counts.items()}, "of": HANDS6,
            "return": exact(ret), "house_edge": exact(-ret)}


def super6(bets: dict[int, Super6Bet], counts: dict[Super6, int], jackpots: dict[str, int] | None) -> dict[str, Any]:
    sizes: dict[str, dict[str, Any]] = {}
    for bet, entry in sorted(bets.items()):
        fixed = sum(counts[h] * a for h, a in entry.awards.items() if isinstance(a, int))
        lost = sum(n for h, n in counts.items() if h not in entry.awards)
        ret = Fraction(fixed - lost * bet, HANDS6 * bet)
        hits: dict[str, Fraction] = {}
        for hand, award in entry.awards.items():
            if isinstance(award, str):
                hits[award] = hits.get(award, Fraction(0)) + Fraction(counts[hand], HANDS6)
        row: dict[str, Any] = {"return_excluding_jackpots": exact(ret),
               "jackpot_hit_probability": {k: exact(v) for k, v in hits.items()},
               "jackpot_share_percent": entry.jackpot_share_percent}
        if jackpots:
            with_jackpots = ret + sum(p * Fraction(jackpots[k] * entry.jackpot_share_percent, 100 * bet)
                                      for k, p in hits.items())
            row["return"] = exact(with_jackpots)
            row["house_edge"] = exact(-with_jackpots)
        sizes[str(bet)] = row
    return {"counts": {h.key: n for h, n in counts.items()}, "of": HANDS6, "by_bet": sizes}


def par_sheet(preset: Preset, jackpots: dict[str, int] | None = None) -> dict[str, Any]:
    hands, scores = all_three_card_hands()
    counts3 = three_card_counts(scores)
    sheet: dict[str, Any] = {
        "preset": preset.name,
        "title": preset.title,
        "rule_sheet": preset.rule_sheet,
        "three_card_counts": {h.key: n for h, n in counts3.items()},
        "three_card_hands": HANDS3,
        "pair_plus": pair_plus(preset, counts3),
        "ante_play": ante_play(preset, hands, scores),
    }
    if preset.six_card_bonus or preset.super6:
        bonus_counts, super_counts = six_card_counts()
        if preset.six_card_bonus:
            sheet["six_card_bonus"] = six_card_bonus(preset.six_card_bonus, bonus_counts)
        if preset.super6:
            sheet["super6"] = super6(preset.super6, super_counts, jackpots)
    return sheet
