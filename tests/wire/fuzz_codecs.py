"""Hostile device bytes (issue 16): the codecs as fuzz targets (tests/wire/fuzzing.py has the inputs
and the rules): the frame decoder, each end of the link for both framed protocols, the message
catalogs' decoders for each side, and the Alpha sign's response and packet decoders."""

from __future__ import annotations

from drivers.wire import alpha
from drivers.wire import sensor_protocol as sp
from drivers.wire import shoe_protocol as shoe
from drivers.wire.framing import BadFrame, Frame, FrameDecoder, encode_frame
from drivers.wire.link import Link
from drivers.wire.link_words import ACK, NAK, Delivered, LinkFault, MessageError
from drivers.wire.messages import DEVICE, HOST, Message
from tests.wire.fuzzing import (
    PROTOCOLS,
    Broken,
    Rnd,
    Target,
    chunks,
    garbage,
    message,
    mutate_bytes,
    payload_case,
    printable,
    wire_case,
)


class Framing(Target):
    name = "framing FrameDecoder"

    def __init__(self) -> None:
        self.decoder = FrameDecoder()

    def case(self, r: Rnd) -> bytes:
        return wire_case(r, r.choice(("shoe", "sensors")), r.choice((HOST, DEVICE)))

    def feed(self, data: bytes, r: Rnd) -> str:
        items = [item for chunk in chunks(r, data) for item in self.decoder.feed(chunk)]
        if not all(isinstance(x, Frame | BadFrame) for x in items):
            raise Broken(f"decoder yielded {items!r}")
        kinds = {"frame" if isinstance(x, Frame) else "bad frame" for x in items}
        return " + ".join(sorted(kinds)) or "nothing yet (partial)"

    def check(self, r: Rnd) -> None:
        # What was pending may end at the good frame's leading 0 (as a bad frame, or a good one that
        # lacked only its closing 0): the good frame itself must come out last, as sent.
        good = Frame(r.randrange(256), 0x91, r.randbytes(r.randrange(30)))
        items = self.decoder.feed(encode_frame(good.seq, good.type, good.payload))
        if not items or items[-1] != good:
            raise Broken(f"a good frame after the input came out as {items!r}")


def _frames(data: bytes) -> list[Frame]:
    return [f for f in FrameDecoder().feed(data) if isinstance(f, Frame)]


class LinkTarget(Target):
    """One end of the link, receiving what the other end (``peer``) sends, now and then with a
    message of its own in flight (so hostile ACKs and NAKs meet something)."""

    def __init__(self, protocol: str, receiver: str) -> None:
        self.protocol, self.receiver = protocol, receiver
        self.peer = HOST if receiver == DEVICE else DEVICE
        self.catalog = PROTOCOLS[protocol]
        decode = getattr({"shoe": shoe, "sensors": sp}[protocol], f"{receiver}_decode")
        self.link = Link(decode)
        self.name = f"link {receiver} side, {protocol}"
        self.now = 0.0

    def case(self, r: Rnd) -> bytes:
        return wire_case(r, self.protocol, self.peer)

    def feed(self, data: bytes, r: Rnd) -> str:
        self.now += r.random() * 0.2
        if self.link.idle and r.random() < 0.5:
            type_code, payload = self.catalog.encode(message(r, self.protocol, self.receiver, session=False))
            self.link.send(type_code, payload, self.now)
        events, out = [], bytearray()
        for chunk in chunks(r, data):
            got, wire = self.link.receive(chunk, self.now)
            events += got
            out += wire
        if r.random() < 0.3:
            self.link.poll(self.now)
        faults = [e for e in events if isinstance(e, LinkFault) and not e.reason.startswith("reserved")]
        naks = [f for f in _frames(bytes(out)) if f.type == NAK]
        if len(naks) != len(faults):
            raise Broken(f"{len(faults)} faults but {len(naks)} NAKs written: {events!r}")
        for event in events:
            if isinstance(event, Delivered):
                self._clean(event.message)
        return " + ".join(sorted({type(e).__name__ for e in events})) or "nothing (link frame, repeat or partial)"

    def _clean(self, msg: Message) -> None:
        if type(msg).SENDER != self.peer or self.catalog.types().get(type(msg).TYPE) is not type(msg):
            raise Broken(f"delivered {msg!r}, which the {self.peer} does not send")
        decode = getattr({"shoe": shoe, "sensors": sp}[self.protocol], f"{self.receiver}_decode")
        if decode(*self.catalog.encode(msg)) != msg:
            raise Broken(f"delivered {msg!r}, which does not encode back to itself")

    def check(self, r: Rnd) -> None:
        msg = message(r, self.protocol, self.peer, session=False)
        self.link.receive(b"\0", self.now)          # what was pending ends (it may be a frame after all)
        seq = ((self.link.last_seq if self.link.last_seq is not None else r.randrange(256)) + 1) % 256
        events, out = self.link.receive(encode_frame(seq, *self.catalog.encode(msg)), self.now)
        if not events or events[-1] != Delivered(msg):
            raise Broken(f"a good frame (SEQ {seq}) after the input came out as {events!r}")
        if Frame(seq, ACK, bytes((seq,))) not in _frames(out):
            raise Broken(f"a good frame (SEQ {seq}) after the input was not ACKed")


