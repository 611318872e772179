"""Generates docs/protocols/examples.md: every message of the framed protocols and
the sign commands we use, with its exact bytes in hex, from the codecs themselves.

``python -m drivers.wire.examples > docs/protocols/examples.md``; a test
fails when the committed file differs, so the specification cannot drift from
the code.
"""

from __future__ import annotations

from drivers.wire import alpha
from drivers.wire import messages as session
from drivers.wire import sensor_protocol as sp
from drivers.wire import shoe_protocol as shoe
from drivers.wire.auth import DEVICE, HOST, Authenticator, session_keys
from drivers.wire.framing import Frame, FrameDecoder, encode_frame
from drivers.wire.link import ACK, HEARTBEAT, NAK, NAK_BAD_MESSAGE, NAK_UNREADABLE

SEQ = 5
EXAMPLES = {
    "session": [
        session.UseCapabilities(session.CAP_TIMESTAMPS | session.CAP_KEEPS_EVENTS),
        session.SetClock(1_795_000_000_000),
        session.Identity("Acme Gaming", "HFS-3", "SN42", "1.4.2", tuple(bytes.fromhex("1c291ca3")),
                         session.CAP_TIMESTAMPS | session.CAP_KEEPS_EVENTS | session.CAP_AUTHENTICATION),
    ],
    "shoe": [
        shoe.Hello(1), shoe.Shuffle(1), shoe.DeliverHand(3), shoe.DeckCheck(), shoe.StatusRequest(),
        shoe.HelloReply(1, 2, "TCS-1.4", "SN42"), shoe.ShuffleComplete(1, 52),
        shoe.HandDelivered(3, ((48, 1), (45, 1), (42, 1))),
        shoe.DeckCheckResult(1, 52, (12,), (), ((12, 2),)), shoe.Status(1, 40, 1), shoe.Jam(1),
        shoe.Door(1), shoe.ShoeFault(shoe.FAULT_RECOGNITION, "reader fault"),
    ],
    "sensors": [
        sp.Hello(1), sp.Lock(0, 0x1F, 1), sp.Lamp(2, 2, sp.LAMP_FLASH), sp.SnapshotRequest(),
        sp.HelloReply(1, 6, 1, "BSC-2.0", "SN7"), sp.SpotReading(2, 0, sp.CHIPS, 2500),
        sp.SpotReading(2, 0, sp.EMPTY, 0), sp.Snapshot.pack({(1, 0): (sp.CHIPS, 500)}, 1),
        sp.Snapshot.pack({(1, 0): (sp.CHIPS, 500), (2, 2): (sp.CHIPS, sp.UNKNOWN_VALUE)}, 2),
        sp.SensorFault(4, 1, 2),
    ],
}


# Frames a host configured for six positions refuses whole, with NAK reason 2 (sensors.md).
SENSOR_REFUSALS = [
    ("SpotReading for position 7", sp.catalog.types()[0x91], bytes((7, 0, 1, 0, 0, 0x01, 0xF4))),
    ("SpotReading for spot 5", sp.catalog.types()[0x91], bytes((2, 5, 1, 0, 0, 0x01, 0xF4))),
    ("SensorFault for spot 7", sp.catalog.types()[0x93], bytes((2, 7, 1))),
    ("Snapshot whose row count (2) is not its positions (1)", sp.catalog.types()[0x92],
     bytes((1, 2)) + bytes(2 * sp.ROW)),
]
SIGN_ADDRESS = "01"
SIGN_PACKETS = [
    ("ACK/NAK responses on (special function `s`)", alpha.set_responses(True)),
    ("memory configuration: TEXT A 256 bytes unlocked, STRING M 16 bytes locked",
     alpha.memory_config([alpha.FileEntry("A", "A", 0x100), alpha.FileEntry("M", "B", 16)])),
    ("TEXT A: a page (middle line, hold) calling STRING M, then a page (rotate) calling STRING W",
     alpha.write_pages("A", [alpha.page(alpha.call_string("M")),
                             alpha.page(alpha.call_string("W"), mode=alpha.ROTATE)])),
    ("STRING M = `MEGA $250,000.00`", alpha.write_string("M", "MEGA $250,000.00")),
    ("STRING M = `MEGA WON` (won, until the new value is posted)", alpha.write_string("M", "MEGA WON".ljust(16))),
]
SIGN_ANSWERS = [
    ("sign response ACK", alpha.response(True)),
    ("sign response NAK, checksum error (status register 0x50)", alpha.response(False, alpha.NAK_CHECKSUM)),
    ("sign response NAK, illegal command or file label (0x60)", alpha.response(False, alpha.NAK_ILLEGAL)),
]


