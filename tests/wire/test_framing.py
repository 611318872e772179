import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.wire.framing import (
    MAX_BODY,
    MAX_ENCODED,
    MAX_PAYLOAD,
    PLAIN_MAX_BODY,
    BadFrame,
    Frame,
    FrameDecoder,
    FrameEncodeError,
    cobs_decode,
    cobs_encode,
    crc16,
    encode_frame,
)

FRAMES = [Frame(0, 0x10, b""), Frame(7, 0x92, bytes(range(256)) + b"\0\0\0"),
          Frame(255, 0x01, b"\xff\x01"), Frame(3, 0x93, b"\0" * 600)]


def test_crc_is_ccitt_false():
    assert crc16(b"123456789") == 0x29B1           # the standard check value


def test_known_frame_bytes():
    # 00 | COBS(01 05 12 07 CRC) | 00 - the example in docs/protocols/framing.md
    wire = encode_frame(5, 0x12, b"\x07")
    body = bytes((1, 5, 0x12, 7))
    assert wire == b"\0" + cobs_encode(body + crc16(body).to_bytes(2, "big")) + b"\0"
    assert wire.count(0) == 2


@pytest.mark.parametrize("frame", FRAMES)
def test_whole_and_byte_by_byte(frame):
    wire = encode_frame(frame.seq, frame.type, frame.payload)
    assert FrameDecoder().feed(wire) == [frame]
    decoder = FrameDecoder()
    got = [item for b in wire for item in decoder.feed(bytes((b,)))]
    assert got == [frame]


def test_garbage_before_between_and_after():
    wire = b"".join(encode_frame(f.seq, f.type, f.payload) for f in FRAMES)
    decoder = FrameDecoder()
    out = decoder.feed(b"\x13\x37garbage" + wire + b"trailing")
    frames = [x for x in out if isinstance(x, Frame)]
    errors = [x for x in out if isinstance(x, BadFrame)]
    assert frames == FRAMES
    assert len(errors) == 1 and errors[0].raw == b"\x13\x37garbage"
    assert decoder.feed(b"\0") == [BadFrame("bad COBS encoding", b"trailing")]


def test_corrupted_frame_is_an_error_and_the_next_frame_decodes():
    good = encode_frame(1, 0x91, b"\x01\x34")
    bad = bytearray(encode_frame(2, 0x91, b"\x01\x34"))
    bad[4] ^= 0x40
    out = FrameDecoder().feed(bytes(bad) + good)
    assert isinstance(out[0], BadFrame) and out[0].reason in ("CRC mismatch", "bad COBS encoding")
    assert out[1] == Frame(1, 0x91, b"\x01\x34")


def test_wrong_version_and_short_frames():
    body = bytes((9, 1, 0x10))
    raw = cobs_encode(body + crc16(body).to_bytes(2, "big"))
    (err,) = FrameDecoder().feed(b"\0" + raw + b"\0")
    assert err.reason == "protocol version 9 unsupported (expected 1 or 2)"
    (err,) = FrameDecoder().feed(b"\0" + cobs_encode(b"\x01\x02") + b"\0")
    assert "shorter than 5" in err.reason


def test_overlong_input_without_delimiter_is_dropped():
    decoder = FrameDecoder()
    out = decoder.feed(b"\x55" * 5000)
    assert len(out) == 1 and "no delimiter" in out[0].reason
    assert decoder.feed(encode_frame(0, 0x10)) == [Frame(0, 0x10)]


def test_our_own_misuse_raises():
    with pytest.raises(FrameEncodeError):
        encode_frame(0, 0x10, bytes(MAX_PAYLOAD + 1))
    with pytest.raises(FrameEncodeError):
        encode_frame(256, 0x10)


@given(st.binary(max_size=2000))
def test_cobs_round_trip(data):
    encoded = cobs_encode(data)
    assert 0 not in encoded
    assert cobs_decode(encoded) == data


@settings(max_examples=300)
@given(st.binary(max_size=3000))
def test_random_bytes_never_raise(data):
    out = FrameDecoder().feed(data)
    assert all(isinstance(x, (Frame, BadFrame)) for x in out)


@settings(max_examples=300)
@given(st.binary(max_size=300), st.integers(0, 255), st.integers(0x10, 0xFF), st.binary(max_size=200))
def test_valid_frame_after_garbage_is_decoded(garbage, seq, type_, payload):
    decoder = FrameDecoder()
    out = decoder.feed(garbage + encode_frame(seq, type_, payload))
    assert out[-1] == Frame(seq, type_, payload)


@settings(max_examples=300)
@given(st.integers(0, 255), st.binary(min_size=1, max_size=100), st.data())
def test_mutated_frames_never_raise_nor_pass_as_other_frames(seq, payload, data):
    wire = bytearray(encode_frame(seq, 0x92, payload))
    i = data.draw(st.integers(1, len(wire) - 2))
    wire[i] = data.draw(st.integers(0, 255).filter(lambda b: b != wire[i]))
    out = FrameDecoder().feed(bytes(wire))
    for item in out:
        assert isinstance(item, (Frame, BadFrame))
        if isinstance(item, Frame):      # a single-byte change must never yield a wrong frame
            assert item == Frame(seq, 0x92, payload)


