"""Alpha Sign Communications Protocol codec, host and sign sides (sans-I/O).

Wire format (the public protocol; docs/protocols/alpha-sign.md)::

    NUL x5 | SOH | TYPE | ADDR(2) | STX CMD DATA ETX CHECKSUM(4) [STX ... ] | EOT

- ``TYPE`` ``Z`` = all sign types; ``ADDR`` two hex digits, ``00`` broadcast; ``?`` in
  place of a digit is a wildcard (``??`` every sign), which the host never sends.
- ``CHECKSUM``: 16-bit sum of the bytes from STX through ETX inclusive, as
  four uppercase ASCII hex digits. A sign drops a packet whose checksum is wrong.
- Commands used: ``A`` write TEXT file (label, then one or more pages, each
  ESC position mode then text; byte 0x10 + label calls a STRING file, 0x0D
  starts the next line), ``G`` write STRING file (at most 125 bytes), ``E$``
  write memory configuration (entries of label, type ``A`` TEXT / ``B``
  STRING, lock ``U``/``L`` (a STRING is always ``L``), size as 4 hex digits,
  and ``FF00`` for a TEXT's run time or ``0000`` for a STRING), ``Es`` ACK/NAK
  responses on (``1``) or off (``0``), ``H`` read STRING.
- With ACK/NAK enabled the sign answers each packet addressed to it (never a
  broadcast) with ACK (0x06), or NAK (0x15) and its Serial Error Status
  Register: bit 0 parity, 1 framing, 2 serial timeout, 3 buffer overflow,
  4 checksum, 5 illegal command or file label, bit 6 always 1 (so a checksum
  NAK is ``15 50``).

The host side builds packets and reads responses; the sign side (used by the
simulator) parses packets and builds responses. One command per packet: the
protocol's nested packets need 100 ms pauses after STX, which a single
command avoids.
"""

from __future__ import annotations

from dataclasses import dataclass

NUL, SOH, STX, ETX, EOT, ESC = 0x00, 0x01, 0x02, 0x03, 0x04, 0x1B
ACK, NAK = 0x06, 0x15
CALL_STRING = 0x10
MAX_STRING = 125
MAX_PACKET = 4096
NEXT_LINE = 0x0D
BROADCAST = "00"
# The Serial Error Status Register, sent after a NAK: one bit per error, bit 6 always set.
NAK_PARITY, NAK_FRAMING, NAK_TIMEOUT, NAK_OVERFLOW, NAK_CHECKSUM, NAK_ILLEGAL = 1, 2, 4, 8, 16, 32
NAK_ALWAYS = 0x40
NAK_BITS = {NAK_PARITY: "parity error", NAK_FRAMING: "framing error", NAK_TIMEOUT: "serial timeout",
            NAK_OVERFLOW: "buffer overflow", NAK_CHECKSUM: "checksum error",
            NAK_ILLEGAL: "illegal command or file label"}
# Display positions and modes of a TEXT page (the protocol's codes).
MIDDLE_LINE, FILL = " ", "0"
ROTATE, HOLD = "a", "b"


class AlphaEncodeError(ValueError):
    """A command we cannot send (bad label, string too long, byte the sign reserves)."""


def checksum(block: bytes) -> bytes:
    return f"{sum(block) & 0xFFFF:04X}".encode("ascii")


def _label(label: str) -> bytes:
    if len(label) != 1 or not 0x20 <= ord(label) <= 0x7E or label in "0?":
        raise AlphaEncodeError(f"file label {label!r}: one printable character, not '0' or '?'")
    return label.encode("ascii")


def _text(text: str | bytes, what: str) -> bytes:
    raw = text.encode("ascii") if isinstance(text, str) else text
    bad = [b for b in raw if b in (NUL, SOH, STX, ETX, EOT)]
    if bad:
        raise AlphaEncodeError(f"{what}: control byte 0x{bad[0]:02x} would end the packet")
    return raw


