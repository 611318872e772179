"""Independent reference evaluators for the tests: written plainly, without the
lookup tables, encodings or shortcuts of controller/, so that agreement between
the two is evidence and not an echo."""

from collections import Counter
from itertools import combinations

RANK_VALUE = {r: i for i, r in enumerate("23456789TJQKA", start=2)}


def split(card: int) -> tuple[int, int]:
    """(rank 2..14, suit 0..3) of a card int."""
    return card // 4 + 2, card % 4


def three_card_key(cards) -> tuple:
    """A sortable key for a three-card hand; equal keys tie."""
    ranks = sorted((split(c)[0] for c in cards), reverse=True)
    suits = {split(c)[1] for c in cards}
    flush = len(suits) == 1
    straight_top = None
    if ranks[0] - ranks[2] == 2 and len(set(ranks)) == 3:
        straight_top = ranks[0]
    if ranks == [14, 3, 2]:
        straight_top = 3
    counts = Counter(ranks)
    if straight_top and flush:
        return (6, straight_top)
    if 3 in counts.values():
        return (5, ranks[0])
    if straight_top:
        return (4, straight_top)
    if flush:
        return (3, *ranks)
    if 2 in counts.values():
        pair = max(counts, key=lambda r: counts[r])
        kicker = min(counts, key=lambda r: counts[r])
        return (2, pair, kicker)
    return (1, *ranks)


FIVE_CARD_NAMES = ["high_card", "pair", "two_pair", "three_of_a_kind", "straight", "flush",
                   "full_house", "four_of_a_kind", "straight_flush", "royal_flush"]


def five_card_category(cards) -> int:
    """Index into FIVE_CARD_NAMES for exactly five cards."""
    ranks = sorted(split(c)[0] for c in cards)
    flush = len({split(c)[1] for c in cards}) == 1
    straight = (len(set(ranks)) == 5 and ranks[4] - ranks[0] == 4) or ranks == [2, 3, 4, 5, 14]
    shape = sorted(Counter(ranks).values(), reverse=True)
    if straight and flush:
        return 9 if ranks[0] == 10 else 8
    if shape[0] == 4:
        return 7
    if shape == [3, 2]:
        return 6
    if flush:
        return 5
    if straight:
        return 4
    if shape[0] == 3:
        return 3
    if shape == [2, 2, 1]:
        return 2
    if shape[0] == 2:
        return 1
    return 0


def best_of_six(cards) -> str:
    return FIVE_CARD_NAMES[max(five_card_category(five) for five in combinations(cards, 5))]


def super6_of_six(cards) -> str:
    """Super 6 category per rule sheet 004, by its own wording."""
    ranks = sorted(split(c)[0] for c in cards)
    suits = {split(c)[1] for c in cards}
    if ranks == [9, 10, 11, 12, 13, 14] and len(suits) == 1:
        return "super_royal_diamonds" if suits == {1} else "super_royal"
    best = best_of_six(cards)
    if best == "royal_flush":
        return "royal_flush"
    paid = {"straight_flush", "four_of_a_kind", "full_house", "flush", "straight"}
    return best if best in paid else "none"


def reference_settle(preset, dealer, seat_cards, wagers, played, posted):
    """Net result per wager for one seat (no jackpot split, no cap), from the sheets' words.

    ``wagers`` is a dict of the four wager spots in cents; ``posted`` the jackpot values.
    """
    dkey = three_card_key(dealer)
    pkey = three_card_key(seat_cards)
    dealer_ranks = sorted((split(c)[0] for c in dealer), reverse=True)
    queen_rank = preset.dealer_qualifies_with + 2
    dealer_qualifies = dkey[0] >= 2 or dealer_ranks[0] >= queen_rank
    names = {6: "straight_flush", 5: "three_of_a_kind", 4: "straight", 3: "flush", 2: "pair",
             1: "high_card"}
    hand = names[pkey[0]]
    odds3 = {h.key: o for h, o in preset.pair_plus.items()}
    bonus3 = {h.key: o for h, o in preset.ante_bonus.items()}
    ante = wagers.get("ante", 0)
    out = dict.fromkeys(["play", "ante_bonus", "ante", "pair_plus", "six_card_bonus", "super6"], 0)
    folded = ante and not played
    if ante and played:
        out["ante_bonus"] = ante * bonus3.get(hand, 0)
        if not dealer_qualifies:
            out["ante"], out["play"] = ante, 0
        elif pkey > dkey:
            out["ante"], out["play"] = ante, ante
        elif pkey < dkey:
            out["ante"], out["play"] = -ante, -ante
    elif ante:
        out["ante"] = -ante
    pp = wagers.get("pair_plus", 0)
    if pp:
        if folded and preset.fold_loses_pair_plus or hand not in odds3:
            out["pair_plus"] = -pp
        else:
            out["pair_plus"] = pp * odds3[hand]
    six = list(seat_cards) + list(dealer)
    scb = wagers.get("six_card_bonus", 0)
    side_dead = folded and not preset.side_bets_stay_after_fold
    if scb:
        odds6 = {h.key: o for h, o in preset.six_card_bonus.items()}
        cat = best_of_six(six)
        out["six_card_bonus"] = -scb if side_dead or cat not in odds6 else scb * odds6[cat]
    s6 = wagers.get("super6", 0)
    if s6:
        awards = {h.key: a for h, a in preset.super6[s6].awards.items()}
        cat = super6_of_six(six)
        award = None if side_dead else awards.get(cat)
        if award is None:
            out["super6"] = -s6
        elif isinstance(award, str):
            out["super6"] = posted[award] * preset.super6[s6].jackpot_share_percent // 100
        else:
            out["super6"] = award
    return out
