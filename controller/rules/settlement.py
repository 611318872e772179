"""Settlement of one round: a pure function from hands, wagers and decisions to money.

Owns the game's money rules (domain/rules-notes.md), all in integer cents:
- The dealer qualifies with the preset's high card (queen) or any pair.
- Ante/Play: dealer not qualifying pays the Ante 1:1 and pushes the Play; a
  qualifying dealer is compared, ties push. A fold loses the Ante and, when the
  preset says so, the Pair Plus.
- Ante Bonus: paid on the Ante for the listed hands whatever the dealer holds,
  only when the Play wager was made.
- Pair Plus on the player's three cards alone.
- 6 Card Bonus and Super 6 on the player's three cards with the dealer's three;
  they stay in action after a fold unless the preset says otherwise. Super 6
  pays a fixed award per accepted bet size, or a share of a posted jackpot;
  several winners of one jackpot split it (``split_jackpot``).
- The maximum aggregate payout caps what one seat wins on one hand, summed
  over its winning wagers, Super 6 excluded. ``cap.paid_after_cap`` says which
  wagers the cut comes off: the ones the dealer pays last.

Each result is the player's net on that wager: the amount won (stake not
counted), 0 for a push, minus the stake for a loss. Results are listed in the
house pay order, and seats in settlement order, from the dealer's right
(highest position number) to the dealer's left.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from controller.errors import InputError
from controller.rules.cap import over_cap
from controller.rules.cards import CardError, check_disjoint
from controller.rules.hand3 import Hand3, qualifies, score3
from controller.rules.hand6 import Hand6, Super6, evaluate6
from controller.rules.paytable import JACKPOTS, Preset
from controller.rules.spots import PAY_ORDER


class SettlementError(InputError):
    """A round that cannot be settled as given; the message names seat and field."""


@dataclass(frozen=True)
class Wagers:
    ante: int = 0
    pair_plus: int = 0
    six_card_bonus: int = 0
    super6: int = 0

    @property
    def total(self) -> int:
        return self.ante + self.pair_plus + self.six_card_bonus + self.super6

    def as_dict(self) -> dict[str, int]:
        return {"ante": self.ante, "pair_plus": self.pair_plus,
                "six_card_bonus": self.six_card_bonus, "super6": self.super6}


@dataclass(frozen=True)
class SeatHand:
    seat: int
    cards: tuple[int, ...]
    wagers: Wagers
    play: bool = False          # made the Play wager (equal to the Ante); False = folded


@dataclass(frozen=True)
class JackpotHit:
    seat: int
    jackpot: str                # mega, major or minor
    bet: int
    share_percent: int
    posted: int                 # the posted value at the time of the win
    winners: int                # how many hits of this jackpot shared it
    amount: int


@dataclass(frozen=True)
class LinkedSplit:
    """A linked jackpot's share as the floor decided it (docs/floor-jackpot.md): the level's value when
    won, how many claims of the same hand shared it, and this claim's place in the floor's order
    (odd cents go to the first claims). No winners: a refused claim a supervisor settled without
    the linked award (``refer_jackpot``), paid nothing."""
    value: int
    winners: int
    order: int

    def amount(self, share_percent: int) -> int:
        return _part(self.value, self.winners, self.order) * share_percent // 100 if self.winners else 0


@dataclass(frozen=True)
class SeatResult:
    seat: int
    cards: tuple[int, ...]
    score: int
    six_card: Hand6 | None
    super6_hand: Super6 | None
    results: dict[str, int]     # PAY_ORDER, before the cap
    cap_reduction: int
    wagers: Wagers
    play: bool
    jackpot: str | None = None  # the posted jackpot this seat hit, if any

    @property
    def hand(self) -> Hand3:
        return Hand3(self.score >> 12)

    @property
    def net(self) -> int:
        return sum(self.results.values()) - self.cap_reduction

    @property
    def staked(self) -> int:
        """Everything the seat had at risk, the Play wager included."""
        return self.wagers.total + (self.wagers.ante if self.play else 0)


@dataclass(frozen=True)
class RoundSettlement:
    dealer_cards: tuple[int, ...]
    dealer_score: int
    dealer_qualifies: bool
    seats: tuple[SeatResult, ...]
    jackpot_hits: tuple[JackpotHit, ...] = field(default=())


def check_wagers(preset: Preset, wagers: Wagers, where: str) -> None:
    """Refuse a wager below or above its limit, on a bet not offered, or of a Super 6 size without awards."""
    for spot, amount in wagers.as_dict().items():
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise SettlementError(f"{where}: {spot} must be whole cents, not {amount!r}")
        if amount < 0:
            raise SettlementError(f"{where}: {spot} {amount} is negative")
        if amount == 0:
            continue
        if not preset.offers(spot):
            raise SettlementError(f"{where}: {spot} is not offered by preset {preset.name}")
        limit = preset.limits[spot]
        if amount < limit.min:
            raise SettlementError(f"{where}: {spot} {amount} is below the minimum {limit.min}")
        if amount > limit.max:
            raise SettlementError(f"{where}: {spot} {amount} is above the maximum {limit.max}")
        if spot == "super6":
            assert preset.super6 is not None        # offered, so parse_paytable gave it bet sizes
            if amount not in preset.super6:
                sizes = ", ".join(str(b) for b in sorted(preset.super6))
                raise SettlementError(f"{where}: super6 {amount} is not a bet size with awards ({sizes})")


def split_jackpot(posted: int, shares_percent: Sequence[int]) -> list[int]:
    """What each of several winners of one jackpot in one hand is paid.

    The posted value is divided equally between the winners (odd cents to the
    first winners in settlement order); each winner then gets the share of
    its part that its bet size earns (50% for $5, 100% for $10), rounded down
    to the cent. One winner with a 100% share gets exactly the posted value.
    """
    count = len(shares_percent)
    return [_part(posted, count, i + 1) * share // 100 for i, share in enumerate(shares_percent)]


def _part(value: int, winners: int, order: int) -> int:
    """The ``order``-th (from 1) of ``winners`` equal parts of ``value``: odd cents to the first."""
    base, odd = divmod(value, winners)
    return base + (1 if order <= odd else 0)


def settle_round(preset: Preset, dealer: Sequence[int], seats: Sequence[SeatHand],
                 jackpots: Mapping[str, int] | None = None,
                 linked: Mapping[str, LinkedSplit] | None = None) -> RoundSettlement:
    """Settle one round; raises SettlementError (or CardError) and settles nothing on bad input.
    ``linked``: levels won on a linked jackpot, paid the floor's split instead of the posted value."""
    if len(dealer) != 3:
        raise SettlementError(f"dealer: {len(dealer)} cards, expected 3")
    hands = {"dealer": dealer}
    for seat in seats:
        where = f"seat {seat.seat}"
        if f"seat {seat.seat}" in hands:
            raise SettlementError(f"{where}: listed twice")
        if len(seat.cards) != 3:
            raise SettlementError(f"{where}: {len(seat.cards)} cards, expected 3")
        hands[where] = seat.cards
        check_wagers(preset, seat.wagers, where)
        if seat.play and not seat.wagers.ante:
            raise SettlementError(f"{where}: play without an Ante wager")
    try:
        check_disjoint(hands)
    except CardError as err:
        raise SettlementError(str(err)) from None

    dealer_score = score3(dealer)
    dealer_ok = qualifies(dealer_score, preset.dealer_qualifies_with)
    order = sorted(seats, key=lambda s: -s.seat)
    results = [_settle_seat(preset, s, dealer, dealer_score, dealer_ok) for s in order]
    hits = _award_jackpots(preset, results, jackpots or {}, linked or {})
    capped = [_apply_cap(preset, r) for r in results]
    return RoundSettlement(tuple(dealer), dealer_score, dealer_ok, tuple(capped), tuple(hits))