def check_address(address: str) -> str:
    """A sign address as sent (two uppercase hex digits, "00" broadcast); AlphaEncodeError otherwise.
    The protocol's wildcard ``?`` (any hex digit: ``1?`` reaches 10-1F, ``??`` every sign) is
    refused: several signs may act on it, and answer at once, and a table drives one sign."""
    if isinstance(address, str) and "?" in address:
        raise AlphaEncodeError(f"sign address {address!r}: two hex digits; '?' is the protocol's wildcard, "
                               "which reaches every sign it matches, and the host writes to one sign")
    if not isinstance(address, str) or len(address) != 2 or any(c not in "0123456789ABCDEFabcdef"
                                                                 for c in address):
        raise AlphaEncodeError(f"sign address {address!r}: two hex digits")
    return address.upper()


def address_matches(sent: str, own: str) -> bool:
    """A packet's address reaches a sign whose own address is ``own``: the same two hex digits, or
    a wildcard ``?`` in place of either digit (``??`` every sign). Broadcast (00) is not a match."""
    return len(sent) == len(own) == 2 and all(c in (o, "?") for c, o in zip(sent.upper(), own.upper(), strict=True))


def packet(command: bytes, address: str = "00", type_code: str = "Z") -> bytes:
    address = check_address(address)
    block = bytes((STX,)) + command + bytes((ETX,))
    return (bytes(5) + bytes((SOH,)) + type_code.encode("ascii") + address.encode("ascii")
            + block + checksum(block) + bytes((EOT,)))


def page(text: str | bytes, *, position: str = MIDDLE_LINE, mode: str = HOLD) -> bytes:
    """One page of a TEXT file: ESC, the display position (' ' middle line, '0' fill every line),
    the mode ('b' hold, 'a' rotate), then the text. A TEXT of several pages shows them in turn."""
    return bytes((ESC,)) + position.encode("ascii") + mode.encode("ascii") + _text(text, "TEXT")


def write_text(label: str, text: str | bytes, *, position: str = MIDDLE_LINE, mode: str = HOLD) -> bytes:
    """Command A: a TEXT file of one page (``position`` ' ' middle line, ``mode`` 'b' hold)."""
    return write_pages(label, [page(text, position=position, mode=mode)])


def write_pages(label: str, pages: list[bytes]) -> bytes:
    """Command A: a TEXT file of the pages given (each built by ``page``)."""
    return b"A" + _label(label) + b"".join(pages)


def call_string(label: str) -> bytes:
    return bytes((CALL_STRING,)) + _label(label)


def write_string(label: str, text: str) -> bytes:
    raw = _text(text, f"STRING {label}")
    if len(raw) > MAX_STRING:
        raise AlphaEncodeError(f"STRING {label}: {len(raw)} bytes, at most {MAX_STRING}")
    return b"G" + _label(label) + raw


@dataclass(frozen=True)
class FileEntry:
    label: str
    kind: str           # "A" TEXT, "B" STRING, "D" DOTS
    size: int           # bytes
    locked: bool | None = None      # None: as the protocol wants it, a STRING locked, a TEXT not

    def encode(self) -> bytes:
        locked = self.kind == "B" if self.locked is None else self.locked
        if self.kind == "B" and not locked:
            raise AlphaEncodeError(f"STRING {self.label}: the protocol wants STRING files locked ('L')")
        tail = b"FF00" if self.kind == "A" else b"0000"
        return (_label(self.label) + self.kind.encode() + (b"L" if locked else b"U")
                + f"{self.size:04X}".encode() + tail)


def memory_config(entries: list[FileEntry]) -> bytes:
    return b"E$" + b"".join(e.encode() for e in entries)


def set_responses(on: bool = True) -> bytes:
    """Special function ``s``: the sign answers each packet addressed to it with ACK or NAK."""
    return b"Es" + (b"1" if on else b"0")


def read_string(label: str) -> bytes:
    return b"H" + _label(label)


# --- host side: responses ------------------------------------------------------

@dataclass(frozen=True)
class SignAck:
    pass


@dataclass(frozen=True)
class SignNak:
    status: int

    @property
    def reasons(self) -> list[str]:
        """The errors the status register flags (bit 6 is always set and means nothing)."""
        return [name for bit, name in NAK_BITS.items() if self.status & bit] or [f"status 0x{self.status:02x}"]

    @property
    def only_illegal(self) -> bool:
        """The sign refused the command itself, not the bytes: it does not know it."""
        return self.status & ~NAK_ALWAYS == NAK_ILLEGAL


