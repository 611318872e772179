"""The fast frame path against the plain reference it replaced (issue 30): the same bytes on the
wire and the same verdict on every input, valid or hostile.

The references below are the codecs as they were before they were made faster (COBS by loop, the
CRC compared by slicing, HMAC by the standard library, each message field by its own decoder);
the property tests hold the fast ones to them byte for byte, reason for reason."""

from __future__ import annotations

import hmac
import random
from binascii import crc_hqx

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.wire import messages
from drivers.wire import sensor_protocol as sp
from drivers.wire import shoe_protocol as shoe
from drivers.wire.auth import Mac, mac
from drivers.wire.framing import (
    FLAG_AUTH,
    FLAG_TIME,
    FLAGS,
    MAX_BODY,
    MAX_ENCODED,
    MAX_PAYLOAD,
    SEALED_VERSION,
    TIME_SIZE,
    TRAILER_SIZE,
    VERSION,
    BadFrame,
    Frame,
    FrameDecoder,
    FrameEncodeError,
    cobs_decode,
    cobs_encode,
    encode_frame,
    frame_bytes,
)
from drivers.wire.link_words import MessageError

# --- the references --------------------------------------------------------------------------------


def ref_cobs_encode(data: bytes) -> bytes:
    out = bytearray()
    for block in data.split(b"\0"):
        while len(block) >= 254:
            out.append(0xFF)
            out += block[:254]
            block = block[254:]
        out.append(len(block) + 1)
        out += block
    return bytes(out)


def ref_cobs_decode(data: bytes) -> bytes | None:
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        code = data[i]
        end = i + code
        if code == 0 or end > n:
            return None
        out += data[i + 1:end]
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


def ref_encode_frame(seq, type_, payload=b"", *, time_ms=None, seal=None) -> bytes:
    ver = SEALED_VERSION | FLAG_AUTH if seal is not None else VERSION
    ver |= FLAG_TIME if time_ms is not None else 0
    body = bytes((ver, seq, type_)) + (time_ms.to_bytes(TIME_SIZE, "big") if time_ms is not None else b"")
    body += payload
    if seal is not None:
        body += seal(body)
    body += crc_hqx(body, 0xFFFF).to_bytes(2, "big")
    return b"\0" + ref_cobs_encode(body) + b"\0"


def ref_check(chunk: bytes) -> tuple:
    """The decoder's verdict on one chunk, as a plain tuple: ("bad", reason, raw) or the frame's fields."""
    if len(chunk) > MAX_ENCODED:
        return ("bad", f"frame of {len(chunk)} bytes exceeds {MAX_ENCODED}", chunk)
    body = ref_cobs_decode(chunk)
    if body is None:
        return ("bad", "bad COBS encoding", chunk)
    if len(body) < 5:
        return ("bad", f"frame of {len(body)} bytes is shorter than 5", chunk)
    if len(body) > MAX_BODY:
        return ("bad", f"frame of {len(body)} bytes exceeds {MAX_BODY}", chunk)
    if crc_hqx(body[:-2], 0xFFFF) != int.from_bytes(body[-2:], "big"):
        return ("bad", "CRC mismatch", chunk)
    ver = body[0]
    version = ver & ~FLAGS
    if version not in (VERSION, SEALED_VERSION):
        return ("bad", f"protocol version {version} unsupported (expected {VERSION} or {SEALED_VERSION})", chunk)
    if version == SEALED_VERSION and not ver & FLAG_AUTH:
        return ("bad", f"a version {SEALED_VERSION} frame without its authentication trailer", chunk)
    start, end = 3, len(body) - 2
    time_ms = counter = None
    mac_, signed = b"", b""
    if ver & FLAG_TIME:
        time_ms, start = int.from_bytes(body[3:3 + TIME_SIZE], "big"), 3 + TIME_SIZE
    if ver & FLAG_AUTH:
        end -= TRAILER_SIZE
        counter, mac_, signed = int.from_bytes(body[end:end + 4], "big"), body[end + 4:end + 12], body[:end + 4]
    if end < start:
        return ("bad", f"frame of {len(body)} bytes is too short for its TIME and trailer", chunk)
    if end - start > MAX_PAYLOAD:
        return ("bad", f"payload of {end - start} bytes exceeds {MAX_PAYLOAD}", chunk)
    return (body[1], body[2], body[start:end], time_ms, counter, mac_, signed, version)


