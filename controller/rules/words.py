"""The exact words the dealer reads and says, built from round facts.

Owns the wording of the procedure's announcements (rule sheet 000, Dealing
Procedures): "No more bets", "No PAIR PLUS, positions 2, 3 and 5", "Dealer
plays with a Queen", "Dealer doesn't play", and money as the dealer reads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.rules.cap import paid_after_cap
from controller.rules.cards import RANK_NAMES, RANK_PLURALS
from controller.rules.hand3 import Hand3, category3
from controller.rules.spots import PAY_ORDER, label


def money(cents: int, *, short: bool = False) -> str:
    """Integer cents as people read dollars: -$1,234.50; ``short`` drops a ".00" ($5 in a limit)."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    if short and cents % 100 == 0:
        return f"{sign}${cents // 100:,}"
    return f"{sign}${cents // 100:,}.{cents % 100:02d}"


# The devices as the dealer names them: (subject, verb) so a sentence agrees with a plural.
DEVICES = {"shoe": ("the shoe", "is"), "sensors": ("the bet sensors", "are"), "sign": ("the jackpot sign", "is")}
# The commands a device may fail to take, as the dealer would say what was asked.
COMMANDS = {"Shuffle": "shuffle", "DeliverHand": "deal a hand", "StatusRequest": "count its cards",
            "DeckCheck": "check the deck", "Lock": "lock or unlock spots", "Lamp": "light a spot",
            "SnapshotRequest": "report every spot", "Hello": "start talking",
            "ACK/NAK responses on": "answer each packet (ACK/NAK)", "memory configuration": "set up its memory",
            "layout": "take the display layout", "heartbeat": "keep its message shown"}
# A device's detail before its first connection, and why Super 6 waits on the jackpot sign after the
# values were sent to it (at the start; after a posting): the table's words (controller/round/links.py,
# controller/store/jackpot.py), which the scripted dealer also reads (simulators/dealer.py)
NOT_CONNECTED_YET = "not connected yet"
SIGN_UNCONFIRMED = "the jackpot sign has not confirmed the values yet"
SIGN_NEW_UNCONFIRMED = "the sign has not yet confirmed the new values"


def device_says(role: str, rest: str) -> str:
    """"The bet sensors are not answering" from ("sensors", "not answering"): one sentence."""
    subject, verb = DEVICES.get(role, (f"the {role}", "is"))
    return f"{subject[0].upper()}{subject[1:]} {verb} {rest}"


def command_words(command: str) -> str:
    """What the table asked of a device, in words ("light a spot"), for a command's name."""
    if command.startswith("STRING"):
        return "show the jackpot values" if command != "STRING message" else "show its message"
    return COMMANDS.get(command, command)


def positions_list(positions: Sequence[int]) -> str:
    """1 -> "1"; 2, 3, 5 -> "2, 3 and 5"."""
    names = [str(p) for p in positions]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def positions_named(positions: Sequence[int]) -> str:
    """3 -> "position 3"; 3, 4 -> "positions 3 and 4": the noun agrees with the list."""
    return f"position{'s' if len(positions) > 1 else ''} {positions_list(positions)}"


def no_pair_plus(positions: Sequence[int]) -> str | None:
    if not positions:
        return None
    return f"No PAIR PLUS, {positions_named(positions)}"


def dealer_announcement(score: int, qualifies: bool) -> str:
    """What the dealer says after arranging the hand from highest card to lowest."""
    if not qualifies:
        return "Dealer doesn't play"
    category = category3(score)
    top = (score >> 8) & 15
    if category is Hand3.HIGH_CARD:
        name = RANK_NAMES[top]
        return f"Dealer plays with {'an' if name[0] in 'AEIOU' else 'a'} {name}"
    if category is Hand3.PAIR:
        return f"Dealer plays with a Pair of {RANK_PLURALS[top]}"
    if category is Hand3.THREE_OF_A_KIND:
        return f"Dealer plays with Three {RANK_PLURALS[top]}"
    label = category.name.replace("_", " ").title()
    return f"Dealer plays with a {label}, {RANK_NAMES[top]} high"


def hand_words(score: int) -> str:
    """A three-card hand as the dealer announces it: "Queen high", "Pair of Sevens", "Three Kings",
    "Straight, Six high", "Flush, Ace high", "Straight Flush, King high"."""
    category = category3(score)
    top = (score >> 8) & 15
    if category is Hand3.HIGH_CARD:
        return f"{RANK_NAMES[top]} high"
    if category is Hand3.PAIR:
        return f"Pair of {RANK_PLURALS[top]}"
    if category is Hand3.THREE_OF_A_KIND:
        return f"Three {RANK_PLURALS[top]}"
    return f"{category.name.replace('_', ' ').title()}, {RANK_NAMES[top]} high"


SIX_CARD_HANDS = {"royal_flush": "Royal Flush", "straight_flush": "Straight Flush", "four_of_a_kind": "Four of a Kind",
                  "full_house": "Full House", "flush": "Flush", "straight": "Straight",
                  "three_of_a_kind": "Three of a Kind", "two_pair": "Two Pair", "pair": "One Pair",
                  "high_card": "No hand"}
