import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.wire import alpha


def test_packet_layout_and_checksum():
    pkt = alpha.packet(alpha.write_string("M", "$1.00"))
    assert pkt[:5] == bytes(5) and pkt[5:9] == b"\x01Z00"
    block = b"\x02GM$1.00\x03"
    assert pkt[9:9 + len(block)] == block
    assert pkt[9 + len(block):-1] == f"{sum(block):04X}".encode() == b"017C"   # 02+47+4D+24+31+2E+30+30+03 = 0x17C
    assert pkt[-1] == alpha.EOT


def test_commands():
    assert alpha.write_text("A", "HI") == b"AA\x1b bHI"
    assert alpha.call_string("M") == b"\x10M"
    assert alpha.memory_config([alpha.FileEntry("A", "A", 0x100), alpha.FileEntry("M", "B", 0x20)]) \
        == b"E$AAU0100FF00MBL00200000"         # a STRING file locked, as the protocol wants
    with pytest.raises(alpha.AlphaEncodeError, match="STRING M: the protocol wants STRING files locked"):
        alpha.FileEntry("M", "B", 0x20, locked=False).encode()
    assert alpha.set_responses(True) == b"Es1" and alpha.set_responses(False) == b"Es0"
    # a TEXT of two pages: the values on every line of a two-line sign (hold), the message rotating
    assert alpha.write_pages("A", [alpha.page(b"\x10M\x0d\x10J", position=alpha.FILL),
                                   alpha.page(b"\x10W", mode=alpha.ROTATE)]) == b"AA\x1b0b\x10M\x0d\x10J\x1b a\x10W"
    with pytest.raises(alpha.AlphaEncodeError, match="at most 125"):
        alpha.write_string("M", "x" * 126)
    with pytest.raises(alpha.AlphaEncodeError, match="control byte 0x04"):
        alpha.write_string("M", "a\x04")
    with pytest.raises(alpha.AlphaEncodeError, match="label '0'"):
        alpha.write_string("0", "x")
    with pytest.raises(alpha.AlphaEncodeError, match="two hex digits"):
        alpha.packet(b"GMx", address="ZZ")


PACKETS = [alpha.packet(alpha.memory_config([alpha.FileEntry("M", "B", 0x20)])),
           alpha.packet(alpha.write_text("A", b"\x10M")),
           alpha.packet(alpha.write_string("M", "$250,000.00"), address="1F")]


def test_sign_side_decodes_whole_bytewise_and_with_garbage():
    expected = [alpha.SignCommand("Z", "00", "E", b"$MBL00200000"),
                alpha.SignCommand("Z", "00", "A", b"A\x1b b\x10M"),
                alpha.SignCommand("Z", "1F", "G", b"M$250,000.00")]
    assert alpha.PacketDecoder().feed(b"".join(PACKETS)) == expected
    decoder = alpha.PacketDecoder()
    assert [c for b in b"".join(PACKETS) for c in decoder.feed(bytes((b,)))] == expected
    assert alpha.PacketDecoder().feed(b"noise\x07" + b"".join(PACKETS) + b"tail") == expected


def test_bad_checksum_is_refused_with_the_checksum_status():
    bad = bytearray(PACKETS[2])
    bad[-3] = ord("0") if bad[-3] != ord("0") else ord("1")
    out = alpha.PacketDecoder().feed(bytes(bad) + PACKETS[0])
    assert isinstance(out[0], alpha.BadPacket) and out[0].status == alpha.NAK_CHECKSUM == 0x10
    assert out[1].code == "E"


def test_interrupted_packet_then_a_good_one():
    out = alpha.PacketDecoder().feed(PACKETS[2][:12] + PACKETS[1])
    assert isinstance(out[0], alpha.BadPacket) and "interrupted" in out[0].reason
    assert out[1].code == "A"


def test_responses():
    dec = alpha.ResponseDecoder()
    assert dec.feed(b"\x06\x15\x50xx\x06") == [alpha.SignAck(), alpha.SignNak(0x50), alpha.SignAck()]
    assert dec.ignored == 2


@pytest.mark.parametrize(("status", "reasons"), [
    (0x41, ["parity error"]), (0x42, ["framing error"]), (0x44, ["serial timeout"]),
    (0x48, ["buffer overflow"]), (0x50, ["checksum error"]), (0x60, ["illegal command or file label"]),
    (0x51, ["parity error", "checksum error"]), (0x40, ["status 0x40"])])
def test_nak_status_is_the_serial_error_status_register(status, reasons):
    """Bit 0 parity, 1 framing, 2 timeout, 3 overflow, 4 checksum, 5 illegal; bit 6 always 1."""
    assert alpha.SignNak(status).reasons == reasons
    assert alpha.SignNak(0x60).only_illegal and not alpha.SignNak(0x70).only_illegal


def test_a_real_checksum_nak_is_15_50():
    assert alpha.response(False, alpha.NAK_CHECKSUM) == b"\x15\x50"
    assert alpha.response(False, alpha.NAK_ILLEGAL) == b"\x15\x60"
    assert alpha.response(True) == b"\x06"


@settings(max_examples=300)
@given(st.binary(max_size=3000))
def test_random_bytes_never_raise(data):
    for item in alpha.PacketDecoder().feed(data):
        assert isinstance(item, (alpha.SignCommand, alpha.BadPacket))


@settings(max_examples=300)
@given(st.binary(max_size=200).filter(lambda b: 0x04 not in b), st.text("0123456789$,.", max_size=20))
def test_valid_packet_after_garbage(garbage, text):
    out = alpha.PacketDecoder().feed(garbage + alpha.packet(alpha.write_string("M", text)))
    assert out[-1] == alpha.SignCommand("Z", "00", "G", b"M" + text.encode())
