"""Simulated Alpha protocol jackpot sign (sign side of drivers/wire/alpha.py).

Owns the sign's memory configuration, TEXT and STRING files, and what it
displays: the TEXT layout with each called STRING substituted. With ACK/NAK
enabled it answers every packet. Faults: NAK the next N packets, go silent
(answer nothing and ignore packets), as a sign that lost power would.
"""

from __future__ import annotations

from drivers.wire import alpha
from simulators.devices.framed import PortDevice


class SimulatedSign(PortDevice):
    def __init__(self, port, *, acks: bool = True, **kwargs):
        super().__init__(port, **kwargs)
        self.acks = acks
        self.decoder = alpha.PacketDecoder()
        self.memory: dict[str, tuple[str, int]] = {}
        self.texts: dict[str, bytes] = {}
        self.strings: dict[str, bytes] = {}
        self.nak_next = 0
        self.packets = 0
        self.errors: list[alpha.BadPacket] = []

    def step(self, data: bytes, now: float) -> None:
        if data and not self.silent:
            for item in self.decoder.feed(data):
                try:
                    self._answer(item)
                except Exception as err:         # one packet it cannot take: the next ones still count
                    self.survived(err, f"answering {type(item).__name__}")

    def _answer(self, item) -> None:
        if isinstance(item, alpha.BadPacket):
            self.errors.append(item)
            if self.acks:
                self.port.write(alpha.response(False, item.status))
            return
        self.packets += 1
        if self.nak_next:
            self.nak_next -= 1
            if self.acks:
                self.port.write(alpha.response(False, alpha.NAK_CHECKSUM))
            return
        ok = self._apply(item)
        if self.acks:
            self.port.write(alpha.response(ok, 0 if ok else alpha.NAK_OVERFLOW))

    def _apply(self, cmd: alpha.SignCommand) -> bool:
        data = cmd.data
        if cmd.code == "E" and data[:1] == b"$":
            entries = data[1:]
            self.memory = {}
            for i in range(0, len(entries) - len(entries) % 11, 11):
                e = entries[i:i + 11]
                self.memory[chr(e[0])] = (chr(e[1]), int(e[3:7], 16))
            self.texts = {k: v for k, v in self.texts.items() if k in self.memory}
            self.strings = {k: v for k, v in self.strings.items() if k in self.memory}
            return True
        label = chr(data[0]) if data else ""
        if cmd.code == "A":
            self.texts[label] = data[4:] if data[1:2] == b"\x1b" else data[1:]
            return True
        if cmd.code == "G":
            kind, size = self.memory.get(label, ("", 0))
            if kind != "B" or len(data) - 1 > size:
                return False                      # no such STRING file, or it does not fit
            self.strings[label] = data[1:]
            return True
        return False

    def display(self, label: str = "A") -> str:
        """What the sign shows: TEXT ``label`` with every called STRING filled in."""
        with self.lock:
            text = self.texts.get(label, b"")
            out, i = bytearray(), 0
            while i < len(text):
                if text[i] == alpha.CALL_STRING and i + 1 < len(text):
                    out += self.strings.get(chr(text[i + 1]), b"")
                    i += 2
                else:
                    out.append(text[i])
                    i += 1
            return out.decode("ascii", "replace")
