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

from drivers.wire.messages import DEVICE, HOST, TEXT, U8, U32, ByteList, Catalog, Message, in_range

PROTOCOL_VERSION = 1
SPOTS = ("ante", "play", "pair_plus", "six_card_bonus", "super6")
ALL_POSITIONS = 0
ALL_SPOTS = 0x1F
UNKNOWN_VALUE = 0xFFFFFFFF
LAMP_OFF, LAMP_ON, LAMP_FLASH = 0, 1, 2
LAMP_MODES = {"off": LAMP_OFF, "on": LAMP_ON, "flash": LAMP_FLASH}
EMPTY, CHIPS = 0, 1

catalog = Catalog("sensors")
SPOT_STATES = ByteList(5)       # per spot: state byte + u32 value
ROW = 5 * len(SPOTS)            # a Snapshot's bytes per position


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


@catalog.message(0x92, DEVICE, U8, ByteList(ROW))
class Snapshot(Message):
    positions: int
    spots: tuple[tuple[int, ...], ...]      # per position: 5 x (state, value u32) packed as 25 bytes

    def __post_init__(self) -> None:
        # Checked here, when the frame is decoded (NAK 2), not when readings() runs in the driver:
        # a bad state byte once killed the sensor driver's thread from inside readings().
        if self.positions != len(self.spots):
            raise ValueError(f"{self.positions} positions but {len(self.spots)} rows of spots")
        for index, row in enumerate(self.spots):
            if len(row) != ROW:
                raise ValueError(f"position {index + 1}: {len(row)} bytes of spots, not {ROW}")
            for spot in range(len(SPOTS)):
                if row[spot * 5] not in (EMPTY, CHIPS):
                    raise ValueError(f"position {index + 1} spot {spot}: spot state {row[spot * 5]} is not 0 or 1")

    def readings(self) -> list[SpotReading]:
        out = []
        for index, packed in enumerate(self.spots):
            for spot in range(len(SPOTS)):
                state = packed[spot * 5]
                value = int.from_bytes(bytes(packed[spot * 5 + 1:spot * 5 + 5]), "big")
                out.append(SpotReading(index + 1, spot, state, value))
        return out

    @staticmethod
    def pack(readings: dict[tuple[int, int], tuple[int, int]], positions: int) -> Snapshot:
        rows: list[tuple[int, ...]] = []
        for position in range(1, positions + 1):
            row = b""
            for spot in range(len(SPOTS)):
                state, value = readings.get((position, spot), (EMPTY, 0))
                row += bytes((state,)) + value.to_bytes(4, "big")
            rows.append(tuple(row))
        return Snapshot(positions, tuple(rows))


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
