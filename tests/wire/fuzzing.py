"""Hostile device bytes (issue 16): valid frames of every message type, mutated, fed to every decoder.

Shared by the hypothesis tests (tests/wire/test_fuzz.py, tests/drivers/test_hostile_bytes.py: a
fixed budget in CI) and the long campaign (benchmarks/fuzz.py: a million inputs per target). One
``random.Random`` drives everything: the same seed gives the same inputs.

A target (``Target``) makes one input from the random source (``case``) and takes it (``feed``),
returning the outcome's name for the counts. It raises ``Broken`` when the input broke a rule:

- no exception escapes a decoder or a driver's byte handler;
- every bad input ends as a refusal (``MessageError``, ``BadFrame``, ``BadPacket``; on a link a NAK
  written for each fault) or as a clean message: one that encodes back to the very bytes it came from;
- the state stays consistent: a good frame right after the input is still delivered (``check``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from drivers.wire import sensor_protocol as sp
from drivers.wire import shoe_protocol as shoe
from drivers.wire.framing import encode_frame
from drivers.wire.link_words import ACK, HEARTBEAT, NAK
from drivers.wire.messages import (
    DEVICE,
    HOST,
    TEXT,
    ByteList,
    Catalog,
    Identity,
    Int,
    Message,
    SetClock,
    Text,
    UseCapabilities,
)

Rnd = random.Random
BOUNDARIES = (0, 1, 2, 3, 4, 5, 6, 7, 9, 0x0F, 0x10, 0x1F, 0x20, 51, 52, 0x7E, 0x7F, 0x80, 0x90, 0xFE, 0xFF)


class Broken(AssertionError):
    """An input broke one of the rules above."""


# --- valid messages of every type ------------------------------------------------------------

def printable(r: Rnd, most: int = 255) -> str:
    size = min(most, r.choice((0, 1, 3, 8, 16, r.randrange(256))))
    return bytes(32 + b % 95 for b in r.randbytes(size)).decode("ascii")


def _small(r: Rnd, top: int = 9) -> int:
    return r.randint(1, top) if r.random() < 0.8 else r.randint(1, 255)


def _card(r: Rnd) -> tuple[int, int]:
    deck = r.choice((1, 1, 2)) if r.random() < 0.9 else r.randrange(256)
    return (r.randrange(52) if r.random() < 0.9 else shoe.UNREADABLE), deck


def _cards(r: Rnd) -> tuple[tuple[int, int], ...]:
    return tuple(_card(r) for _ in range(r.choice((3, 3, 3, 0, 1, 2, 4, r.randrange(40)))))


def _version(r: Rnd) -> int:
    return 1 if r.random() < 0.9 else r.randrange(256)


def _value(r: Rnd) -> int:
    return r.choice((0, 100, 500, 2500, sp.UNKNOWN_VALUE, r.randrange(2 ** 32)))


def _snapshot(r: Rnd) -> sp.Snapshot:
    positions = r.choice((1, 6, 9, 0, r.randrange(40)))
    readings = {(p, s): (sp.CHIPS, _value(r)) for p in range(1, positions + 1) for s in range(5)
                if r.random() < 0.2}
    return sp.Snapshot.pack(readings, positions)


VALID: dict[type[Message], Callable[[Rnd], Message]] = {
    UseCapabilities: lambda r: UseCapabilities(r.randrange(2 ** 16)),
    SetClock: lambda r: SetClock(r.choice((0, 1_795_000_000_000, r.randrange(2 ** 64)))),
    Identity: lambda r: Identity(printable(r) or "M", printable(r) or "X", printable(r) or "S", printable(r) or "1",
                                 tuple(r.randrange(256) for _ in range(r.randrange(1, 65))), r.randrange(2 ** 16)),
    shoe.Hello: lambda r: shoe.Hello(_version(r)),
    shoe.Shuffle: lambda r: shoe.Shuffle(r.choice(shoe.DECKS)),
    shoe.DeliverHand: lambda r: shoe.DeliverHand(_small(r)),
    shoe.DeckCheck: lambda r: shoe.DeckCheck(),
    shoe.StatusRequest: lambda r: shoe.StatusRequest(),
    shoe.HelloReply: lambda r: shoe.HelloReply(_version(r), r.choice((1, 2)), printable(r), printable(r)),
    shoe.ShuffleComplete: lambda r: shoe.ShuffleComplete(r.choice(shoe.DECKS), r.choice((52, 51, r.randrange(256)))),
    shoe.HandDelivered: lambda r: shoe.HandDelivered(_small(r), _cards(r)),
    shoe.DeckCheckResult: lambda r: shoe.DeckCheckResult(
        r.choice(shoe.DECKS), r.choice((52, r.randrange(256))), tuple(sorted(r.sample(range(52), r.randrange(4)))),
        tuple(r.sample(range(52), r.randrange(3))), _cards(r)[:r.randrange(4)]),
    shoe.Status: lambda r: shoe.Status(r.randrange(16), r.randrange(256), r.choice(shoe.DECKS)),
    shoe.Jam: lambda r: shoe.Jam(r.choice((0, 1, 2, 3, 4, r.randrange(256)))),
    shoe.Door: lambda r: shoe.Door(r.randrange(2)),
    shoe.ShoeFault: lambda r: shoe.ShoeFault(r.choice(list(shoe.SHOE_FAULTS)), printable(r)),
    sp.Hello: lambda r: sp.Hello(_version(r)),
    sp.Lock: lambda r: sp.Lock(r.randrange(10), r.randrange(32), r.randrange(2)),
    sp.Lamp: lambda r: sp.Lamp(r.randrange(10), r.randrange(5), r.randrange(3)),
    sp.SnapshotRequest: lambda r: sp.SnapshotRequest(),
    sp.HelloReply: lambda r: sp.HelloReply(_version(r), _small(r), r.randrange(2), printable(r), printable(r)),
    sp.SpotReading: lambda r: sp.SpotReading(_small(r), r.randrange(5), r.randrange(2), _value(r)),
    sp.Snapshot: _snapshot,
    sp.SensorFault: lambda r: sp.SensorFault(_small(r), r.randrange(5), r.choice((1, 2, 3, r.randrange(256)))),
}
PROTOCOLS: dict[str, Catalog] = {"shoe": shoe.catalog, "sensors": sp.catalog}


def message(r: Rnd, protocol: str, sender: str, *, session: bool = True) -> Message:
    """A valid message ``sender`` may send (without Hello / HelloReply unless ``session``)."""
    classes = [cls for cls in PROTOCOLS[protocol].types().values() if cls.SENDER == sender
               and (session or cls.TYPE not in (0x10, 0x90))]
    return VALID[r.choice(classes)](r)


# --- mutations ----------------------------------------------------------------------------------

def mutate_bytes(r: Rnd, data: bytes) -> bytes:
    """Bit flips, a byte set to a boundary, truncation, extension, a byte inserted or deleted."""
    out = bytearray(data)
    for _ in range(r.choice((1, 1, 1, 2, 3))):
        kind = r.randrange(6)
        if kind == 0 and out:
            out[r.randrange(len(out))] ^= 1 << r.randrange(8)
        elif kind == 1 and out:
            out[r.randrange(len(out))] = r.choice(BOUNDARIES)
        elif kind == 2:
            del out[r.randrange(len(out) + 1):]
        elif kind == 3:
            out += r.randbytes(r.randint(1, 8))
        elif kind == 4:
            out.insert(r.randrange(len(out) + 1), r.choice(BOUNDARIES))
        elif out:
            del out[r.randrange(len(out))]
    return bytes(out)


def mutate_field(r: Rnd, catalog: Catalog, msg: Message, payload: bytes) -> bytes:
    """One field of the payload set out of range: an integer to a boundary, a text or list's length
    wrong or a text's byte unprintable, a list's item changed."""
    fields = catalog.layout(type(msg))
    if not fields:
        return payload + bytes((r.choice(BOUNDARIES),))
    offsets, at = [], 0
    for enc in fields:
        offsets.append(at)
        at = enc.decode(payload, at)[1]
    index = r.randrange(len(fields))
    enc, at = fields[index], offsets[index]
    out = bytearray(payload)
    if isinstance(enc, Int):
        width = enc.size
        value = r.choice((0, 1, 2, 3, 5, 52, 0xFF, 2 ** (8 * width) - 1, r.randrange(2 ** (8 * width))))
        out[at:at + width] = value.to_bytes(width, "big")
    elif isinstance(enc, Text | ByteList):
        if r.random() < 0.5 or len(out) == at + 1:
            out[at] = r.choice(BOUNDARIES)                   # a length or count that does not fit
        else:
            out[r.randrange(at + 1, len(out))] = r.choice(BOUNDARIES if enc is not TEXT else (0, 7, 0x7F, 0xFF))
    return bytes(out)


def garbage(r: Rnd) -> bytes:
    """Random bytes, now and then with delimiters and 0xFF in them."""
    out = bytearray(r.randbytes(r.choice((1, 2, 5, 16, 64, r.randrange(1, 1200)))))
    for _ in range(r.randrange(4)):
        out[r.randrange(len(out))] = r.choice((0, 0xFF))
    return bytes(out)


def payload_case(r: Rnd, protocol: str, sender: str) -> tuple[int, bytes]:
    """A message's (type, payload): valid, field-mutated, byte-mutated, of the other side or of no type."""
    catalog = PROTOCOLS[protocol]
    other = HOST if sender == DEVICE else DEVICE
    msg = message(r, protocol, other if r.random() < 0.05 else sender)
    type_code, payload = catalog.encode(msg)
    kind = r.random()
    if kind < 0.3:
        return type_code, payload
    if kind < 0.6:
        return type_code, mutate_field(r, catalog, msg, payload)
    if kind < 0.9:
        return type_code, mutate_bytes(r, payload)
    return r.randrange(256), mutate_bytes(r, payload) if r.random() < 0.5 else payload