def hexs(data: bytes) -> str:
    return data.hex(" ").upper()


EXAMPLE_KEY = bytes(range(32))                      # 00 01 02 .. 1F: an example, never a real key
EXAMPLE_NONCES = (0x11223344, 0x55667788)           # the host's N_h, the device's N_d
STAMP = 1_795_000_000_123                           # 2026-11-18 11:06:40.123 UTC


def stamped_and_sealed() -> list[str]:
    """A stamped frame and an authenticated session's first frames, from fixed key and nonces."""
    door = shoe.catalog.encode(shoe.Door(1))
    host = Authenticator(EXAMPLE_KEY, HOST, nonce=lambda: EXAMPLE_NONCES[0])
    device = Authenticator(EXAMPLE_KEY, DEVICE, nonce=lambda: EXAMPLE_NONCES[1])
    hello = encode_frame(0, *shoe.catalog.encode(shoe.Hello(1)), seal=host.seal_hello)
    (frame,) = FrameDecoder().feed(hello)
    assert isinstance(frame, Frame) and device.check_hello(frame) is None
    ack = encode_frame(0, ACK, b"\x00", seal=lambda body: device.seal_hello_ack(body, EXAMPLE_NONCES[1]))
    (frame,) = FrameDecoder().feed(ack)
    assert isinstance(frame, Frame) and host.check_hello_ack(frame)
    answer = encode_frame(0, HEARTBEAT, seal=lambda body: host.seal(body) or b"")
    (frame,) = FrameDecoder().feed(answer)
    assert isinstance(frame, Frame) and device.confirm(frame)
    reply = encode_frame(0, *shoe.catalog.encode(shoe.HelloReply(1, 2, "TCS-1.4", "SN42")),
                         seal=lambda body: device.seal(body) or b"")
    hand = shoe.catalog.encode(shoe.HandDelivered(1, ((48, 1), (45, 1), (42, 1))))
    device.sent = 8                                 # later in the session: its ninth sealed frame
    sealed_hand = encode_frame(SEQ, *hand, time_ms=STAMP, seal=lambda body: device.seal(body) or b"")
    rows = [
        ("`Door(open=1)` at SEQ 05, stamped 1,795,000,000,123 ms (VER 0x41)",
         encode_frame(SEQ, *door, time_ms=STAMP)),
        ("the host's Hello, SEQ 00, N_h = 11 22 33 44 as COUNTER, sealed with the pairing key (VER 0x82)", hello),
        ("the device's ACK of it, its challenge: N_d = 55 66 77 88 as COUNTER, sealed with K_dh", ack),
        ("the host's answer: a HEARTBEAT, COUNTER 1, sealed with K_hd (the device's session starts here)",
         answer),
        ("the device's `HelloReply(1, 2, TCS-1.4, SN42)`, SEQ 00, COUNTER 1, sealed with K_dh", reply),
        ("the device's `HandDelivered(1, Ac Kd Qh)` later in the session: SEQ 05, stamped, COUNTER 9, "
         "K_dh (VER 0xC2)", sealed_hand),
    ]
    to_device, to_host = session_keys(EXAMPLE_KEY, *EXAMPLE_NONCES)
    return (["", "## Stamped and authenticated frames (framing.md, Time and Authentication)", "",
             f"Pairing key `{hexs(EXAMPLE_KEY)}`. Session keys: K_hd = HMAC-SHA256(pairing key, "
             f"\"TCP2 host to device\" 11 22 33 44 55 66 77 88) = `{hexs(to_device)}`; K_dh = "
             f"HMAC-SHA256(pairing key, \"TCP2 device to host\" 11 22 33 44 55 66 77 88) = `{hexs(to_host)}`.",
             "", "| frame | bytes on the wire |", "| --- | --- |"]
            + [f"| {label} | `{hexs(data)}` |" for label, data in rows])


