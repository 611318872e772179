"""Simulated hand-forming shuffler with card recognition (device side of the shoe protocol).

Owns a seeded deck (one, or two distinguishable decks used alternately as on
sheet 000), shuffling, forming hands of three in order, reading the cards and
answering deck checks. Faults for tests and the CLI: the next hand short or
long, a card read twice, a card from the other deck while the count still
reads 52, an unreadable card, a jam, the door opening.
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

    # --- the host's commands ---------------------------------------------------------

    def handle(self, message, now: float) -> None:
        if isinstance(message, proto.Hello):
            self.emit(proto.HelloReply(proto.PROTOCOL_VERSION, self.decks, "SIM-SHOE-1.0", "SIM0001"))
        elif isinstance(message, proto.Shuffle):
            self.shuffle(message.deck)
            self.emit(proto.ShuffleComplete(self.deck, len(self.stack)))
        elif isinstance(message, proto.DeliverHand):
            if self.jammed or self.door_open:
                self.emit(proto.ShoeFault(1, "jammed" if self.jammed else "door open"))
                return
            self.emit(proto.HandDelivered(message.hand_no, self._form_hand()))
        elif isinstance(message, proto.DeckCheck):
            self.emit(self.deck_check())
        elif isinstance(message, proto.StatusRequest):
            self.emit(proto.Status(self.flags, len(self.stack), self.deck))

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
        seen += self.stack
        duplicates = tuple(sorted({c for c in seen if seen.count(c) > 1}))
        missing = tuple(sorted(set(range(52)) - set(seen)))
        foreign = tuple((c, d) for c, d in self.dealt if d != self.deck)
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