NO_HAND = SIX_CARD_HANDS["high_card"]
SUPER_ROYALS = {"super_royal_diamonds": "Super Royal in Diamonds", "super_royal": "Super Royal"}


def six_card_words(six_card: str | None, super6_hand: str | None) -> str | None:
    """The six cards' hand (the player's three with the dealer's three, rule sheet 004) as the dealer
    announces it: the best five-card hand, or a six-card Super Royal where Super 6 found one."""
    if super6_hand in SUPER_ROYALS:
        return SUPER_ROYALS[super6_hand]
    return SIX_CARD_HANDS.get(six_card or "")


def settlement_lines(seat: dict[str, Any], side_bets_stay: bool = True) -> list[str]:
    """A position's wagers in pay order, each as "Pay Play $10.00" or "Take Ante $10.00"; a wager the
    maximum aggregate payout cuts says what is paid on it and what is not (``paid_after_cap``). A fold's
    forfeited wagers were collected with its cards before the reveal: they are not taken again;
    its 6 Card Bonus and Super 6, where they stay in action (``side_bets_stay``, the preset's), are
    settled on its cards set aside, turned up now.
    The order is the sheet's (``PAY_ORDER``), never the record's: a settlement read back from the
    journal has its results' keys sorted."""
    forfeited = _forfeited(seat, side_bets_stay)
    lines = ["Folded: its forfeited wagers were collected with the cards"] if forfeited else []
    six = six_card_words(seat.get("six_card"), seat.get("super6_hand"))
    if forfeited and six and side_bets_stay and (seat["wagers"].get("six_card_bonus") or seat["wagers"].get("super6")):
        # as a dealer says it: the hand the six cards make, or that they make none
        lines.append("Turn up the cards set aside: no six-card hand with the dealer's cards" if six == NO_HAND
                     else f"Turn up the cards set aside: {six} with the dealer's cards")
    results = seat["results"]
    paid = paid_after_cap(results, seat.get("cap_reduction", 0))
    for spot in PAY_ORDER:
        amount = results.get(spot, 0)
        if amount < 0 and spot in forfeited:
            continue
        if amount > 0 and paid[spot] < amount:      # the maximum payout is reached on this wager
            lines.append(f"Pay {label(spot)} {money(paid[spot])} (maximum payout reached: "
                         f"{money(amount - paid[spot])} not paid)")
        elif amount > 0:
            lines.append(f"Pay {label(spot)} {money(amount)}")
        elif amount < 0:
            lines.append(f"Take {label(spot)} {money(-amount)}")
        elif _staked(seat, spot):
            lines.append(f"Push {label(spot)}")
    return lines


def settlement_money(seat: dict[str, Any], side_bets_stay: bool = True) -> tuple[int, int, int]:
    """(to pay, to take, collected at the fold) in cents, as the dealer moves chips at settlement:
    paid - taken - collected is the position's net. A fold's forfeited wagers went with its cards."""
    forfeited = _forfeited(seat, side_bets_stay)
    pay = take = collected = 0
    for spot, amount in seat["results"].items():
        if amount > 0:
            pay += amount
        elif spot in forfeited:
            collected -= amount
        else:
            take -= amount
    return pay - seat.get("cap_reduction", 0), take, collected


def settlement_total(seat: dict[str, Any], side_bets_stay: bool = True) -> str:
    """What is left to do at a position, in one line: "Pay $25.00", "Take $5.00", "Pay $5.00 and
    take $5.00" (a net of zero that is no push), "Push", or a fold with nothing left in action."""
    pay, take, collected = settlement_money(seat, side_bets_stay)
    if pay and take:
        return f"Pay {money(pay)} and take {money(take)}"
    if pay:
        return f"Pay {money(pay)}"
    if take:
        return f"Take {money(take)}"
    return "Collected with the cards" if collected else "Push"


def return_line(refused: dict[str, Any]) -> str:
    """Chips the table did not accept, handed back: "Return $5.00 (6 Card Bonus placed after No
    more bets) to position 6"."""
    amount = refused["amount"]
    what = "the chips" if amount is None else money(amount)
    return f"Return {what} ({refused['why']}) to position {refused['position']}"


FORFEITED_AT_FOLD = ("play", "ante_bonus", "ante", "pair_plus")     # the bets a fold gives up at once
SIDE_BETS = ("six_card_bonus", "super6")                            # ... and these where they do not stay


def _forfeited(seat: dict[str, Any], side_bets_stay: bool) -> tuple[str, ...]:
    """The wagers a folded position gave up with its cards (none for a position that played)."""
    if seat.get("play") or not seat.get("wagers", {}).get("ante"):
        return ()
    return FORFEITED_AT_FOLD if side_bets_stay else FORFEITED_AT_FOLD + SIDE_BETS


def _staked(seat: dict[str, Any], spot: str) -> bool:
    wagers = seat.get("wagers", {})
    if spot == "play":
        return bool(seat.get("play") and wagers.get("ante"))
    return bool(wagers.get(spot))
