"""Simulated hand-forming shuffler with card recognition (device side of the shoe protocol).

Owns a seeded deck (one, or two distinguishable decks used alternately as on
sheet 000), shuffling, forming hands of three in order, reading the cards and
answering deck checks. As a real hand-forming shuffler must (docs/protocols/shoe.md),
it forms each hand of a shuffle once: asked again for a hand it has formed
(the host lost the report in a reconnect), it reports that same hand again.
Faults for tests and the CLI: the next hand short or long, a card read twice,
a card from the other deck while the count still reads 52, an unreadable
card, a jam, the door opening, the next shuffle short a card or with a card of
the other deck in it, a shuffle that never completes.
"""

from __future__ import annotations

import random

from drivers.wire import shoe_protocol as proto
from simulators.devices.framed import FramedDevice


class SimulatedShoe(FramedDevice):
    catalog = proto.catalog
    decode = proto.device_decode

    def __init__(self, port, *, seed: int = 1, decks: int = 1, **kwargs):
        super().__init__(port, **kwargs)
        self.rng = random.Random(seed)
        self.decks = decks
        self.deck = 1
        self.stack: list[int] = []
        self.dealt: list[tuple[int, int]] = []
        self.jammed = 0
        self.door_open = False
        self.next_hand_size: int | None = None
        self.repeat_next_card = False
        self.foreign_next_card = False
        self.unreadable_next_card = False
        self.planned: list[int] = []       # cards the next shuffle puts on top, in dealing order
        self.hands: dict[int, tuple[tuple[int, int], ...]] = {}     # formed since the shuffle, by number
        self.deck_fault: str | None = None   # the next shuffle's deck: "short" (51 cards) or "foreign"
        self.shuffle_stalls = False          # the next shuffle never completes (a stuck elevator)
        self.foreign_in_deck: list[tuple[int, int]] = []     # cards in the stack of another deck

    # --- the host's commands ---------------------------------------------------------

    def handle(self, message, now: float) -> None:
        if isinstance(message, proto.Hello):
            self.emit(proto.HelloReply(proto.PROTOCOL_VERSION, self.decks, "SIM-SHOE-1.0", "SIM0001"))
        elif isinstance(message, proto.Shuffle):
            self.shuffle(message.deck)
            if self.shuffle_stalls:
                self.shuffle_stalls = False
                return
            self.emit(proto.ShuffleComplete(self.deck, len(self.stack)))
        elif isinstance(message, proto.DeliverHand):
            self.deliver(message.hand_no)
        elif isinstance(message, proto.DeckCheck):
            self.emit(self.deck_check())
        elif isinstance(message, proto.StatusRequest):
            self.emit(proto.Status(self.flags, len(self.stack), self.deck))

    def deliver(self, hand_no: int) -> None:
        """A hand formed once per number: asked again, the same hand is reported again."""
        if hand_no in self.hands:
            self.emit(proto.HandDelivered(hand_no, self.hands[hand_no]))
        elif self.jammed or self.door_open:
            self.emit(proto.ShoeFault(proto.FAULT_JAMMED if self.jammed else proto.FAULT_DOOR_OPEN,
                                      "no hand delivered"))
        elif hand_no != len(self.hands) + 1:
            self.emit(proto.ShoeFault(proto.FAULT_HAND_SEQUENCE,
                                      f"hand {hand_no} asked for; next is {len(self.hands) + 1}"))
        else:
            self.hands[hand_no] = self._form_hand()
            self.emit(proto.HandDelivered(hand_no, self.hands[hand_no]))

    @property
    def flags(self) -> int:
        flags = 0 if self.jammed or self.door_open else proto.STATUS_READY
        flags |= proto.STATUS_DOOR_OPEN if self.door_open else 0
        return flags | (proto.STATUS_JAMMED if self.jammed else 0)

    def shuffle(self, deck: int) -> None:
        with self.lock:
            self.deck = deck if 1 <= deck <= self.decks else 1
            self.stack = list(range(52))
            self.rng.shuffle(self.stack)
            if self.planned:                # a test's stacked deck: these come out first, in order
                rest = [c for c in self.stack if c not in self.planned]
                self.stack, self.planned = rest + self.planned[::-1], []
            self.dealt = []
            self.hands = {}
            self.foreign_in_deck = []
            if self.deck_fault == "short":
                self.stack.pop(0)                        # a card missing from the deck loaded
            elif self.deck_fault == "foreign":           # one card is the other deck's: still 52
                self.foreign_in_deck = [(self.stack[0], 2 if self.deck == 1 else 1)]
            self.deck_fault = None

    def _form_hand(self) -> tuple[tuple[int, int], ...]:
        size = self.next_hand_size or 3
        self.next_hand_size = None
        hand: list[tuple[int, int]] = []
        for _ in range(size):
            if self.repeat_next_card and hand:
                self.repeat_next_card = False
                hand.append(hand[-1])                    # the reader saw one card twice
                continue
            card = self.stack.pop() if self.stack else proto.UNREADABLE
            deck = self.deck
            if self.foreign_next_card:
                self.foreign_next_card = False
                deck = 2 if self.deck == 1 else 1        # a card from the other deck got in
            if self.unreadable_next_card:
                self.unreadable_next_card = False
                card = proto.UNREADABLE
            hand.append((card, deck))
        self.dealt.extend(hand)
        return tuple(hand)

    def deck_check(self) -> proto.DeckCheckResult:
        seen = [c for c, d in self.dealt if d == self.deck and c != proto.UNREADABLE]
        foreign_cards = {c for c, _ in self.foreign_in_deck}
        seen += [c for c in self.stack if c not in foreign_cards]
        duplicates = tuple(sorted({c for c in seen if seen.count(c) > 1}))
        missing = tuple(sorted(set(range(52)) - set(seen)))
        foreign = tuple((c, d) for c, d in self.dealt if d != self.deck) + tuple(self.foreign_in_deck)
        return proto.DeckCheckResult(self.deck, min(255, len(seen) + len(foreign)), missing,
                                     duplicates, foreign)

    # --- faults ------------------------------------------------------------------------

    def jam(self, code: int = 1) -> None:
        with self.lock:
            self.jammed = code
        self.emit(proto.Jam(code))

    def clear_jam(self) -> None:
        with self.lock:
            self.jammed = 0
        self.emit(proto.Jam(proto.JAM_CLEARED))

    def set_door(self, open_: bool) -> None:
        with self.lock:
            self.door_open = open_
        self.emit(proto.Door(int(open_)))
