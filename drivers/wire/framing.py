"""Frame codec shared by the shoe and bet-sensor protocols (sans-I/O).

Wire format (docs/protocols/framing.md)::

    00 | COBS( VER | SEQ | TYPE | [TIME] | PAYLOAD... | [COUNTER MAC] | CRC16 ) | 00

- ``VER``: bits 0-5 the framing version (1 plain, 2 sealed); bit 6 (0x40) set: an
  8-byte ``TIME`` follows ``TYPE`` (the sender's clock, ms since 1970 UTC);
  bit 7 (0x80) set: a 12-byte authentication trailer (``COUNTER`` u32, ``MAC``
  8 bytes, drivers/wire/auth.py) precedes the CRC. ``SEQ`` sequence number
  (1 byte, 0-255, wrapping); ``TYPE`` message type (1 byte); ``PAYLOAD``
  0-1000 bytes, multi-byte integers big-endian.
- ``CRC16`` is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection,
  no final XOR) over VER..PAYLOAD, big-endian.
- The body is COBS-encoded so it holds no 0x00; 0x00 delimits frames. A
  sender writes a 0x00 before and after every frame, so line noise before a
  frame is cut off by the frame's leading delimiter and the decoder
  resynchronises on the very next frame.

Decoding never raises on peer bytes: it yields ``Frame`` or ``BadFrame``
(with the raw bytes, for the log). ``FrameEncodeError`` is for our own
misuse (a payload too long, a field out of range).
"""

from __future__ import annotations

import struct
from binascii import crc_hqx
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

VERSION = 1                 # the layout of a plain frame
# A sealed frame (the trailer) says 2: the same layout, under framing version 2's authentication
# (per-direction keys, a Hello that must answer the device's challenge). A device built to version 1
# discards it as another version instead of answering it under keys the host no longer uses.
SEALED_VERSION = 2
FLAG_TIME, FLAG_AUTH, FLAGS = 0x40, 0x80, 0xC0
TIME_SIZE, TRAILER_SIZE = 8, 12                     # TIME; COUNTER (4) and MAC (8)
MAX_PAYLOAD = 1000
PLAIN_MAX_BODY = 3 + MAX_PAYLOAD + 2               # 1,005: VER SEQ TYPE, the payload, the CRC
MAX_BODY = PLAIN_MAX_BODY + TIME_SIZE + TRAILER_SIZE   # 1,025: with TIME and the trailer
# COBS adds one code byte per group: a group ends at each 0x00 and after 254 non-zero bytes, so n
# bytes encode to at most n + 1 + n // 254 (all non-zero, the worst case): 1,009 for the largest
# plain body (1,011 on the wire with its two delimiters), 1,030 for the largest of all (1,032 on the
# wire) (docs/protocols/framing.md, tests/wire/test_framing.py).
MAX_ENCODED = MAX_BODY + 1 + MAX_BODY // 254


class FrameEncodeError(ValueError):
    """We asked for a frame that cannot be sent (a bug on our side, not the peer's)."""


class Frame(NamedTuple):
    """A frame that passed every check of ``FrameDecoder`` (immutable: a named tuple, which costs a
    third of a frozen dataclass to build, and the decoder builds one for every frame it reads)."""
    seq: int
    type: int
    payload: bytes = b""
    time_ms: int | None = None          # the sender's TIME, when it stamped the frame
    counter: int | None = None          # the authentication trailer, when there is one
    mac: bytes = b""
    signed: bytes = b""                 # VER..COUNTER: what the MAC covers
    version: int = VERSION              # VER's low bits: 2 for a frame sealed as framing version 2 says

    @property
    def authenticated(self) -> bool:
        return self.counter is not None


Seal = Callable[[bytes], bytes]         # VER..PAYLOAD in, the 12-byte trailer out (drivers/wire/auth.py)


