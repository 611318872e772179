"""Generates docs/protocols/examples.md: every message of the framed protocols and
the sign commands we use, with its exact bytes in hex, from the codecs themselves.

``python -m drivers.wire.examples > docs/protocols/examples.md``; a test
fails when the committed file differs, so the specification cannot drift from
the code.
"""

from __future__ import annotations

from typing import Any

from drivers.wire import alpha
from drivers.wire import messages as session
from drivers.wire import sensor_protocol as sp
from drivers.wire import shoe_protocol as shoe
from drivers.wire.auth import DEVICE, HOST, Authenticator, session_keys
from drivers.wire.framing import Frame, FrameDecoder, encode_frame
from drivers.wire.link import Link
from drivers.wire.link_words import ACK, HEARTBEAT, NAK, NAK_BAD_MESSAGE, NAK_UNREADABLE

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
SIGN_WIDTH = 20                 # the sign driver's default width (drivers/registry.py)
SIGN_PACKETS = [
    ("ACK/NAK responses on (special function `s`)", alpha.set_responses(True)),
    (f"memory configuration: TEXT A 256 bytes unlocked, STRING M {SIGN_WIDTH} bytes locked",
     alpha.memory_config([alpha.FileEntry("A", "A", 0x100), alpha.FileEntry("M", "B", SIGN_WIDTH)])),
    ("TEXT A: a page (middle line, hold) calling STRING M, then a page (rotate) calling STRING W",
     alpha.write_pages("A", [alpha.page(alpha.call_string("M")),
                             alpha.page(alpha.call_string("W"), mode=alpha.ROTATE)])),
    ("STRING M = `MEGA $250,000.00`, padded to the width",
     alpha.write_string("M", "MEGA $250,000.00".ljust(SIGN_WIDTH))),
    ("STRING M = `MEGA WON` (won, until the new value is posted)",
     alpha.write_string("M", "MEGA WON".ljust(SIGN_WIDTH))),
]
SIGN_ANSWERS = [
    ("sign response ACK", alpha.response(True)),
    ("sign response ACK followed by its status register (some signs; read as one ACK)",
     alpha.response(True) + bytes((alpha.NAK_ALWAYS,))),
    ("sign response NAK, checksum error (status register 0x50)", alpha.response(False, alpha.NAK_CHECKSUM)),
    ("sign response NAK, illegal command or file label (0x60)", alpha.response(False, alpha.NAK_ILLEGAL)),
]


def hexs(data: bytes) -> str:
    return data.hex(" ").upper()


EXAMPLE_KEY = bytes(range(32))                      # 00 01 02 .. 1F: an example, never a real key
EXAMPLE_NONCES = (0x11223344, 0x55667788)           # the host's N_h, the device's N_d
STAMP = 1_795_000_000_123                           # 2026-11-18 11:06:40.123 UTC