def wire_case(r: Rnd, protocol: str, sender: str) -> bytes:
    """Bytes on the line: frames whose messages are valid or mutated (with a good CRC), link frames,
    frames mutated on the wire, garbage, several at once."""
    out = bytearray()
    for _ in range(r.choice((1, 1, 1, 2, 3))):
        kind = r.random()
        if kind < 0.55:
            type_code, payload = payload_case(r, protocol, sender)
            frame = encode_frame(r.randrange(256), type_code, payload[:1000])
        elif kind < 0.65:
            link_type = r.choice((ACK, NAK, HEARTBEAT, r.randrange(16)))
            frame = encode_frame(r.randrange(256), link_type, r.randbytes(r.randrange(4)))
        elif kind < 0.9:
            type_code, payload = PROTOCOLS[protocol].encode(message(r, protocol, sender))
            frame = mutate_bytes(r, encode_frame(r.randrange(256), type_code, payload))
        else:
            frame = garbage(r)
        out += frame + (frame if r.random() < 0.05 else b"")        # now and then sent twice
    return bytes(out)


def chunks(r: Rnd, data: bytes) -> list[bytes]:
    """``data`` as a serial read may deliver it: whole, or cut in a few places."""
    if len(data) < 2 or r.random() < 0.6:
        return [data]
    cuts = sorted(r.sample(range(1, len(data)), min(len(data) - 1, r.randint(1, 3))))
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def hexs(data: Any) -> str:
    if isinstance(data, tuple):
        return f"type 0x{data[0]:02x} payload {data[1].hex(' ') or '(empty)'}"
    return data.hex(" ") or "(empty)"


# --- a target and a run -----------------------------------------------------------------------------

class Target:
    name = ""

    def case(self, r: Rnd) -> Any:
        raise NotImplementedError

    def feed(self, data: Any, r: Rnd) -> str:
        raise NotImplementedError

    def check(self, r: Rnd) -> None:
        """A good input now is taken as if nothing had gone before (Broken otherwise)."""


def run(target: Target, r: Rnd, inputs: int, counts: Counter[str] | None = None,
        check_every: float = 0.25, keep: int | None = None) -> list[str]:
    """Feed ``inputs`` cases; the problems found (each with the input's hex; the first ``keep``),
    outcomes into ``counts`` (a problem as BROKEN or EXCEPTION and its class)."""
    problems: list[str] = []
    for index in range(inputs):
        data = target.case(r)
        try:
            outcome = target.feed(data, r)
            if r.random() < check_every:
                target.check(r)
        except Exception as err:
            outcome = "BROKEN" if isinstance(err, Broken) else f"EXCEPTION {type(err).__name__}"
            if keep is None or len(problems) < keep:
                problems.append(f"{target.name}: input {index}: {type(err).__name__}: {err}; bytes {hexs(data)}")
        if counts is not None:
            counts[outcome] += 1
    return problems
