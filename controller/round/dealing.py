"""Dealing: the shoe's facts, hands asked for one at a time, and the cards checked as they come.

Owns the round's side of the shoe: the shuffle for this round's deck, one
hand asked for at a time (positions from the dealer's left, then the
dealer's), every dealt card checked (three cards, readable, of the deck in
play, none seen twice; anything else is a misdeal that voids the round), a
shoe that is slow to deliver asked again, the count after a restart (cards
that left the shoe unrecorded void the round), and the holds a jam or an
open door puts on the round. Which state takes which shoe fact is
``machine.SHOE_FACTS``.
"""

from __future__ import annotations

from controller.round import machine as procedure
from controller.round.core import TableCore
from controller.round.facts import DEAD_HAND, DEALER, UNREADABLE
from controller.round.ports import DealHand
from controller.rules.cards import card_text
from drivers.events import Card, DeckChecked, DeviceTrouble, HandDealt, ShoeCount, ShoeDoor, ShoeJam, ShuffleDone

HAND_TIMER = "hand"

ShoeFact = ShuffleDone | HandDealt | ShoeCount | ShoeJam | ShoeDoor | DeckChecked | DeviceTrouble


class DealingDuties(TableCore):
    outstanding_hand: int | None            # the hand asked of the shoe and not yet delivered
    counting_after_recovery: bool           # a restarted dealing round waits for the shoe's count

    def on_shoe(self, fact: ShoeFact) -> None:
        if isinstance(fact, ShuffleDone):
            self._shuffled(fact)
        elif isinstance(fact, HandDealt):
            self._hand(fact)
        elif isinstance(fact, ShoeCount):
            self._counted(fact)
        elif isinstance(fact, ShoeJam):
            if fact.jammed:
                self.journal.table_event("jam", {"code": fact.code, "description": fact.description})
            self.set_hold("shoe-jam", f"Shoe jammed ({fact.description}): clear the jam and close the shoe's door"
                          if fact.jammed else None)
        elif isinstance(fact, ShoeDoor):
            if fact.open:
                self.journal.table_event("door", {"open": True})
            self.set_hold("shoe-door", "Shoe door open: close the shoe's door" if fact.open else None)
        elif isinstance(fact, DeviceTrouble):
            self.alert("shoe_error", f"The shoe reports a fault: {fact.text} (its code {fact.code})")
        elif isinstance(fact, DeckChecked) and not fact.ok:
            self.alert("deck_check", f"Deck check failed: count {fact.count}, missing {len(fact.missing)}, "
                       f"duplicated {len(fact.duplicates)}, foreign {len(fact.foreign)}")

    def _accepts(self, fact: str) -> bool:
        return self.round is not None and self.state in procedure.SHOE_FACTS[fact]

    # --- the shuffle ------------------------------------------------------------------------

    def _shuffled(self, fact: ShuffleDone) -> None:
        rnd = self.round
        if not self._accepts("shuffled") or rnd is None or rnd.shuffled or fact.deck != rnd.deck:
            return                                   # the reshuffle after a void, or the other deck
        self.fact("shuffled", deck=fact.deck, count=fact.count)
        if fact.count != 52:
            self.alert("deck_count", f"The shoe counted {fact.count} cards after the shuffle, not 52; "
                       "check the deck before dealing")

    def shoe_problem(self) -> str | None:
        for key in ("shoe-jam", "shoe-door", "shoe"):
            if key in self.holds:
                return self.holds[key]
        return None

    # --- hands ------------------------------------------------------------------------------

    def request_next_hand(self) -> None:
        rnd = self.open_round
        if self.holds or rnd.hands_received >= rnd.hands_needed:
            return
        self.outstanding_hand = rnd.hands_received + 1
        self.emit(DealHand(self.outstanding_hand))
        self.schedule(HAND_TIMER, self.config.hand_timeout)

    def _hand(self, fact: HandDealt) -> None:
        cards = [[UNREADABLE if card is None else card, deck] for card, deck in fact.cards]
        if not self._accepts("hand") or fact.hand_no != self.outstanding_hand:
            if self.round is not None and self.state in procedure.DEAD_HAND_STATES:
                self.fact("hand", hand_no=fact.hand_no, target=DEAD_HAND, cards=cards)
            self.alert("dead_hand", f"A hand came from the shoe for no position (hand {fact.hand_no}): "
                       "collect it unseen as a dead hand")
            return
        rnd = self.open_round
        self.cancel(HAND_TIMER)
        self.outstanding_hand = None
        target = rnd.target_of(rnd.hands_received)
        problem = self.card_problem(fact.cards, target, set(rnd.dealt_cards()), rnd.deck)
        self.fact("hand", hand_no=fact.hand_no, target=target, cards=cards)   # the evidence, even of a misdeal
        if problem:
            self.alert("misdeal", f"Misdeal: {problem}. All hands are void; return the wagers.")
            self.trigger("misdeal", reason=problem)
            return
        self.request_next_hand()

    @staticmethod
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

    def on_hand_late(self) -> None:
        """The hand timer: the shoe has not delivered the hand asked for; ask again."""
        if self.state == "dealing" and self.outstanding_hand:
            self.alert("shoe_slow", f"The shoe has not delivered hand {self.outstanding_hand} within "
                       f"{self.config.hand_timeout:g} s; asking again")
            self.emit(DealHand(self.outstanding_hand))
            self.schedule(HAND_TIMER, self.config.hand_timeout)

    def stop_dealing(self) -> None:
        self.cancel(HAND_TIMER)
        self.outstanding_hand = None

    # --- the count after a restart ---------------------------------------------------------

    def _counted(self, fact: ShoeCount) -> None:
        if not self.counting_after_recovery or not self._accepts("count"):
            return
        self.counting_after_recovery = False
        rnd = self.open_round
        expected = rnd.shoe_count - rnd.cards_dealt
        if fact.remaining != expected:
            reason = (f"cards left the shoe while the controller was down (the shoe holds "
                      f"{fact.remaining}, the journal expects {expected})")
            self.alert("misdeal", f"Misdeal: {reason}. All hands are void; return the wagers.")
            self.trigger("misdeal", reason=reason)
            return
        self.request_next_hand()