class RefDecoder:
    """The reference decoder: what it holds between calls, and its verdicts."""

    def __init__(self) -> None:
        self.pending = bytearray()

    def feed(self, data: bytes) -> list[tuple]:
        if b"\0" not in data:
            self.pending += data
            if len(self.pending) > MAX_ENCODED:
                raw = bytes(self.pending)
                self.pending.clear()
                return [("bad", f"no delimiter within {MAX_ENCODED} bytes", raw)]
            return []
        self.pending += data
        *chunks, rest = bytes(self.pending).split(b"\0")
        self.pending = bytearray(rest)
        return [ref_check(chunk) for chunk in chunks if chunk]


def verdicts(items) -> list[tuple]:
    return [("bad", i.reason, i.raw) if isinstance(i, BadFrame) else tuple(i) for i in items]


# --- COBS --------------------------------------------------------------------------------------------

# around the 254-byte groups, where the fast path hands over to the loop
LENGTHS = st.sampled_from([0, 1, 2, 252, 253, 254, 255, 256, 508, 509, 510]) | st.integers(0, 700)


@settings(max_examples=500)
@given(st.data())
def test_cobs_encode_is_the_reference(data):
    size = data.draw(LENGTHS)
    zeros = data.draw(st.sampled_from([0.0, 0.01, 0.2, 0.9]))
    rng = random.Random(data.draw(st.integers(0, 2 ** 32)))
    raw = bytes(0 if rng.random() < zeros else rng.randrange(1, 256) for _ in range(size))
    assert cobs_encode(raw) == ref_cobs_encode(raw)


def hostile_cobs():
    """Valid encodings, encodings cut or lengthened, code bytes that overrun, zeros, 0xFF groups."""
    valid = st.binary(max_size=600).map(ref_cobs_encode)
    codes = st.lists(st.sampled_from([0, 1, 2, 3, 5, 0xFE, 0xFF]) | st.integers(0, 255), max_size=300).map(bytes)
    mutated = st.tuples(valid, st.integers(0, 600), st.integers(0, 255)).map(
        lambda t: t[0][:t[1] % (len(t[0]) or 1)] + bytes((t[2],)) + t[0][t[1] % (len(t[0]) or 1) + 1:])
    return valid | valid.map(lambda b: b[:-1]) | valid.map(lambda b: b + b"\x01") | codes | mutated | \
        st.binary(max_size=600)


@settings(max_examples=1000)
@given(hostile_cobs())
def test_cobs_decode_is_the_reference_on_any_bytes(data):
    assert cobs_decode(data) == ref_cobs_decode(data)


def test_cobs_decode_at_the_edges():
    for data in (b"", b"\0", b"\x01", b"\x02", b"\xff", b"\xff" + bytes(range(1, 255)),
                 b"\xfe" + bytes(range(1, 254)), b"\xfe" + bytes(range(1, 254)) + b"\x01",
                 b"\x01" * 254, b"\x01" * 255, b"\x03\x01", bytes(254), b"\x05\x01\x01\x01\x01"):
        assert cobs_decode(data) == ref_cobs_decode(data), data


# --- frames -----------------------------------------------------------------------------------------

FIELDS = st.tuples(st.integers(0, 255), st.integers(0, 255),
                   st.binary(max_size=40) | st.binary(min_size=230, max_size=MAX_PAYLOAD),
                   st.none() | st.integers(0, 2 ** 64 - 1), st.none() | st.binary(min_size=12, max_size=12))


