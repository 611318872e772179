"""The bet-spot sensor controller protocol: messages (sans-I/O).

Wire format: frames and link rules of drivers/wire/framing.py and drivers/wire/link.py;
message payloads per drivers/wire/messages.py. Specification with hex examples:
docs/protocols/sensors.md.

Positions are numbered 1..N from the dealer's left. Spots: 0 Ante, 1 Play,
2 Pair Plus, 3 6 Card Bonus, 4 Super 6. A chip value is a u32 in cents, or
0xFFFFFFFF where the sensor sees presence only (no RFID chips).

Host -> sensors: Hello 0x10, Lock 0x11, Lamp 0x12, SnapshotRequest 0x13.
Sensors -> host: HelloReply 0x90, SpotReading 0x91, Snapshot 0x92, SensorFault 0x93.

Every field is range-checked when a message is built, so when it is decoded: a
spot state other than 0 or 1 anywhere in a Snapshot is a bad message (NAK 2),
never a reading that fails later in the driver.
"""

from __future__ import annotations

from collections.abc import Iterable

from drivers.wire.link_words import MessageError
from drivers.wire.messages import DEVICE, HOST, TEXT, U8, U32, Catalog, Field, Message, in_range

PROTOCOL_VERSION = 1
SPOTS = ("ante", "play", "pair_plus", "six_card_bonus", "super6")
ALL_POSITIONS = 0
ALL_SPOTS = 0x1F
UNKNOWN_VALUE = 0xFFFFFFFF
LAMP_OFF, LAMP_ON, LAMP_FLASH = 0, 1, 2
LAMP_MODES = {"off": LAMP_OFF, "on": LAMP_ON, "flash": LAMP_FLASH}
EMPTY, CHIPS = 0, 1

catalog = Catalog("sensors")
PAIR = 5                        # a spot in a Snapshot: u8 state, u32 value
ROW = PAIR * len(SPOTS)         # a Snapshot's bytes per position
Pair = tuple[int, int]          # (state, value)
Row = tuple[Pair, ...]          # a position's five spots, spot 0 first


class SpotRows(Field):
    """A Snapshot's rows: a count byte, then per position five (u8 state, u32 value) pairs."""

    def __init__(self) -> None:
        super().__init__("rows of (state, value) pairs", None)

    def encode(self, value: tuple[Row, ...]) -> bytes:
        if len(value) > 255:
            raise ValueError("at most 255 rows")
        return bytes((len(value),)) + b"".join(bytes((state,)) + amount.to_bytes(4, "big")
                                               for row in value for state, amount in row)

    def decode(self, data: bytes, at: int) -> tuple[tuple[Row, ...], int]:
        if at >= len(data):
            raise MessageError(f"payload ends before the row count at byte {at}")
        count = data[at]
        end = at + 1 + count * ROW
        if end > len(data):
            raise MessageError(f"{count} rows at byte {at} run past the payload")
        rows = tuple(tuple((data[i], int.from_bytes(data[i + 1:i + PAIR], "big"))
                           for i in range(start, start + ROW, PAIR))
                     for start in range(at + 1, end, ROW))
        return rows, end


def spot_code(name: str) -> int:
    """A spot's number on the wire, from its name; ValueError for a name that is no spot."""
    try:
        return SPOTS.index(name)
    except ValueError:
        raise ValueError(f"spot {name!r} unknown; spots are {', '.join(SPOTS)}") from None


def spot_mask(names: Iterable[str]) -> int:
    """The Lock message's bit mask for these spot names (bit n = spot n)."""
    mask = 0
    for name in names:
        mask |= 1 << spot_code(name)
    return mask


def _check_spot(spot: int) -> None:
    in_range("spot", spot, 0, len(SPOTS) - 1)


def _check_position(position: int) -> None:
    """A position the sensors report on: 1..255 (0 means "every position" only in a command)."""
    in_range("position", position, 1, 255)


@catalog.message(0x10, HOST, U8)
class Hello(Message):
    protocol_version: int = PROTOCOL_VERSION