@dataclass(frozen=True)
class BadFrame:
    """Bytes from the peer that were not a valid frame."""
    reason: str
    raw: bytes

    @property
    def hex(self) -> str:
        return self.raw[:64].hex(" ") + (" ..." if len(self.raw) > 64 else "")


def crc16(data: bytes) -> int:
    return crc_hqx(data, 0xFFFF)


# A short body (under 254 bytes: every frame but the longest messages) has no group of 254 bytes,
# so its COBS is each run between zeros behind its length + 1, made with C-level bytes operations;
# a longer one takes the general loop. The code byte of each length, made once:
_CODES = [bytes((size + 1,)) for size in range(254)]


def cobs_encode(data: bytes) -> bytes:
    """Cheshire and Baker's COBS. A run of 254 non-zero bytes is one 0xFF group with no zero after
    it; the encoding always ends with a group, so data that ends with such a run ends ``FF <254
    bytes> 01`` (the reference encoder's form; ``cobs_decode`` also takes it without the ``01``)."""
    if len(data) < 254:
        codes = _CODES
        return b"".join([codes[len(run)] + run for run in data.split(b"\0")])
    out = bytearray()
    for block in data.split(b"\0"):
        while len(block) >= 254:
            out.append(0xFF)
            out += block[:254]
            block = block[254:]
        out.append(len(block) + 1)
        out += block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes | None:
    """The decoded bytes, or None if ``data`` is not valid COBS."""
    n = len(data)
    if n < 255:
        # No 0xFF group fits (it needs 255 bytes), so every code byte but the first stands for a
        # zero: the decoded bytes are ``data`` with its code bytes zeroed, less the first.
        if not n:
            return b""
        out = bytearray(data)
        i = 0
        while i < n:
            code = out[i]
            if not code:
                return None
            out[i] = 0
            i += code
        if i > n:                   # the last group runs past the end
            return None
        del out[0]
        return bytes(out)
    decoded = bytearray()
    i = 0
    while i < n:
        code = data[i]
        end = i + code
        if code == 0 or end > n:
            return None
        decoded += data[i + 1:end]
        i = end
        if code != 0xFF and i < n:
            decoded.append(0)
    return bytes(decoded)


def check_frame(seq: int, type_: int, payload: bytes, time_ms: int | None = None) -> None:
    """FrameEncodeError unless these fields make a frame (what ``encode_frame`` checks first)."""
    if not 0 <= seq <= 255 or not 0 <= type_ <= 255:
        raise FrameEncodeError(f"seq {seq} / type {type_} must be 0..255")
    if len(payload) > MAX_PAYLOAD:
        raise FrameEncodeError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    if time_ms is not None and not (isinstance(time_ms, int) and 0 <= time_ms < 2 ** 64):
        raise FrameEncodeError(f"time {time_ms} is not a u64")


def encode_frame(seq: int, type_: int, payload: bytes = b"", *, time_ms: int | None = None,
                 seal: Seal | None = None) -> bytes:
    """A frame's bytes; with ``time_ms`` the TIME field, with ``seal`` the authentication trailer."""
    check_frame(seq, type_, payload, time_ms)
    return frame_bytes(seq, type_, payload, time_ms, seal)


_HEAD, _HEAD_TIME = struct.Struct(">BBB"), struct.Struct(">BBBQ")     # VER SEQ TYPE [TIME]


def frame_bytes(seq: int, type_: int, payload: bytes, time_ms: int | None = None,
                seal: Seal | None = None) -> bytes:
    """``encode_frame`` for fields already checked (``check_frame``): the link checks a message
    once, when it is queued, then frames it at each send, and its own ACKs, NAKs and heartbeats
    are made in range."""
    ver = VERSION if seal is None else SEALED_VERSION | FLAG_AUTH
    if time_ms is None:
        body = _HEAD.pack(ver, seq, type_) + payload
    else:
        body = _HEAD_TIME.pack(ver | FLAG_TIME, seq, type_, time_ms) + payload
    if seal is not None:
        body += seal(body)
    body += crc_hqx(body, 0xFFFF).to_bytes(2, "big")
    return b"\0" + cobs_encode(body) + b"\0"


