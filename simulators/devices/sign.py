"""Simulated Alpha protocol jackpot sign (sign side of drivers/wire/alpha.py), strict as a real one.

Owns the sign's address, whether it answers (ACK/NAK responses, off at
power-up unless set up on, switched by special function ``s``), its memory
configuration, TEXT and STRING files, and what it displays: each page of the
TEXT layout, line by line, with every called STRING substituted.

Strict where a real sign is: a packet for another address is not its own and
is ignored; a broadcast (00) is never answered, and while responses are on it
is refused outright (addressed mode: only packets to its own address count); a
wildcard address (``?`` for a digit, ``??`` every sign) that matches its own is
taken as a broadcast is; a NAK carries the Serial Error Status Register (bit 6
always set: checksum ``15 50``, an unknown command or file label ``15 60``),
and with ``status_after_ack`` an ACK does too (``06 40``); a memory configuration
with an unlocked STRING file, a STRING write to a file it does not have or
that does not fit it, are refused as illegal. Faults: NAK the next N packets
(as checksum errors), go silent (answer nothing and ignore packets), as a
sign that lost power would.
"""

from __future__ import annotations

from drivers.wire import alpha
from simulators.devices.framed import PortDevice

ENTRY = 11                      # bytes of one memory configuration entry


class SimulatedSign(PortDevice):
    def __init__(self, port, *, address: str = "01", acks: bool = False, status_after_ack: bool = False,
                 **kwargs):
        super().__init__(port, **kwargs)
        self.status_after_ack = status_after_ack
        self.address = alpha.check_address(address)
        self.acks = acks                    # answering now (``acks`` at power-up: set up in its menu)
        self.decoder = alpha.PacketDecoder()
        self.memory: dict[str, tuple[str, int]] = {}
        self.texts: dict[str, bytes] = {}
        self.strings: dict[str, bytes] = {}
        self.nak_next = 0
        self.packets = 0
        self.errors: list[alpha.BadPacket | str] = []

    def step(self, data: bytes, now: float) -> None:
        if data and not self.silent:
            for item in self.decoder.feed(data):
                try:
                    self._answer(item)
                except Exception as err:         # one packet it cannot take: the next ones still count
                    self.survived(err, f"answering {type(item).__name__}")

    def _reply(self, ok: bool, status: int = 0) -> None:
        if self.acks:
            answer = alpha.response(ok, status)
            # some signs follow an ACK with their status register too (bit 6 set: never an ACK or NAK)
            self.port.write(answer + bytes((alpha.NAK_ALWAYS,)) if ok and self.status_after_ack else answer)

    def _answer(self, item: alpha.SignCommand | alpha.BadPacket) -> None:
        if isinstance(item, alpha.BadPacket):
            self.errors.append(item)
            if item.raw[2:4].decode("ascii", "replace").upper() == self.address:
                self._reply(False, item.status)         # only what was meant for it is answered
            return
        address = item.address.upper()
        if address == alpha.BROADCAST or "?" in address and alpha.address_matches(address, self.address):
            what = "broadcast" if address == alpha.BROADCAST else f"wildcard {address}"
            if self.acks:
                self.errors.append(f"{what} {item.code} refused: responses are on (addressed mode)")
            else:
                self._apply(item)                      # heard by every sign it reaches, answered by none
            return
        if address != self.address:
            return                                      # another sign's packet
        self.packets += 1
        if self.nak_next:
            self.nak_next -= 1
            self._reply(False, alpha.NAK_CHECKSUM)
            return
        if item.code == "E" and item.data[:1] == b"s" and item.data[1:] in (b"0", b"1"):
            if item.data[1:] == b"1":
                self.acks = True
                self._reply(True)
            else:
                self.acks = False
            return
        ok = self._apply(item)
        if not ok:
            self.errors.append(f"{item.code} {item.data[:16]!r} refused")
        self._reply(ok, 0 if ok else alpha.NAK_ILLEGAL)

    def _apply(self, cmd: alpha.SignCommand) -> bool:
        data = cmd.data
        if cmd.code == "E" and data[:1] == b"$":
            entries = data[1:]
            if len(entries) % ENTRY:
                return False
            memory = {}
            for i in range(0, len(entries), ENTRY):
                e = entries[i:i + ENTRY]
                kind, lock = chr(e[1]), chr(e[2])
                if kind not in "ABD" or lock not in "UL" or kind == "B" and lock != "L":
                    return False                  # the protocol wants STRING files locked
                try:
                    memory[chr(e[0])] = (kind, int(e[3:7], 16))
                except ValueError:
                    return False
            self.memory = memory
            self.texts = {k: v for k, v in self.texts.items() if k in self.memory}
            self.strings = {k: v for k, v in self.strings.items() if k in self.memory}
            return True
        label = chr(data[0]) if data else ""
        if cmd.code == "A":
            kind, size = self.memory.get(label, ("", 0))
            if kind != "A" or len(data) - 1 > size:
                return False
            self.texts[label] = data[1:]
            return True
        if cmd.code == "G":
            kind, size = self.memory.get(label, ("", 0))
            if kind != "B" or len(data) - 1 > size:
                return False                      # no such STRING file, or it does not fit
            self.strings[label] = data[1:]
            return True
        return False

    def pages(self, label: str = "A") -> list[list[str]]:
        """What the sign shows, page after page: each page's lines, with every called STRING
        filled in (trailing spaces kept: they are what the sign shows)."""
        with self.lock:
            text = self.texts.get(label, b"")
            out: list[list[str]] = []
            first, *rest = text.split(bytes((alpha.ESC,)))
            bodies = ([first] if first else []) + [raw[2:] for raw in rest]   # past position and mode
            for body in bodies:
                line, lines, i = bytearray(), [], 0
                while i < len(body):
                    if body[i] == alpha.CALL_STRING and i + 1 < len(body):
                        line += self.strings.get(chr(body[i + 1]), b"")
                        i += 2
                        continue
                    if body[i] == alpha.NEXT_LINE:
                        lines.append(line.decode("ascii", "replace"))
                        line = bytearray()
                    else:
                        line.append(body[i])
                    i += 1
                lines.append(line.decode("ascii", "replace"))
                out.append(lines)
            return out

    def display(self, label: str = "A") -> str:
        """Every line of every page, one per line of text."""
        return "\n".join(line for page in self.pages(label) for line in page)