@settings(max_examples=400)
@given(FIELDS)
def test_frames_are_the_references_bytes(fields):
    seq, type_, payload, time_ms, trailer = fields
    seal = None if trailer is None else (lambda body: trailer)
    wire = ref_encode_frame(seq, type_, payload, time_ms=time_ms, seal=seal)
    assert encode_frame(seq, type_, payload, time_ms=time_ms, seal=seal) == wire
    assert frame_bytes(seq, type_, payload, time_ms, seal) == wire


def test_encode_frame_still_refuses_our_own_misuse():
    for seq, type_, payload, time_ms in ((256, 1, b"", None), (0, -1, b"", None), (0, 0x10, bytes(1001), None),
                                         (0, 0x10, b"", -1), (0, 0x10, b"", 2 ** 64), (0, 0x10, b"", 1.5)):
        with pytest.raises(FrameEncodeError):
            encode_frame(seq, type_, payload, time_ms=time_ms)


def streams():
    """Frames (plain, timed, sealed) mixed with garbage, single bytes changed, frames cut short."""
    frame = FIELDS.map(lambda f: ref_encode_frame(f[0], f[1], f[2], time_ms=f[3],
                                                  seal=None if f[4] is None else (lambda body, t=f[4]: t)))
    mutated = st.tuples(frame, st.integers(1, 10_000), st.integers(0, 255)).map(
        lambda t: t[0][:t[1] % len(t[0])] + bytes((t[2],)) + t[0][t[1] % len(t[0]) + 1:])
    forged = st.tuples(st.integers(0, 255), st.binary(min_size=2, max_size=40)).map(
        lambda t: b"\0" + ref_cobs_encode(bytes((t[0],)) + t[1] + crc_hqx(bytes((t[0],)) + t[1], 0xFFFF)
                                          .to_bytes(2, "big")) + b"\0")
    piece = frame | mutated | forged | st.binary(max_size=60) | frame.map(lambda w: w[:len(w) // 2])
    return st.lists(piece, max_size=8).map(b"".join)


@settings(max_examples=500)
@given(streams(), st.lists(st.integers(1, 80), max_size=20))
def test_the_decoder_gives_the_references_verdicts_on_any_stream(stream, cuts):
    stream += b"\0"                     # the last frame is closed
    pieces, at = [], 0
    for cut in cuts:                    # fed in pieces, as reads deliver it
        pieces.append(stream[at:at + cut])
        at += cut
    pieces.append(stream[at:])
    decoder, reference = FrameDecoder(), RefDecoder()
    out = [item for piece in pieces for item in decoder.feed(piece)]
    want = [verdict for piece in pieces for verdict in reference.feed(piece)]
    assert verdicts(out) == want
    assert decoder.errors == sum(v[0] == "bad" for v in want)
    assert all(type(i) is Frame or type(i) is BadFrame for i in out)


def test_the_decoder_gives_the_references_verdicts_past_the_longest_frame():
    long = ref_encode_frame(1, 0x92, bytes(range(1, 256)) * 4, time_ms=7, seal=lambda body: bytes(range(1, 13)))
    for stream in (long[:-1] + long[1:], long[1:-1] * 3 + long, b"\x55" * 2000 + long, long * 3):
        for size in (1, 7, 100, 1031, 1032, 1033, 5000):
            decoder, reference = FrameDecoder(), RefDecoder()
            pieces = [stream[i:i + size] for i in range(0, len(stream), size)]
            assert verdicts(item for p in pieces for item in decoder.feed(p)) == \
                [verdict for p in pieces for verdict in reference.feed(p)]


def test_a_frame_is_immutable_and_equal_to_one_built_by_hand():
    (frame,) = FrameDecoder().feed(encode_frame(3, 0x91, b"\x01\x02", time_ms=5))
    assert frame == Frame(3, 0x91, b"\x01\x02", 5) and not frame.authenticated
    with pytest.raises(AttributeError):
        frame.seq = 4               # type: ignore[misc]


# --- MACs --------------------------------------------------------------------------------------------

@settings(max_examples=300)
@given(st.binary(min_size=1, max_size=130), st.binary(max_size=1100))
def test_the_kept_key_mac_is_hmac_sha256(key, signed):
    assert Mac(key)(signed) == mac(key, signed) == hmac.new(key, signed, "sha256").digest()[:8]


# --- messages ----------------------------------------------------------------------------------------

CATALOGS = [(shoe.catalog, shoe.host_decode, shoe.device_decode),
            (sp.catalog, sp.host_decode, sp.device_decode)]


def field_by_field(catalog, type_code: int, payload: bytes):
    """The reference decode: each field by its own decoder, then the class (its range checks)."""
    cls = catalog.types()[type_code]
    values, at = [], 0
    try:
        for enc in catalog.layout(cls):
            value, at = enc.decode(payload, at)
            values.append(value)
        if at != len(payload):
            raise MessageError(f"{catalog.name} {cls.__name__}: {len(payload) - at} unexpected bytes at the end")
        return cls(*values)
    except MessageError as err:
        return ("refused", str(err))
    except (ValueError, TypeError) as err:
        return ("refused", f"{catalog.name} {cls.__name__}: {err}")


def decoded(decode, type_code, payload):
    try:
        return decode(type_code, payload)
    except MessageError as err:
        return ("refused", str(err))


@settings(max_examples=500)
@given(st.data())
def test_messages_decode_as_field_by_field(data):
    catalog, host_decode, device_decode = data.draw(st.sampled_from(CATALOGS))
    type_code, cls = data.draw(st.sampled_from(sorted(catalog.types().items())))
    decode = host_decode if cls.SENDER == messages.DEVICE else device_decode
    payload = data.draw(st.binary(max_size=20) | st.binary(max_size=80))
    assert decoded(decode, type_code, payload) == field_by_field(catalog, type_code, payload)
    good = field_by_field(catalog, type_code, payload)
    if not isinstance(good, tuple):     # a message that decodes: its bytes again, field by field
        want = b"".join(enc.encode(getattr(good, name)) for name, enc in
                        zip(good.__dataclass_fields__, catalog.layout(cls), strict=True))
        assert catalog.encode(good) == (type_code, want) == (type_code, payload)


def test_a_value_a_field_cannot_hold_is_still_the_fields_error():
    with pytest.raises(OverflowError):
        sp.catalog.encode(sp.SpotReading(1, 0, 1, 2 ** 32))
    with pytest.raises(OverflowError):
        shoe.catalog.encode(shoe.Jam(-1))
    assert sp.catalog.encode(sp.Lock(True, 1, True)) == (0x11, b"\x01\x01\x01")
    assert shoe.catalog.encode(shoe.DeckCheck()) == (0x13, b"")
    assert messages.SESSION.encode(messages.SetClock(2 ** 63)) == (0x71, (2 ** 63).to_bytes(8, "big"))


@settings(max_examples=300)
@given(st.sampled_from([1, 2, 3]), st.binary(max_size=120), st.integers(0, 5))
def test_item_lists_decode_as_item_by_item(width, payload, at):
    field = messages.ByteList(width)

    def reference():
        if at >= len(payload):
            raise MessageError("count")
        end = at + 1 + payload[at] * width
        if end > len(payload):
            raise MessageError("past")
        body = payload[at + 1:end]
        items = tuple(body) if width == 1 else tuple(tuple(body[i:i + width]) for i in range(0, len(body), width))
        return items, end
    try:
        want = reference()
    except MessageError:
        with pytest.raises(MessageError):
            field.decode(payload, at)
        return
    assert field.decode(payload, at) == want