class FrameDecoder:
    """Bytes in, frames out. Keeps at most one partial frame between calls."""

    def __init__(self) -> None:
        self._pending = bytearray()
        self.errors = 0

    def feed(self, data: bytes) -> list[Frame | BadFrame]:
        if type(data) is not bytes:
            data = bytes(data)
        pending = self._pending
        if b"\0" not in data:
            pending += data
            if len(pending) > MAX_ENCODED:
                raw = bytes(pending)
                pending.clear()
                self.errors += 1
                return [BadFrame(f"no delimiter within {MAX_ENCODED} bytes", raw)]
            return []
        if pending:                 # the start of a frame came with an earlier call
            pending += data
            data = bytes(pending)
            pending.clear()
        chunks = data.split(b"\0")
        pending += chunks.pop()     # what follows the last delimiter: the next frame's start
        out: list[Frame | BadFrame] = []
        for chunk in chunks:
            if chunk:
                item = _check(chunk)
                if type(item) is BadFrame:
                    self.errors += 1
                out.append(item)
        return out


_frame = tuple.__new__      # a Frame from its fields' tuple, in one C call (the named tuple's __new__ is Python)
_TIME, _TRAILER = struct.Struct(">Q"), struct.Struct(">I8s")        # TIME; COUNTER and MAC


def _layout(ver: int) -> str | tuple[int, int, int]:
    """What a VER byte says: why it is refused, or (version, where the payload starts, trailer size)."""
    version = ver & ~FLAGS
    if version != VERSION and version != SEALED_VERSION:
        return f"protocol version {version} unsupported (expected {VERSION} or {SEALED_VERSION})"
    if version == SEALED_VERSION and not ver & FLAG_AUTH:
        return f"a version {SEALED_VERSION} frame without its authentication trailer"
    return version, 3 + TIME_SIZE if ver & FLAG_TIME else 3, TRAILER_SIZE if ver & FLAG_AUTH else 0


_LAYOUTS = [_layout(ver) for ver in range(256)]      # each VER byte's, worked out once


def _check(chunk: bytes) -> Frame | BadFrame:
    if len(chunk) > MAX_ENCODED:
        return BadFrame(f"frame of {len(chunk)} bytes exceeds {MAX_ENCODED}", chunk)
    body = cobs_decode(chunk)
    if body is None:
        return BadFrame("bad COBS encoding", chunk)
    size = len(body)
    if size < 5:
        return BadFrame(f"frame of {size} bytes is shorter than 5", chunk)
    if size > MAX_BODY:
        return BadFrame(f"frame of {size} bytes exceeds {MAX_BODY}", chunk)
    # CRC-16/CCITT-FALSE (no reflection, no final XOR) over the data and its own CRC, big-endian,
    # is 0 exactly when the CRC is right: one call, no slices
    if crc_hqx(body, 0xFFFF):
        return BadFrame("CRC mismatch", chunk)
    layout = _LAYOUTS[body[0]]
    if isinstance(layout, str):
        return BadFrame(layout, chunk)
    version, start, trailer = layout
    end = size - 2 - trailer
    if end < start:
        return BadFrame(f"frame of {size} bytes is too short for its TIME and trailer", chunk)
    if end - start > MAX_PAYLOAD:
        return BadFrame(f"payload of {end - start} bytes exceeds {MAX_PAYLOAD}", chunk)
    time_ms = None if start == 3 else _TIME.unpack_from(body, 3)[0]
    if not trailer:
        return _frame(Frame, (body[1], body[2], body[start:end], time_ms, None, b"", b"", version))
    counter, mac = _TRAILER.unpack_from(body, end)
    return _frame(Frame, (body[1], body[2], body[start:end], time_ms, counter, mac, body[:end + 4], version))