class CatalogTarget(Target):
    """A message catalog's decoder for one side, fed (type, payload) directly."""

    def __init__(self, protocol: str, receiver: str) -> None:
        self.protocol, self.receiver = protocol, receiver
        self.sender = HOST if receiver == DEVICE else DEVICE
        self.catalog = PROTOCOLS[protocol]
        self.decode = getattr({"shoe": shoe, "sensors": sp}[protocol], f"{receiver}_decode")
        self.name = f"{protocol} {receiver}_decode"

    def case(self, r: Rnd) -> tuple[int, bytes]:
        return payload_case(r, self.protocol, self.sender)

    def feed(self, data: tuple[int, bytes], r: Rnd) -> str:
        try:
            msg = self.decode(*data)
        except MessageError as err:
            return "refused: unknown type (NAK 3)" if err.unknown_type else "refused: bad message (NAK 2)"
        if self.catalog.encode(msg) != data:
            raise Broken(f"decoded {msg!r}, which encodes to other bytes")
        return "message"


class AlphaResponses(Target):
    name = "alpha ResponseDecoder (host side)"

    def __init__(self) -> None:
        self.decoder = alpha.ResponseDecoder()

    def case(self, r: Rnd) -> bytes:
        parts = [r.choice((b"\x06", b"\x15" + bytes((r.randrange(256),)), b"\x15", garbage(r)[:r.randint(1, 8)]))
                 for _ in range(r.randint(1, 4))]
        return b"".join(parts)

    def feed(self, data: bytes, r: Rnd) -> str:
        items = self.decoder.feed(data)
        for item in items:
            if not isinstance(item, alpha.SignAck | alpha.SignNak) or (
                    isinstance(item, alpha.SignNak) and not item.reasons):
                raise Broken(f"decoder yielded {item!r}")
        return " + ".join(sorted({type(x).__name__ for x in items})) or "ignored"

    def check(self, r: Rnd) -> None:
        items = self.decoder.feed(b"\x06") + self.decoder.feed(b"\x06")    # the first may be a NAK's status
        if alpha.SignAck() not in items:
            raise Broken(f"two ACKs after the input came out as {items!r}")


def sign_packet(r: Rnd) -> tuple[bytes, alpha.SignCommand]:
    """A valid packet of the commands the sign driver sends, and what the sign should read."""
    label = r.choice([chr(c) for c in range(0x20, 0x7F) if chr(c) not in "0?"])
    text = printable(r, alpha.MAX_STRING)
    command = r.choice((alpha.write_string(label, text), alpha.write_text(label, text), alpha.read_string(label),
                        alpha.memory_config([alpha.FileEntry(label, r.choice("AB"), r.randrange(0x1000))])))
    address = f"{r.randrange(256):02X}"
    return alpha.packet(command, address), alpha.SignCommand("Z", address, chr(command[0]), command[1:])


class AlphaPackets(Target):
    name = "alpha PacketDecoder (sign side)"

    def __init__(self) -> None:
        self.decoder = alpha.PacketDecoder()

    def case(self, r: Rnd) -> bytes:
        out = bytearray()
        for _ in range(r.choice((1, 1, 2))):
            kind = r.random()
            wire = sign_packet(r)[0]
            out += wire if kind < 0.3 else mutate_bytes(r, wire) if kind < 0.9 else garbage(r)
        return bytes(out)

    def feed(self, data: bytes, r: Rnd) -> str:
        items = [item for chunk in chunks(r, data) for item in self.decoder.feed(chunk)]
        for item in items:
            if not isinstance(item, alpha.SignCommand | alpha.BadPacket):
                raise Broken(f"decoder yielded {item!r}")
        return " + ".join(sorted({type(x).__name__ for x in items})) or "nothing yet (partial)"

    def check(self, r: Rnd) -> None:
        wire, command = sign_packet(r)
        items = self.decoder.feed(wire)
        if not items or items[-1] != command:
            raise Broken(f"a good packet after the input came out as {items!r}")


def codec_targets() -> list[Target]:
    targets: list[Target] = [Framing()]
    for protocol in ("shoe", "sensors"):
        for receiver in (HOST, DEVICE):
            targets += [LinkTarget(protocol, receiver), CatalogTarget(protocol, receiver)]
    return [*targets, AlphaResponses(), AlphaPackets()]
