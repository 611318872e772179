"""Dealing: the shoe's facts, hands asked for one at a time, and the cards checked as they come.

Owns the round's side of the shoe: the shuffle for this round's deck and its
deck check (52 cards, all of the deck in play: anything else, or a count
error the shoe reports, is a misdeal before any card reaches a player), a
shuffle past the shoe's time limit (alert and hold until it completes), one
hand asked for at a time (positions from the dealer's left, then the
dealer's), every dealt card checked (three cards, readable, of the deck in
play, none seen twice; anything else is a misdeal that voids the round), a
hand reported again after a reconnect (the same hand: ignored; another under
its number: a dead hand), the hand a restarted controller's predecessor asked
for (kept by the shoe, reported before or after its count: the round's next
hand), the hand asked for that arrives after a hold stopped the deal (its
position's: its cards left the shoe before the hold), a shoe that is slow to
deliver asked again, the shoe's status after every reconnect (its door and
jam; after a restart its count: cards that left the shoe unrecorded, beyond
that one hand, void the round), and the holds a jam or an open door puts on
the round. Which state takes which shoe fact is
``machine.SHOE_FACTS``. After a restart mid-deal, ``RestartCount`` is the one
small state of the count awaited (and of the one hand that may come before
it). It asks the clerk (controller/round/clerk.py) to journal, alert, fire a
misdeal and command the shoe, and sets the shoe's holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.round import machine as procedure
from controller.round.clerk import Clerk, Holds
from controller.round.facts import DEAD_HAND, DEALER, UNREADABLE
from controller.round.ports import AskShoeStatus, CheckDeck, DealHand, Shuffle
from controller.rules.cards import card_text
from drivers.events import (
    Card,
    DeckChecked,
    DeviceTrouble,
    HandDealt,
    ShoeCount,
    ShoeDoor,
    ShoeJam,
    ShoeMiscounted,
    ShuffleDone,
    ShuffleLate,
)

if TYPE_CHECKING:
    from controller.app.config import TableConfig
    from controller.round.facts import Round

HAND_TIMER = "hand"
JAM_ADVICE = "clear the jam and close the shoe's door"

ShoeFact = (ShuffleDone | HandDealt | ShoeCount | ShoeJam | ShoeDoor | DeckChecked | DeviceTrouble | ShuffleLate
            | ShoeMiscounted)


def card_problem(cards: tuple[Card, ...], target: int, seen: set[int], deck_in_play: int) -> str | None:
    """Why a dealt hand is a misdeal (the count, an unreadable card, the other deck, a card read
    twice); None when it is three good cards."""
    who = "the dealer" if target == DEALER else f"position {target}"
    if len(cards) != 3:
        return f"{who} was dealt {len(cards)} cards"
    in_hand: set[int] = set()
    for card, deck in cards:
        if card is None:
            return f"the shoe could not read a card of {who}'s hand"
        if deck != deck_in_play:
            return f"{card_text(card)} in {who}'s hand is from deck {deck}, not the deck in play ({deck_in_play})"
        if card in seen or card in in_hand:
            return f"{card_text(card)} was read twice ({who}'s hand)"
        in_hand.add(card)
    return None


class RestartCount:
    """A round restarted while dealing: cards may have left the shoe while no one was recording, so
    the shoe's count is checked against the journal before the deal goes on. The one hand the
    controller before the restart asked for may be formed and kept by the shoe: it alone may come
    before the count (``hand_may_come_first``), or after a count one hand short (counted again
    once it is in)."""

    def __init__(self) -> None:
        self._counting = False          # the count asked for and not yet agreed
        self._hand_first = False        # ... and the one hand formed before the restart not yet taken
        self._after_hand = False        # a count one hand short: counted again once that hand is in

    def begin(self) -> None:
        self._counting = self._hand_first = True

    def counting(self) -> bool:
        return self._counting

    def hand_may_come_first(self) -> bool:
        return self._hand_first

    def hand_taken(self) -> None:
        self._hand_first = False

    def count_after_hand(self) -> bool:
        """A good hand is in: whether the count is asked (again) before the next hand."""
        if self._after_hand:            # the count was one hand short: this was that hand
            self._after_hand = False
            self._counting = True
        return self._counting

    def counted(self) -> bool:
        """The count came: it is no longer awaited. Whether it may be one hand short (that hand not
        taken yet)."""
        one_short_allowed = self._hand_first
        self._counting = self._hand_first = False
        return one_short_allowed

    def one_hand_short(self) -> None:
        self._after_hand = True

    def reset(self) -> None:
        self._counting = self._hand_first = self._after_hand = False


class Dealing:
    def __init__(self, clerk: Clerk, holds: Holds, config: TableConfig) -> None:
        self._clerk = clerk
        self._holds = holds
        self._config = config
        self._asked: int | None = None          # the hand asked of the shoe and not yet delivered
        self._restart = RestartCount()

    # --- what entering a state asks of the shoe (the model calls these) ---------------------

    def shuffle(self, rnd: Round) -> None:
        """Betting opens (or resumes after a restart, when the shoe may have restarted too): shuffle
        this round's deck; no card is out yet."""
        self._clerk.fact("shuffle", deck=rnd.deck)
        self._holds.set("shoe-shuffle", None)      # a new shuffle: its own time limit
        self._clerk.emit(Shuffle(rnd.deck))

    def check_deck_again(self) -> None:
        """Recovered after a restart with the wagers closed: the deck check asked before it was lost."""
        if not self._clerk.open_round.deck_checked:
            self._clerk.emit(CheckDeck())

    def deal(self, recovering: bool) -> None:
        """Dealing begins, resumes after a hold, or is recovered after a restart."""
        if recovering:
            # Cards may have left the shoe while no one was recording: count them before dealing on.
            # The hand asked for just before the restart may be formed: it alone may come first.
            self._restart.begin()
            self.ask_count()
        elif self._restart.counting():      # a hold came before the count: the count asks for a hand
            self.ask_count()
        else:
            self.request_next_hand()

    def counting(self) -> bool:
        """After a restart, the shoe's count is asked for and has not agreed yet."""
        return self._restart.counting()

    def shoe_back(self) -> None:
        """The shoe answers again: asked for its status (its door and jam flags set or lift the holds),
        and for what it was asked before the link was lost."""
        clerk = self._clerk
        clerk.emit(AskShoeStatus())
        rnd = clerk.round
        if clerk.state == "betting" and rnd and not rnd.shuffled:
            clerk.emit(Shuffle(rnd.deck))
        elif clerk.state in ("betting", "closed") and rnd and not rnd.deck_checked:
            clerk.emit(CheckDeck())             # the check asked before the link was lost: ask again

    def command_failed(self, command: str) -> None:
        """A command the shoe never acknowledged (a shoe quiet for less than the link's silence timeout
        is never offline, so no return asks again): the shuffle or deck check the round still waits for
        is asked again. Before, the round waited "Shoe shuffling" until a supervisor voided it (the
        million-round campaign, seed 100177 round 486)."""
        clerk, rnd = self._clerk, self._clerk.round
        if rnd is None:
            return
        if command == "Shuffle" and clerk.state == "betting" and not rnd.shuffled:
            clerk.emit(Shuffle(rnd.deck))
        elif command == "DeckCheck" and clerk.state in ("betting", "closed") and not rnd.deck_checked:
            clerk.emit(CheckDeck())

    def held(self) -> None:
        self._clerk.cancel(HAND_TIMER)

    def stop(self) -> None:
        """The round is void: nothing more is asked of the shoe for it."""
        self._clerk.cancel(HAND_TIMER)
        self._asked = None
        self._restart.reset()

    # --- the shoe's facts -------------------------------------------------------------------

    def on_shoe(self, fact: ShoeFact) -> None:
        if isinstance(fact, ShuffleDone):
            self._shuffled(fact)
        elif isinstance(fact, HandDealt):
            self._hand(fact)
        elif isinstance(fact, ShoeCount):
            self._counted(fact)
        elif isinstance(fact, ShoeJam):
            if fact.jammed:
                self._clerk.journal.table_event("jam", {"code": fact.code, "description": fact.description})
            self._holds.set("shoe-jam", f"Shoe jammed ({fact.description}): {JAM_ADVICE}" if fact.jammed else None)
        elif isinstance(fact, ShoeDoor):
            if fact.open:
                self._clerk.journal.table_event("door", {"open": True})
            self._holds.set("shoe-door", "Shoe door open: close the shoe's door" if fact.open else None)
        elif isinstance(fact, DeviceTrouble):
            self._clerk.alert("shoe_error", f"The shoe reports a fault: {fact.text} (its code {fact.code})")
        elif isinstance(fact, DeckChecked):
            self._deck_checked(fact)
        elif isinstance(fact, ShuffleLate):
            self._shuffle_late(fact)
        elif isinstance(fact, ShoeMiscounted):
            self._miscounted(fact.text)

    def _accepts(self, fact: str) -> bool:
        return self._clerk.round is not None and self._clerk.state in procedure.SHOE_FACTS[fact]

    # --- the shuffle ------------------------------------------------------------------------

    def _shuffled(self, fact: ShuffleDone) -> None:
        self._holds.set("shoe-shuffle", None)          # whatever shuffle it was, the shoe is not stuck
        rnd = self._clerk.round
        if not self._accepts("shuffled") or rnd is None or rnd.shuffled or fact.deck != rnd.deck:
            return                                   # the reshuffle after a void, or the other deck
        self._clerk.fact("shuffled", deck=fact.deck, count=fact.count)
        if fact.count != 52:
            self.void_for_deck(f"the shoe counted {fact.count} cards after the shuffle, not 52")
            return
        self._clerk.emit(CheckDeck())                       # its composition, before any card is dealt

    def _deck_checked(self, fact: DeckChecked) -> None:
        rnd = self._clerk.round
        problem = None if fact.ok else (
            f"the deck check found {fact.count} cards" + "".join(
                f", {what} {', '.join(card_text(c) for c in cards)}" for what, cards in (
                    ("missing", fact.missing), ("read twice", fact.duplicates),
                    ("of another deck", [c for c, _ in fact.foreign if c is not None])) if cards)
            + (f", {sum(c is None for c, _ in fact.foreign)} unreadable" if any(c is None for c, _ in fact.foreign)
               else ""))
        if (not self._accepts("deck_check") or rnd is None or not rnd.shuffled or rnd.deck_checked
                or fact.deck != rnd.deck):
            if problem:                              # a check nobody asked for, or of another deck
                self._clerk.alert("deck_check", f"Deck check failed: {problem}")
            return
        self._clerk.fact("deck_check", deck=fact.deck, ok=fact.ok, count=fact.count, missing=list(fact.missing),
                         duplicates=list(fact.duplicates),
                         foreign=[[UNREADABLE if c is None else c, d] for c, d in fact.foreign])
        if problem:
            self.void_for_deck(problem)

    def void_for_deck(self, problem: str) -> None:
        """The deck is not 52 cards of the deck in play: a misdeal before any card reaches a player."""
        self._clerk.alert("misdeal", f"Misdeal: {problem}. No card is dealt; return the wagers and have the deck "
                          "checked and completed before the next round.")
        self._clerk.fire("deck_failed", reason=problem)

    def _miscounted(self, text: str) -> None:
        """The shoe's own count error: before the deal a failed deck, during it a misdeal."""
        if self._clerk.state in ("betting", "closed") and self._clerk.round is not None:
            self.void_for_deck(f"the shoe reports a count error ({text})")
        elif self._clerk.round_state == "dealing":         # a hold stopping the deal changes nothing
            reason = f"the shoe reports a count error ({text})"
            self._clerk.alert("misdeal", f"Misdeal: {reason}. All hands are void; return the wagers.")
            self._clerk.fire("misdeal", reason=reason)
        else:
            self._clerk.alert("shoe_error", f"The shoe reports a fault: {text}")

    def _shuffle_late(self, fact: ShuffleLate) -> None:
        """Past the shoe's shuffle limit: the dealer is told, and nothing is dealt until it completes
        (the hold lifts by itself then) or the round is voided."""
        rnd = self._clerk.round
        if not self._accepts("shuffled") or rnd is None or rnd.shuffled or fact.deck != rnd.deck:
            return
        why = f"The shoe has not finished shuffling within {fact.seconds:g} s"
        self._clerk.alert("shuffle_late", f"{why}: check the shoe (door, jam, cards) or call a technician")
        self._holds.set("shoe-shuffle", f"{why}: check the shoe or call a technician")

    # --- hands ------------------------------------------------------------------------------

    def request_next_hand(self) -> None:
        rnd = self._clerk.open_round
        if self._holds or rnd.hands_received >= rnd.hands_needed:
            return
        self._asked = rnd.hands_received + 1
        self._clerk.emit(DealHand(self._asked))
        self._clerk.schedule(HAND_TIMER, self._config.hand_timeout)

    def _hand(self, fact: HandDealt) -> None:
        cards = [[UNREADABLE if card is None else card, deck] for card, deck in fact.cards]
        rnd = self._clerk.round
        if rnd is not None and rnd.hand_cards.get(fact.hand_no) == tuple(map(tuple, cards)):
            # the same hand reported again (a reconnect lost its ACK, or we asked again): no new fact
            self._clerk.log.info("shoe.hand_repeated", round=rnd.id, state=self._clerk.state, hand=fact.hand_no)
            return
        asked = self._asked
        kept = (asked is None and self._restart.hand_may_come_first() and self._clerk.round_state == "dealing"
                and rnd is not None)
        if kept and rnd is not None:
            # the hand the process before a restart asked for, formed and kept by the shoe, arriving
            # before its count: it is the round's next hand (taken for a dead hand, the shoe's answer
            # to our asking again was the same cards "read twice": found by the soak), also while a
            # hold stops the deal (its cards left the shoe before the hold). One only: the count,
            # exact from then on, says whether any other card left the shoe
            asked = rnd.hands_received + 1
        # the hand asked for, arriving after a hold stopped the deal (a device lost mid-deal): its
        # cards left the shoe at our asking, so it is its position's hand. Taken for a dead hand, the
        # shoe's answer to the asking again after the hold was the same cards "read twice" (the
        # 100,000-round soak: a sensors drop while dealing voided the round, 55 times)
        in_hold = self._clerk.state == "held" and self._clerk.round_state == "dealing" and asked is not None
        if not (kept or in_hold or self._accepts("hand")) or fact.hand_no != asked:
            if self._clerk.round is not None and self._clerk.state in procedure.DEAD_HAND_STATES:
                self._clerk.fact("hand", hand_no=fact.hand_no, target=DEAD_HAND, cards=cards)
            self._clerk.alert("dead_hand", f"A hand came from the shoe for no position (hand {fact.hand_no}): "
                              "collect it unseen as a dead hand")
            return
        rnd = self._clerk.open_round
        self._clerk.cancel(HAND_TIMER)
        self._asked = None
        self._restart.hand_taken()
        target = rnd.target_of(rnd.hands_received)
        problem = card_problem(fact.cards, target, set(rnd.dealt_cards()), rnd.deck)
        stamp = {"device_time": fact.device_time} if fact.device_time else {}     # the shoe's clock
        # the evidence, even of a misdeal
        self._clerk.fact("hand", hand_no=fact.hand_no, target=target, cards=cards, **stamp)
        if problem:
            self._clerk.alert("misdeal", f"Misdeal: {problem}. All hands are void; return the wagers.")
            self._clerk.fire("misdeal", reason=problem)
            return
        if self._restart.count_after_hand():    # the count asks for the next hand once it agrees
            self.ask_count()
        else:
            self.request_next_hand()

    def ask_count(self) -> None:
        """The shoe's count after a restart, with the hand timer as its deadline (an answer lost on
        the line must not leave the round waiting without a word)."""
        self._clerk.emit(AskShoeStatus())
        self._clerk.schedule(HAND_TIMER, self._config.hand_timeout)

    def on_hand_late(self) -> None:
        """The hand timer: the shoe has not delivered the hand asked for (or its count after a
        restart); ask again."""
        if self._clerk.state == "dealing" and self._restart.counting():
            self._clerk.alert("shoe_slow", "The shoe has not reported its count within "
                              f"{self._config.hand_timeout:g} s; asking again")
            self.ask_count()
        elif self._clerk.state == "dealing" and self._asked:
            self._clerk.alert("shoe_slow", f"The shoe has not delivered hand {self._asked} within "
                              f"{self._config.hand_timeout:g} s; asking again")
            self._clerk.emit(DealHand(self._asked))
            self._clerk.schedule(HAND_TIMER, self._config.hand_timeout)

    # --- the count after a restart ---------------------------------------------------------

    def _counted(self, fact: ShoeCount) -> None:
        # the shoe's own word on its door and jam: what a reconnect may have kept us from hearing
        self._holds.set("shoe-door", "Shoe door open: close the shoe's door" if fact.door_open else None)
        self._holds.set("shoe-jam", f"Shoe jammed: {JAM_ADVICE}" if fact.jammed else None)
        if not self._restart.counting() or not self._accepts("count"):
            return
        one_short_allowed = self._restart.counted()         # that hand not taken yet
        self._clerk.cancel(HAND_TIMER)
        rnd = self._clerk.open_round
        expected = rnd.shoe_count - rnd.cards_dealt
        if fact.remaining == expected - 3 and one_short_allowed and rnd.hands_received < rnd.hands_needed:
            # one hand short: the hand the controller before the restart asked for, formed and not yet
            # reported (only one is ever asked at a time). Asked for again, the shoe reports that hand
            # (it never forms a second one, docs/protocols/shoe.md); counted again once it is in, so
            # three cards gone with no hand formed are still found
            self._restart.one_hand_short()
            self._clerk.log.info("shoe.hand_formed_before_restart", round=rnd.id, hand=rnd.hands_received + 1)
        elif fact.remaining != expected:
            reason = (f"cards left the shoe while the controller was down (the shoe holds "
                      f"{fact.remaining}, the journal expects {expected})")
            self._clerk.alert("misdeal", f"Misdeal: {reason}. All hands are void; return the wagers.")
            self._clerk.fire("misdeal", reason=reason)
            return
        self.request_next_hand()
