"""A host driver and a simulated device joined by a wire in memory, on one fake clock (milliseconds).

For tests of the session's timing: nothing runs on a thread, time moves only when the test says,
and every frame either side writes is recorded with the time it left (``Wire.sent``), so a rule such as
"never two Hellos less than 250 ms apart" is checked on exact times, not a machine's speed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from drivers.framed import FramedDriver
from drivers.wire.auth import new_key
from drivers.wire.framing import Frame, FrameDecoder
from simulators.devices.framed import FramedDevice


class Wire:
    """One direction's bytes, and a transport or port's methods over them."""

    url = "bench://wire"

    def __init__(self, clock: Callable[[], float]) -> None:
        self.bytes = bytearray()
        self.clock = clock
        self.frames = FrameDecoder()
        self.sent: list[tuple[float, Frame]] = []       # every frame written, with its time

    def write(self, data: bytes) -> None:
        self.bytes += data
        self.sent += [(self.clock(), f) for f in self.frames.feed(data) if isinstance(f, Frame)]

    def read(self, timeout: float = 0.0) -> bytes:
        return b""

    def open(self) -> None:
        pass

    def close(self) -> None:
        pass

    def take(self) -> bytes:
        data, self.bytes = bytes(self.bytes), bytearray()
        return data


class WireBench:
    """``host`` (a FramedDriver) and ``device`` (a FramedDevice) on one fake clock; ``run(seconds)``
    moves time in 1 ms steps, passing bytes both ways at each. ``plugged`` False drops them (a device
    switched off); ``reboot`` puts a new device, as built by ``make_device``, on the line."""

    def __init__(self, tmp_path: Path, make_host: Callable[..., FramedDriver],
                 make_device: Callable[..., FramedDevice], *, paired: bool = True) -> None:
        self.now = 0.0
        self.key = new_key() if paired else None
        key_file = None
        if self.key is not None:
            key_file = tmp_path / "device.key"
            key_file.write_text(self.key.hex())
        self.events: list[Any] = []
        self.to_device, self.to_host = Wire(self.clock), Wire(self.clock)
        self.host = make_host(self.to_device, self.events.append, clock=self.clock,
                              key_file=None if key_file is None else str(key_file))
        self.make_device = make_device
        self.device = self._new_device()
        self.plugged = True
        self.host.connected = True
        self.host._write(self.host.on_open(self.now))

    def clock(self) -> float:
        return self.now

    def _new_device(self) -> FramedDevice:
        return self.make_device(self.to_host, clock=self.clock, key=self.key)

    def reboot(self) -> None:
        self.device = self._new_device()

    def run(self, seconds: float) -> None:
        for _ in range(round(seconds * 1000)):
            self.now = round(self.now + 0.001, 3)
            self.step()

    def step(self) -> None:
        self.host.on_tick(self.now)
        down = self.to_device.take()
        self.device.step(down if self.plugged else b"", self.now)
        up = self.to_host.take()
        if up and self.plugged:
            self.host.on_bytes(up, self.now)        # its answers reach the device at the next step

    def hellos(self) -> list[float]:
        """When the host sent each Hello (its first send or a resend)."""
        return [at for at, frame in self.to_device.sent if frame.type == self.host.hello.TYPE]