def _settle_seat(preset: Preset, seat: SeatHand, dealer: Sequence[int],
                 dealer_score: int, dealer_ok: bool) -> SeatResult:
    w = seat.wagers
    score = score3(seat.cards)
    hand = Hand3(score >> 12)
    res = dict.fromkeys(PAY_ORDER, 0)
    folded = w.ante > 0 and not seat.play
    if w.ante:
        if folded:
            res["ante"] = -w.ante
        else:
            res["ante_bonus"] = w.ante * preset.ante_bonus.get(hand, 0)
            if not dealer_ok or score > dealer_score:
                res["ante"] = w.ante
                res["play"] = w.ante if dealer_ok else 0
            elif score < dealer_score:
                res["ante"] = res["play"] = -w.ante
    if w.pair_plus:
        odds = preset.pair_plus.get(hand, 0)
        lost = odds == 0 or (folded and preset.fold_loses_pair_plus)
        res["pair_plus"] = -w.pair_plus if lost else w.pair_plus * odds
    six = sup = jackpot = None
    if w.six_card_bonus or w.super6:
        six, sup = evaluate6((*seat.cards, *dealer))
        side_lost = folded and not preset.side_bets_stay_after_fold
        if w.six_card_bonus:
            assert preset.six_card_bonus is not None   # check_wagers: only an offered wager is staked
            odds = 0 if side_lost else preset.six_card_bonus.get(six, 0)
            res["six_card_bonus"] = w.six_card_bonus * odds if odds else -w.six_card_bonus
        if w.super6:
            assert preset.super6 is not None
            award = None if side_lost else preset.super6[w.super6].awards.get(sup)
            if isinstance(award, str):
                jackpot = award     # paid by _award_jackpots once every hit is known
            res["super6"] = award if isinstance(award, int) else (0 if award else -w.super6)
    return SeatResult(seat.seat, tuple(seat.cards), score, six, sup, res, 0, w,
                      seat.play and w.ante > 0, jackpot)