def render() -> str:
    lines = ["# Protocol examples (generated)", "",
             "Generated by `python -m drivers.wire.examples`; do not edit by hand. "
             f"Every message example uses SEQ = 0x{SEQ:02X}; a link frame carries in its header the SEQ it "
             "answers (an ACK or a NAK), 0xFF for a frame that could not be read, 0 for a heartbeat "
             "(`framing.md`).", "",
             "## Link frames", "", "| frame | header SEQ | bytes on the wire |", "| --- | --- | --- |"]
    lines.append(f"| ACK of SEQ 05 | 0x05 | `{hexs(encode_frame(SEQ, ACK, bytes((SEQ,))))}` |")
    lines.append(f"| NAK of SEQ 05, bad message | 0x05 | "
                 f"`{hexs(encode_frame(SEQ, NAK, bytes((SEQ, NAK_BAD_MESSAGE))))}` |")
    lines.append(f"| NAK, unreadable frame | 0xFF | "
                 f"`{hexs(encode_frame(0xFF, NAK, bytes((0xFF, NAK_UNREADABLE))))}` |")
    lines.append(f"| HEARTBEAT | 0x00 | `{hexs(encode_frame(0, HEARTBEAT))}` |")
    for name, catalog in (("session", session.SESSION), ("shoe", shoe.catalog), ("sensors", sp.catalog)):
        title = "Session messages (every framed device)" if name == "session" else f"{name.capitalize()} messages"
        lines += ["", f"## {title}", "",
                  "| message | sender | type | payload | bytes on the wire |", "| --- | --- | --- | --- | --- |"]
        for message in EXAMPLES[name]:
            type_code, payload = catalog.encode(message)
            lines.append(f"| `{message!r}` | {message.SENDER} | 0x{type_code:02X} | "
                         f"`{hexs(payload) or '(empty)'}` | `{hexs(encode_frame(SEQ, type_code, payload))}` |")
    lines += stamped_and_sealed()
    lines += ["", "## Sensor frames the host refuses", "",
              "Each is answered NAK, reason 2 (bad message), for the frame's SEQ; nothing in it is acted on.", "",
              "| frame | bytes on the wire | the host's answer |", "| --- | --- | --- |"]
    for label, cls, payload in SENSOR_REFUSALS:
        lines.append(f"| {label} | `{hexs(encode_frame(SEQ, cls.TYPE, payload))}` | "
                     f"`{hexs(encode_frame(SEQ, NAK, bytes((SEQ, NAK_BAD_MESSAGE))))}` |")
    lines += ["", "## Alpha sign packets", "",
              f"To the sign at address {SIGN_ADDRESS}, a one-line sign 16 characters wide, in the order the "
              "controller sends them after every (re)connection (`alpha-sign.md`).", "",
              "| command | bytes on the wire |", "| --- | --- |"]
    for label, command in SIGN_PACKETS:
        lines.append(f"| {label} | `{hexs(alpha.packet(command, SIGN_ADDRESS))}` |")
    for label, answer in SIGN_ANSWERS:
        lines.append(f"| {label} | `{hexs(answer)}` |")
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    print(render(), end="")
