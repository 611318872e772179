"""The card shoe / hand-forming shuffler protocol: messages (sans-I/O).

Wire format: frames and link rules of drivers/wire/framing.py and drivers/wire/link.py;
message payloads per drivers/wire/messages.py. Specification with hex examples:
docs/protocols/shoe.md.

Host -> shoe: Hello 0x10, Shuffle 0x11, DeliverHand 0x12, DeckCheck 0x13,
StatusRequest 0x14.
Shoe -> host: HelloReply 0x90, ShuffleComplete 0x91, HandDelivered 0x92,
DeckCheckResult 0x93, Status 0x94, Jam 0x95, Door 0x96, ShoeFault 0x97.

A card is one byte ``rank*4 + suit`` (rank 0 = deuce .. 12 = ace; suit 0..3 =
clubs, diamonds, hearts, spades) or 0xFF for a card the reader could not
read, followed by a deck-id byte (the back design it read; 1 or 2 on a
two-deck table, any other number a back the table does not use).

Every field is range-checked when a message is built, so when it is decoded
(a bad one is NAKed with reason 2). A Jam takes any code (an unknown jam is
still a jam, reported by its number); a ShoeFault's code is one of
``SHOE_FAULTS`` and any other is refused: the host acts on the code (a count
error is a misdeal), so it must know what it means.
"""

from __future__ import annotations

from drivers.wire.messages import CARDS, DEVICE, HOST, TEXT, U8, U8_LIST, Catalog, Message, in_range

PROTOCOL_VERSION = 1
UNREADABLE = 0xFF
STATUS_READY, STATUS_DOOR_OPEN, STATUS_JAMMED, STATUS_SHUFFLING = 1, 2, 4, 8
STATUS_FLAGS = STATUS_READY | STATUS_DOOR_OPEN | STATUS_JAMMED | STATUS_SHUFFLING
DECKS = (1, 2)
JAM_CLEARED = 0
JAM_CODES = {0: "cleared", 1: "card stuck in the feed", 2: "elevator blocked",
             3: "delivery tray blocked", 4: "card reader fault"}
# ShoeFault codes (docs/protocols/shoe.md): what the shoe could not do, and why
FAULT_JAMMED, FAULT_DOOR_OPEN, FAULT_NO_DECK, FAULT_RECOGNITION, FAULT_COUNT = 1, 2, 3, 4, 5
FAULT_HAND_SEQUENCE, FAULT_SHUFFLE, FAULT_HARDWARE = 6, 7, 8
SHOE_FAULTS = {
    FAULT_JAMMED: "jammed",                             # a command it cannot carry out while jammed
    FAULT_DOOR_OPEN: "door open",
    FAULT_NO_DECK: "no deck loaded",
    FAULT_RECOGNITION: "card recognition failure",      # the reader cannot identify cards at all
    FAULT_COUNT: "count error",                         # the shoe's own count of the deck is wrong
    FAULT_HAND_SEQUENCE: "hand out of sequence",        # DeliverHand skipping a hand number
    FAULT_SHUFFLE: "shuffle failed",
    FAULT_HARDWARE: "hardware fault",
}

catalog = Catalog("shoe")


def _check_cards(cards: tuple[tuple[int, int], ...]) -> None:
    for card, _deck in cards:
        if card > 51 and card != UNREADABLE:
            raise ValueError(f"card code {card} is not 0-51 or 0xFF")


def _check_deck(deck: int) -> None:
    in_range("deck", deck, DECKS[0], DECKS[-1])


def _check_hand(hand_no: int) -> None:
    in_range("hand number", hand_no, 1, 255)


@catalog.message(0x10, HOST, U8)
class Hello(Message):
    protocol_version: int = PROTOCOL_VERSION


@catalog.message(0x11, HOST, U8)
class Shuffle(Message):
    deck: int = 1

    def __post_init__(self) -> None:
        _check_deck(self.deck)


@catalog.message(0x12, HOST, U8)
class DeliverHand(Message):
    hand_no: int

    def __post_init__(self) -> None:
        _check_hand(self.hand_no)


@catalog.message(0x13, HOST)
class DeckCheck(Message):
    pass


@catalog.message(0x14, HOST)
class StatusRequest(Message):
    pass


@catalog.message(0x90, DEVICE, U8, U8, TEXT, TEXT)
class HelloReply(Message):
    protocol_version: int
    decks: int
    firmware: str
    serial: str

    def __post_init__(self) -> None:
        in_range("decks", self.decks, 1, len(DECKS))


@catalog.message(0x91, DEVICE, U8, U8)
class ShuffleComplete(Message):
    deck: int
    count: int

    def __post_init__(self) -> None:
        _check_deck(self.deck)


@catalog.message(0x92, DEVICE, U8, CARDS)
class HandDelivered(Message):
    hand_no: int
    cards: tuple[tuple[int, int], ...]      # ((card, deck), ...) in the order read

    def __post_init__(self) -> None:
        _check_hand(self.hand_no)
        _check_cards(self.cards)


@catalog.message(0x93, DEVICE, U8, U8, U8_LIST, U8_LIST, CARDS)
class DeckCheckResult(Message):
    deck: int
    count: int
    missing: tuple[int, ...]                # card codes of the deck in play not found
    duplicates: tuple[int, ...]             # card codes read more than once
    foreign: tuple[tuple[int, int], ...]    # ((card, deck), ...) not of the deck in play

    def __post_init__(self) -> None:
        _check_deck(self.deck)
        _check_cards(self.foreign)
        for card in (*self.missing, *self.duplicates):
            if card > 51:
                raise ValueError(f"card code {card} is not 0-51")

    @property
    def ok(self) -> bool:
        return self.count == 52 and not (self.missing or self.duplicates or self.foreign)


@catalog.message(0x94, DEVICE, U8, U8, U8)
class Status(Message):
    flags: int
    remaining: int
    deck: int

    def __post_init__(self) -> None:
        if self.flags & ~STATUS_FLAGS:
            raise ValueError(f"status flags 0x{self.flags:02x} set bits other than 0-3")
        _check_deck(self.deck)


@catalog.message(0x95, DEVICE, U8)
class Jam(Message):
    code: int               # 0 = cleared

    @property
    def description(self) -> str:
        return JAM_CODES.get(self.code, f"jam code {self.code}")


@catalog.message(0x96, DEVICE, U8)
class Door(Message):
    open: int               # 1 open, 0 closed

    def __post_init__(self) -> None:
        in_range("door", self.open, 0, 1)


@catalog.message(0x97, DEVICE, U8, TEXT)
class ShoeFault(Message):
    code: int               # one of SHOE_FAULTS
    text: str               # the shoe's own words, for the log and the dealer

    def __post_init__(self) -> None:
        if self.code not in SHOE_FAULTS:
            raise ValueError(f"fault code {self.code} is not one of "
                             f"{', '.join(f'{c} ({w})' for c, w in SHOE_FAULTS.items())}")

    @property
    def description(self) -> str:
        return SHOE_FAULTS[self.code]


host_decode = catalog.decoder(HOST)       # what the host accepts: shoe messages
device_decode = catalog.decoder(DEVICE)   # what the shoe accepts: host commands