@dataclass(frozen=True)
class JackpotClaim:
    """One Super 6 hand that hit a posted jackpot (``seat`` may number seats across tables)."""
    seat: int
    jackpot: str
    bet: int


def award_jackpots(preset: Preset, claims: Sequence[JackpotClaim],
                   posted: Mapping[str, int]) -> list[JackpotHit]:
    """Pay every claim on the posted jackpots, winners of one jackpot splitting it.

    Claims of one jackpot settled together share its posted value equally
    (``split_jackpot``); each winner is paid its bet size's share of its part.
    A table with one deck can have only one hit per jackpot and hand; tables
    sharing a jackpot settle their simultaneous hits together through this.
    """
    hits: list[JackpotHit] = []
    for name in JACKPOTS:
        winners = [c for c in claims if c.jackpot == name]
        if not winners:
            continue
        value = posted.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise SettlementError(
                f"seat {winners[0].seat}: Super 6 {name.upper()} hit needs the posted "
                f"jackpots.{name} value in cents")
        assert preset.super6 is not None            # a jackpot claim is a Super 6 wager's
        shares = [preset.super6[c.bet].jackpot_share_percent for c in winners]
        for c, share, amount in zip(winners, shares, split_jackpot(value, shares), strict=True):
            hits.append(JackpotHit(c.seat, name, c.bet, share, value, len(winners), amount))
    return hits


def _award_jackpots(preset: Preset, results: list[SeatResult], posted: Mapping[str, int],
                    linked: Mapping[str, LinkedSplit]) -> list[JackpotHit]:
    claims = [JackpotClaim(r.seat, r.jackpot, r.wagers.super6) for r in results if r.jackpot]
    hits = award_jackpots(preset, [c for c in claims if c.jackpot not in linked], posted)
    for c in claims:
        split = linked.get(c.jackpot)
        if split is not None:                   # one hit per level at a table: the floor's order says the rest
            assert preset.super6 is not None
            share = preset.super6[c.bet].jackpot_share_percent
            hits.append(JackpotHit(c.seat, c.jackpot, c.bet, share, split.value, split.winners, split.amount(share)))
    by_seat = {r.seat: r for r in results}
    for hit in hits:
        by_seat[hit.seat].results["super6"] = hit.amount
    return hits


def _apply_cap(preset: Preset, r: SeatResult) -> SeatResult:
    cap = preset.max_aggregate_payout
    if cap is None:
        return r
    cut = over_cap(r.results, cap)
    return replace(r, cap_reduction=cut) if cut else r
