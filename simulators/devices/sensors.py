"""Simulated bet-spot sensor controller (device side of the sensor protocol).

Owns what lies on every spot of every position, the lock state after "No
more bets" and the lamps. Chips are placed and removed through ``place`` and
``remove`` (scripted players, tests, the CLI); each change is reported to the
host as it happens, locked or not: the sensors see what is on the felt, and
deciding whether a change is allowed is the controller's job. A Hello clears
every lock and lamp (the host sends them again); a Lock or Lamp for a
position it does not have is refused (NAK 2), as docs/protocols/sensors.md
requires. ``fault`` makes a spot's sensor report a fault, until it reads again.
"""

from __future__ import annotations

from drivers.wire import sensor_protocol as proto
from drivers.wire.link_words import MessageError
from drivers.wire.messages import Message
from simulators.devices.framed import FramedDevice


class SimulatedSensors(FramedDevice):
    catalog = proto.catalog
    decode = proto.device_decode

    def __init__(self, port, *, positions: int = 6, reads_values: bool = True, **kwargs):
        super().__init__(port, **kwargs)
        self.positions = positions
        self.reads_values = reads_values
        self.spots: dict[tuple[int, int], int] = {}
        self.locked: set[tuple[int, int]] = set()
        self.lamps: dict[tuple[int, int], int] = {}
        self.faults: dict[tuple[int, int], int] = {}      # spots that cannot read now: their fault code

    def decode_message(self, type_code: int, payload: bytes) -> Message:
        """Narrowed to these sensors' positions (as the host's decoder is to the table's)."""
        message = proto.device_decode(type_code, payload)
        if isinstance(message, (proto.Lock, proto.Lamp)) and message.position > self.positions:
            raise MessageError(f"position {message.position} is not a position of these sensors "
                               f"(0 every position, 1 to {self.positions})")
        return message

    def handle(self, message, now: float) -> None:
        if isinstance(message, proto.Hello):
            self.locked.clear()                   # a new session: the host tells locks and lamps again
            self.lamps.clear()
            self.emit(proto.HelloReply(proto.PROTOCOL_VERSION, self.positions, int(self.reads_values),
                                       "SIM-BSC-1.0", "SIM0002"))
        elif isinstance(message, proto.SnapshotRequest):
            self.emit(proto.Snapshot.pack({k: (proto.CHIPS, self._wire_value(v))
                                           for k, v in self.spots.items()}, self.positions))
            for (position, spot), code in sorted(self.faults.items()):     # still unread: said again
                self.emit(proto.SensorFault(position, spot, code))
        elif isinstance(message, proto.Lock):
            positions = range(1, self.positions + 1) if message.position == 0 else [message.position]
            for position in positions:
                for spot in range(len(proto.SPOTS)):
                    if message.spots & (1 << spot):
                        (self.locked.add if message.locked else self.locked.discard)((position, spot))
        elif isinstance(message, proto.Lamp):
            for position in range(1, self.positions + 1) if message.position == 0 else [message.position]:
                self.lamps[(position, message.spot)] = message.mode

    def _wire_value(self, value: int) -> int:
        return value if self.reads_values else proto.UNKNOWN_VALUE

    def place(self, position: int, spot: str, value: int) -> None:
        """Chips on a spot (a new stack, or a stack raised or lowered to ``value`` cents)."""
        key = (position, proto.SPOTS.index(spot))
        with self.lock:
            self.spots[key] = value
            self.faults.pop(key, None)
        self.emit(proto.SpotReading(position, key[1], proto.CHIPS, self._wire_value(value)))

    def remove(self, position: int, spot: str) -> None:
        key = (position, proto.SPOTS.index(spot))
        with self.lock:
            self.spots.pop(key, None)
            self.faults.pop(key, None)
        self.emit(proto.SpotReading(position, key[1], proto.EMPTY, 0))

    def flicker(self, position: int, spot: str) -> None:
        """A sensor that blinks: the stack seems to go and come back."""
        value = self.spots.get((position, proto.SPOTS.index(spot)))
        if value is not None:
            self.remove(position, spot)
            self.place(position, spot, value)

    def fault(self, position: int, spot: str, code: int = 1) -> None:
        """The spot's sensor cannot read it (1 blocked, 2 no reading, 3 hardware fault): reported
        once, and again after the Snapshot of each new session while it lasts; the next reading of
        the spot (``place``, ``remove``, ``reads_again``) says it reads again."""
        key = (position, proto.SPOTS.index(spot))
        with self.lock:
            self.faults[key] = code
        self.emit(proto.SensorFault(position, key[1], code))

    def reads_again(self, position: int, spot: str) -> None:
        """The fault is over: a SpotReading of what lies there, unchanged or not (sensors.md)."""
        value = self.spots.get((position, proto.SPOTS.index(spot)))
        if value is None:
            self.remove(position, spot)
        else:
            self.place(position, spot, value)

    def clear_table(self) -> None:
        for position, spot in list(self.spots):
            self.remove(position, proto.SPOTS[spot])