# --- the largest frame, exactly (docs/protocols/framing.md) --------------------------------------

def _largest_nonzero_payload():
    """1,000 payload bytes, none zero, whose CRC has no zero byte either: the worst case for COBS."""
    for filler in range(1, 256):
        payload = bytes((filler,)) * MAX_PAYLOAD
        body = bytes((1, 1, 0x92)) + payload
        if 0 not in crc16(body).to_bytes(2, "big"):
            return payload
    raise AssertionError("no filler byte gives a CRC without a zero")


def test_the_largest_frame_is_1005_bytes_and_1011_on_the_wire():
    assert (PLAIN_MAX_BODY, MAX_BODY, MAX_ENCODED) == (1005, 1025, 1030)
    wire = encode_frame(1, 0x92, _largest_nonzero_payload())
    assert len(wire) == 1011                        # 00, 1,009 bytes of COBS, 00
    assert FrameDecoder().feed(wire) == [Frame(1, 0x92, _largest_nonzero_payload())]
    decoder = FrameDecoder()                         # byte by byte: the partial frame is kept whole
    assert [f for b in wire for f in decoder.feed(bytes((b,)))] == [Frame(1, 0x92, _largest_nonzero_payload())]


def test_one_byte_past_the_largest_frame_is_refused():
    with pytest.raises(FrameEncodeError):
        encode_frame(1, 0x92, bytes(MAX_PAYLOAD + 1))
    (err,) = FrameDecoder().feed(b"\0" + b"\x55" * (MAX_ENCODED + 1) + b"\0")
    assert err.reason == "frame of 1031 bytes exceeds 1030"
    decoder = FrameDecoder()
    assert decoder.feed(b"\x55" * MAX_ENCODED) == []                     # could still be a frame
    (err,) = decoder.feed(b"\x55")
    assert err.reason == "no delimiter within 1030 bytes"


def test_the_largest_stamped_and_sealed_frame_is_1032_bytes_on_the_wire():
    payload = _largest_nonzero_payload()
    for filler in range(1, 256):            # a TIME and a trailer without a zero byte: the worst case
        wire = encode_frame(1, 0x92, payload, time_ms=int.from_bytes(bytes((filler,)) * 8, "big"),
                            seal=lambda body, f=filler: bytes((f,)) * 12)
        if wire.count(0) == 2 and len(wire) == 1032:
            break
    assert len(wire) == 1032 and wire.count(0) == 2
    (frame,) = FrameDecoder().feed(wire)
    assert frame.payload == payload and frame.counter is not None and len(frame.mac) == 8


def test_a_body_that_decodes_past_the_largest_is_refused():
    """COBS within the limit can decode to more than 1,000 bytes of payload (zeros cost nothing):
    still too long."""
    body = bytes((1, 1, 0x92)) + bytes(1002)
    body += crc16(body).to_bytes(2, "big")
    chunk = cobs_encode(body)
    assert len(chunk) <= MAX_ENCODED
    (err,) = FrameDecoder().feed(b"\0" + chunk + b"\0")
    assert err.reason == "payload of 1002 bytes exceeds 1000"
    body = bytes((1, 1, 0x92)) + bytes(1020)
    (err,) = FrameDecoder().feed(b"\0" + cobs_encode(body + crc16(body).to_bytes(2, "big")) + b"\0")
    assert err.reason == "payload of 1020 bytes exceeds 1000"


# --- COBS at runs of 254 non-zero bytes ----------------------------------------------------------

RUN = bytes(range(1, 255))          # 254 non-zero bytes


@pytest.mark.parametrize("data, encoded", [
    (RUN[:253], bytes((254,)) + RUN[:253]),                               # one group, no 0xFF
    (RUN, b"\xff" + RUN + b"\x01"),                                       # a full group, then the last
    (RUN + b"\x07", b"\xff" + RUN + b"\x02\x07"),
    (RUN + b"\0\x07", b"\xff" + RUN + b"\x01\x02\x07"),                   # the zero after a full group
    (RUN + RUN, b"\xff" + RUN + b"\xff" + RUN + b"\x01"),
])
def test_cobs_at_runs_of_254(data, encoded):
    assert cobs_encode(data) == encoded
    assert cobs_decode(encoded) == data


def test_cobs_takes_a_full_last_group_without_its_closing_01():
    """Some encoders end data that ends with 254 non-zero bytes at the 0xFF group, without the
    reference encoder's closing 01: both decode to the same bytes."""
    assert cobs_decode(b"\xff" + RUN) == RUN == cobs_decode(b"\xff" + RUN + b"\x01")
    body = next(b for filler in range(1, 256)               # 252 bytes, then 2 CRC bytes: 254, none 0
                if 0 not in (b := _with_crc(bytes((1, 1, 0x92)) + bytes((filler,)) * 249)))
    assert cobs_encode(body)[-1:] == b"\x01" and len(body) == 254
    assert FrameDecoder().feed(b"\0" + cobs_encode(body)[:-1] + b"\0") == [Frame(1, 0x92, body[3:-2])]


def _with_crc(body):
    return body + crc16(body).to_bytes(2, "big")