class ResponseDecoder:
    """ACK/NAK bytes from a sign with responses enabled; other bytes are ignored and counted.

    ``foreign`` counts the ignored bytes no sign sends: all but the status register some signs put
    after an ACK (bit 6 set). A byte 06 among them is no sign's ACK but another device's frame or a
    line at the wrong speed (the sensors' frames on the sign's port read as ACKs called a sign
    online that was not there): the driver does not believe an ACK that came with them."""

    def __init__(self) -> None:
        self._nak_pending = False
        self._after_ack = False
        self.ignored = 0
        self.foreign = 0

    def feed(self, data: bytes) -> list[SignAck | SignNak]:
        out: list[SignAck | SignNak] = []
        for b in data:
            after_ack, self._after_ack = self._after_ack, False
            if self._nak_pending:
                self._nak_pending = False
                out.append(SignNak(b))
            elif b == ACK:
                out.append(SignAck())
                self._after_ack = True
            elif b == NAK:
                self._nak_pending = True
            else:
                self.ignored += 1
                if not (after_ack and b & NAK_ALWAYS):
                    self.foreign += 1
        return out


# --- sign side: packets ----------------------------------------------------------

@dataclass(frozen=True)
class SignCommand:
    """One command block of a packet, as the sign received it."""
    type_code: str
    address: str
    code: str           # "A", "G", "E", "H", ...
    data: bytes         # after the command code


@dataclass(frozen=True)
class BadPacket:
    reason: str
    raw: bytes
    status: int = NAK_ILLEGAL       # a packet whose structure is wrong: no command can be read


class PacketDecoder:
    """Bytes in, commands out: what a sign does with the serial line."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[SignCommand | BadPacket]:
        self._buf += data
        out: list[SignCommand | BadPacket] = []
        while True:
            start = self._buf.find(SOH)
            if start < 0:
                self._buf.clear()                         # NUL padding or noise before a packet
                return out
            del self._buf[:start]
            end = self._buf.find(EOT)
            if end < 0:
                if len(self._buf) > MAX_PACKET:
                    out.append(BadPacket(f"no EOT within {MAX_PACKET} bytes", bytes(self._buf[:64]),
                                           NAK_OVERFLOW))
                    del self._buf[:1]
                    continue
                return out
            raw = bytes(self._buf[:end + 1])
            nested_soh = raw.find(SOH, 1)
            if nested_soh > 0:                            # a packet cut short, then a new one
                out.append(BadPacket("packet interrupted by a new SOH", raw[:nested_soh]))
                del self._buf[:nested_soh]
                continue
            del self._buf[:end + 1]
            out.extend(self._parse(raw))

    @staticmethod
    def _parse(raw: bytes) -> list[SignCommand | BadPacket]:
        if len(raw) < 5:
            return [BadPacket("packet too short", raw)]
        type_code = chr(raw[1])
        address = raw[2:4].decode("ascii", "replace")
        i = 4
        commands: list[SignCommand | BadPacket] = []
        while i < len(raw) - 1:
            if raw[i] != STX:
                return [BadPacket(f"expected STX at byte {i}", raw)]
            etx = raw.find(ETX, i)
            if etx < 0 or etx + 5 > len(raw):
                return [BadPacket("block without ETX and checksum", raw)]
            block = raw[i:etx + 1]
            given = raw[etx + 1:etx + 5]
            if given != checksum(block):
                return [BadPacket(f"checksum {given!r} != {checksum(block)!r}", raw, NAK_CHECKSUM)]
            body = block[1:-1]
            if not body:
                return [BadPacket("empty command block", raw)]
            commands.append(SignCommand(type_code, address, chr(body[0]), body[1:]))
            i = etx + 5
        if not commands:
            return [BadPacket("packet holds no command", raw)]
        return commands


def response(ok: bool, status: int = 0) -> bytes:
    """ACK, or NAK and the Serial Error Status Register (bit 6 always set)."""
    return bytes((ACK,)) if ok else bytes((NAK, NAK_ALWAYS | status))