@catalog.message(0x11, HOST, U8, U8, U8)
class Lock(Message):
    position: int           # 0 = every position
    spots: int              # bit mask of spots, bit n = spot n
    locked: int             # 1 lock (chips may not change), 0 unlock

    def __post_init__(self) -> None:
        in_range("spot mask", self.spots, 0, ALL_SPOTS)
        in_range("lock", self.locked, 0, 1)


@catalog.message(0x12, HOST, U8, U8, U8)
class Lamp(Message):
    position: int
    spot: int
    mode: int               # 0 off, 1 on, 2 flash

    def __post_init__(self) -> None:
        _check_spot(self.spot)
        in_range("lamp mode", self.mode, LAMP_OFF, LAMP_FLASH)


@catalog.message(0x13, HOST)
class SnapshotRequest(Message):
    pass


@catalog.message(0x90, DEVICE, U8, U8, U8, TEXT, TEXT)
class HelloReply(Message):
    protocol_version: int
    positions: int
    reads_values: int       # 1: RFID chip values; 0: presence only
    firmware: str
    serial: str

    def __post_init__(self) -> None:
        in_range("positions", self.positions, 1, 255)
        in_range("reads values", self.reads_values, 0, 1)


@catalog.message(0x91, DEVICE, U8, U8, U8, U32)
class SpotReading(Message):
    position: int
    spot: int
    state: int              # 0 empty, 1 chips
    value: int              # cents, or UNKNOWN_VALUE

    def __post_init__(self) -> None:
        _check_position(self.position)
        _check_spot(self.spot)
        in_range("spot state", self.state, EMPTY, CHIPS)


@catalog.message(0x92, DEVICE, U8, SpotRows())
class Snapshot(Message):
    """Every spot: ``positions`` (u8), then the row count (u8, equal to ``positions``: kept from
    the first edition of version 1, whose bytes are unchanged), then per position 1..N its five
    spots in spot order, each a (state, value) pair as in a SpotReading (u8, u32)."""
    positions: int
    spots: tuple[Row, ...]                  # per position: 5 x (state, value)

    def __post_init__(self) -> None:
        # Checked here, when the frame is decoded (NAK 2), not when readings() runs in the driver:
        # a bad state byte once killed the sensor driver's thread from inside readings().
        if self.positions != len(self.spots):
            raise ValueError(f"{self.positions} positions but {len(self.spots)} rows of spots")
        for index, row in enumerate(self.spots):
            if len(row) != len(SPOTS):
                raise ValueError(f"position {index + 1}: {len(row)} spots, not {len(SPOTS)}")
            for spot, (state, value) in enumerate(row):
                if state not in (EMPTY, CHIPS):
                    raise ValueError(f"position {index + 1} spot {spot}: spot state {state} is not 0 or 1")
                in_range("value", value, 0, UNKNOWN_VALUE)

    def readings(self) -> list[SpotReading]:
        return [SpotReading(index + 1, spot, state, value)
                for index, row in enumerate(self.spots) for spot, (state, value) in enumerate(row)]

    @staticmethod
    def pack(readings: dict[tuple[int, int], tuple[int, int]], positions: int) -> Snapshot:
        return Snapshot(positions, tuple(tuple(readings.get((position, spot), (EMPTY, 0))
                                               for spot in range(len(SPOTS)))
                                         for position in range(1, positions + 1)))


@catalog.message(0x93, DEVICE, U8, U8, U8)
class SensorFault(Message):
    position: int
    spot: int
    code: int               # 1 blocked, 2 no reading, 3 hardware fault; others reported by number

    def __post_init__(self) -> None:
        _check_position(self.position)
        _check_spot(self.spot)

    @property
    def problem(self) -> str:
        return FAULT_CODES.get(self.code, f"fault code {self.code}")


FAULT_CODES = {1: "blocked", 2: "no reading", 3: "hardware fault"}


host_decode = catalog.decoder(HOST)
device_decode = catalog.decoder(DEVICE)