def stamped_and_sealed() -> list[str]:
    """A stamped frame, and a whole authenticated session as the real links make it (fixed key and nonces)."""
    door = shoe.catalog.encode(shoe.Door(1))
    rows = [f"| `Door(open=1)` at SEQ 05, stamped 1,795,000,000,123 ms (VER 0x41), plain | "
            f"`{hexs(encode_frame(SEQ, *door, time_ms=STAMP))}` |"]
    to_device, to_host = session_keys(EXAMPLE_KEY, *EXAMPLE_NONCES)
    return (["", "## Stamped and authenticated frames (framing.md, Time and Authentication)", "",
             "| frame | bytes on the wire |", "| --- | --- |", *rows, "",
             "### A whole session of a paired shoe", "",
             f"Pairing key `{hexs(EXAMPLE_KEY)}`; N_h = 11 22 33 44, N_d = 55 66 77 88. Session keys: "
             "K_hd = HMAC-SHA256(pairing key, \"TCP2 host to device\" 11 22 33 44 55 66 77 88) = "
             f"`{hexs(to_device)}`; K_dh = HMAC-SHA256(pairing key, \"TCP2 device to host\" 11 22 33 44 55 66 "
             f"77 88) = `{hexs(to_host)}`.", "",
             "Every frame of the session in the order it is sent, made by the host's and the device's own "
             "links (drivers/wire/link.py) with these nonces: the Hello and its ACK carry the nonces as "
             "COUNTER and count for nothing; each side's first frame under the session's keys is COUNTER 1, "
             "and every frame it sends after (a message, an ACK, a heartbeat) one more. SEQ numbers "
             "messages only: the device's HelloReply is SEQ 0 and its Identity SEQ 1 in every session.", "",
             "| # | from | SEQ | frame | COUNTER | key | bytes on the wire |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
            + [f"| {n} | {who} | {seq:02X} | {what} | {counter} | {key} | `{hexs(data)}` |"
               for n, (who, seq, what, counter, key, data) in enumerate(whole_session(), start=1)])


def whole_session() -> list[tuple[str, int, str, str, str, bytes]]:
    """A paired shoe's session from Hello to its first hand, through the real links: each frame with
    its sender, SEQ, what it is, its COUNTER (and what that is) and the key that seals it."""
    host = Link(shoe.host_decode, auth=Authenticator(EXAMPLE_KEY, HOST, nonce=lambda: EXAMPLE_NONCES[0]))
    device = Link(shoe.device_decode, auth=Authenticator(EXAMPLE_KEY, DEVICE, nonce=lambda: EXAMPLE_NONCES[1]))
    identity = session.Identity("Acme Gaming", "HFS-3", "SN42", "1.4.2", tuple(bytes.fromhex("1c291ca3")), 7)
    clock = [0.0]

    def say(link: Link, message: Any, stamp: int | None = None) -> bytes:
        return link.send(*shoe.catalog.encode(message), clock[0], time_ms=stamp)

    def react(side: str, events: list[Any]) -> bytes:      # what each side's program sends on what it heard
        out = b""
        for message in [getattr(e, "message", None) for e in events]:
            if side == "device" and isinstance(message, shoe.Hello):
                out += say(device, shoe.HelloReply(1, 2, "TCS-1.4", "SN42")) + say(device, identity)
            elif side == "device" and isinstance(message, shoe.Shuffle):
                out += say(device, shoe.ShuffleComplete(1, 52))
            elif side == "device" and isinstance(message, shoe.DeliverHand):
                out += say(device, shoe.HandDelivered(1, ((48, 1), (45, 1), (42, 1))), STAMP)
            elif isinstance(message, session.Identity):
                out += say(host, session.UseCapabilities(7)) + say(host, session.SetClock(1_795_000_000_000))
                out += say(host, shoe.Shuffle(1))
            elif isinstance(message, shoe.ShuffleComplete):
                out += say(host, shoe.DeliverHand(1))
        return out

    frames: list[tuple[str, int, str, str, str, bytes]] = []
    wire = [("host", say(host, shoe.Hello(1)))]
    while wire:
        sender, data = wire.pop(0)
        for chunk in [c for c in data.split(b"\0") if c]:
            (frame,) = FrameDecoder().feed(b"\0" + chunk + b"\0")
            assert isinstance(frame, Frame)
            frames.append((sender, frame.seq, _what(frame), *_sealing(sender, frame), b"\0" + chunk + b"\0"))
        clock[0] += 0.001
        receiver, other = (device, "device") if sender == "host" else (host, "host")
        events, out = receiver.receive(data, clock[0])
        answer = out + react(other, events)
        if answer:
            wire.append((other, answer))
    return frames


def _what(frame: Frame) -> str:
    if frame.type == ACK:
        return f"ACK of SEQ {frame.payload[0]:02X}"
    if frame.type == HEARTBEAT:
        return "HEARTBEAT"
    name = shoe.catalog.types()[frame.type].__name__
    return f"`{name}`" + (" stamped (TIME)" if frame.time_ms is not None else "")


def _sealing(sender: str, frame: Frame) -> tuple[str, str]:
    """The COUNTER as the table shows it, and the key: the Hello's and its ACK's are nonces."""
    if frame.type == 0x10:
        return "N_h", "pairing key"
    if frame.type == ACK and sender == "device" and frame.counter == EXAMPLE_NONCES[1]:
        return "N_d (the challenge)", "K_dh"
    return str(frame.counter), "K_hd" if sender == "host" else "K_dh"


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
              f"To the sign at address {SIGN_ADDRESS}, a one-line sign {SIGN_WIDTH} characters wide, in the order the "
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
