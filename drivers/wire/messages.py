"""Declarative message payloads for the framed protocols (sans-I/O).

Owns the mapping between a message dataclass and its (type, payload) on the
wire. A protocol is a ``Catalog``: each message class (a ``Message``) is
registered with its type code, the side that sends it and its fields in
order. Field encodings (all integers big-endian):

- ``U8`` one byte; ``U16`` two bytes; ``U32`` four bytes.
- ``TEXT``: a length byte then that many ASCII bytes.
- ``U8_LIST``: a count byte then that many bytes.
- ``CARDS``: a count byte then per card two bytes: card code (rank*4+suit,
  0-51, or 0xFF unreadable) and deck id.

Every catalog also holds the session messages common to all framed devices
(``SESSION``, types 0x70-0x7F from the host and 0xF0-0xFF from a device,
docs/protocols/framing.md): the device's Identity with its capabilities, and
the host's choice of capabilities and its clock.

A payload with bytes left over, too few bytes or a value out of range is a
``MessageError``: the link NAKs it and the driver logs it. Every field is
checked here, when the message is decoded (a message class checks its own
ranges in ``__post_init__``, with ``in_range``): a message object that exists
is valid through and through, so nothing built from it later can fail.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any, ClassVar, TypeVar, dataclass_transform

from drivers.wire.link_words import MessageError

HOST, DEVICE = "host", "device"


def in_range(what: str, value: int, low: int, high: int) -> None:
    """ValueError (a ``MessageError`` once decoded) unless ``low <= value <= high``."""
    if not low <= value <= high:
        allowed = f"{low} or {high}" if high == low + 1 else f"{low}-{high}"
        raise ValueError(f"{what} {value} is not {allowed}")


class Field:
    def __init__(self, name: str, size: int | None):
        self.name, self.size = name, size

    def encode(self, value: Any) -> bytes:
        raise NotImplementedError

    def decode(self, data: bytes, at: int) -> tuple[Any, int]:
        raise NotImplementedError


class Int(Field):
    size: int
    FORMATS = {1: "B", 2: "H", 4: "I", 8: "Q"}      # struct's code for each size (big-endian: ">")

    def __init__(self, size: int):
        super().__init__(f"u{size * 8}", size)
        self.format = self.FORMATS[size]

    def encode(self, value: Any) -> bytes:
        if isinstance(value, bool):
            value = int(value)
        return int(value).to_bytes(self.size, "big")

    def decode(self, data: bytes, at: int) -> tuple[int, int]:
        end = at + self.size
        if end > len(data):
            raise MessageError(f"payload ends inside a {self.name} at byte {at}")
        return int.from_bytes(data[at:end], "big"), end


class Text(Field):
    def __init__(self) -> None:
        super().__init__("text", None)

    def encode(self, value: str) -> bytes:
        raw = value.encode("ascii", "replace")[:255]
        return bytes((len(raw),)) + raw

    def decode(self, data: bytes, at: int) -> tuple[str, int]:
        if at >= len(data):
            raise MessageError(f"payload ends before a text length at byte {at}")
        end = at + 1 + data[at]
        if end > len(data):
            raise MessageError(f"text at byte {at} runs past the payload")
        raw = data[at + 1:end]
        if any(b > 126 or b < 32 for b in raw):
            raise MessageError(f"text at byte {at} is not printable ASCII")
        return raw.decode("ascii"), end


class ByteList(Field):
    def __init__(self, width: int):
        super().__init__(f"list of {width}-byte items", None)
        self.width = width

    def encode(self, value: Sequence[Any]) -> bytes:
        items = list(value)
        if len(items) > 255:
            raise ValueError("at most 255 items")
        if self.width == 1:
            return bytes((len(items), *items))
        return bytes((len(items), *(b for item in items for b in item)))

    def decode(self, data: bytes, at: int) -> tuple[tuple[Any, ...], int]:
        if at >= len(data):
            raise MessageError(f"payload ends before a count at byte {at}")
        count = data[at]
        end = at + 1 + count * self.width
        if end > len(data):
            raise MessageError(f"{count} items at byte {at} run past the payload")
        body = data[at + 1:end]
        if self.width == 1:
            return tuple(body), end
        # the items' k-th bytes are body[k::width]: zipped in C, no slice per item
        return tuple(zip(*[body[k::self.width] for k in range(self.width)], strict=True)), end


U8, U16, U32, U64, TEXT, U8_LIST, CARDS = Int(1), Int(2), Int(4), Int(8), Text(), ByteList(1), ByteList(2)


@dataclass_transform(frozen_default=True)
class Message:
    """The base of every message class: ``Catalog.message`` makes it a frozen dataclass
    and sets its type code and sender (the dataclass_transform tells type checkers so)."""

    TYPE: ClassVar[int]
    SENDER: ClassVar[str]
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]


M = TypeVar("M", bound=Message)


def _values_getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """A function giving a message's values of ``names`` as a tuple (attrgetter, in C, from two)."""
    if len(names) > 1:
        return attrgetter(*names)
    return lambda message: tuple(getattr(message, name) for name in names)


class Catalog:
    """One protocol's messages: type codes, senders and field layouts."""

    def __init__(self, name: str, *, session: bool = True):
        self.name = name
        self._by_type: dict[int, tuple[type[Message], str, list[Field]]] = {}
        self._by_class: dict[type[Message], tuple[int, list[tuple[str, Field]]]] = {}
        # a layout of integers only is one struct: decoded and encoded in one C call (``_fixed``)
        self._fixed: dict[int, tuple[struct.Struct, Callable[[Any], Any]]] = {}
        if session:                     # every framed protocol speaks the common session messages
            self._by_type.update(SESSION._by_type)
            self._by_class.update(SESSION._by_class)
            self._fixed.update(SESSION._fixed)

    def message(self, type_code: int, sender: str, *fields: Field) -> Callable[[type[M]], type[M]]:
        """Class decorator registering a dataclass whose fields match ``fields`` in order."""
        def register(cls: type[M]) -> type[M]:
            cls = dataclasses.dataclass(frozen=True)(cls)
            names = [f.name for f in dataclasses.fields(cls)]
            if len(names) != len(fields):
                raise TypeError(f"{cls.__name__}: {len(names)} fields but {len(fields)} encodings")
            if type_code in self._by_type:
                raise TypeError(f"{self.name}: type 0x{type_code:02x} registered twice")
            self._by_type[type_code] = (cls, sender, list(fields))
            self._by_class[cls] = (type_code, list(zip(names, fields, strict=True)))
            if all(isinstance(enc, Int) for enc in fields):
                layout = struct.Struct(">" + "".join(enc.format for enc in fields if isinstance(enc, Int)))
                self._fixed[type_code] = (layout, _values_getter(names))
            cls.TYPE = type_code
            cls.SENDER = sender
            return cls
        return register

    def types(self) -> dict[int, type[Message]]:
        return {code: entry[0] for code, entry in sorted(self._by_type.items())}

    def layout(self, cls: type[Message]) -> tuple[Field, ...]:
        """A registered message class's field encodings, in order."""
        return tuple(enc for _, enc in self._by_class[cls][1])

    def encode(self, message: Message) -> tuple[int, bytes]:
        type_code, fields = self._by_class[type(message)]      # (name, encoding): dataclasses.fields once
        fixed = self._fixed.get(type_code)
        if fixed is not None:
            try:
                return type_code, fixed[0].pack(*fixed[1](message))
            except struct.error:        # a value the field cannot hold: the field's own error, below
                pass
        return type_code, b"".join([enc.encode(getattr(message, name)) for name, enc in fields])

    def decoder(self, receiver: str) -> Callable[[int, bytes], Message]:
        """A decode function for the link that accepts only what the other side may send."""
        by_type, fixed = self._by_type, self._fixed

        def decode(type_code: int, payload: bytes) -> Message:
            entry = by_type.get(type_code)
            if entry is None or entry[1] == receiver:
                raise MessageError(f"{self.name}: unknown message type 0x{type_code:02x} "
                                   f"for the {receiver}", unknown_type=True)
            cls, _, fields = entry
            layout = fixed.get(type_code)
            if layout is not None and len(payload) == layout[0].size:
                values: Sequence[Any] = layout[0].unpack(payload)
            else:                       # fields of varying size, or a payload of the wrong size
                values = self._fields(cls, fields, payload)
            try:
                return cls(*values)
            except (ValueError, TypeError) as err:        # a field out of range (``__post_init__``)
                raise MessageError(f"{self.name} {cls.__name__}: {err}") from None
        return decode

    def _fields(self, cls: type[Message], fields: list[Field], payload: bytes) -> list[Any]:
        """A payload's values, field by field; MessageError naming the first that does not fit."""
        values: list[Any] = []
        at = 0
        for enc in fields:
            value, at = enc.decode(payload, at)
            values.append(value)
        if at != len(payload):
            raise MessageError(f"{self.name} {cls.__name__}: {len(payload) - at} unexpected bytes at the end")
        return values


# --- the session messages every framed device speaks (docs/protocols/framing.md, Session) ----------

SESSION = Catalog("session", session=False)
# Capability bits (Identity.capabilities: what the device can do; UseCapabilities: what the host
# turns on, never a bit the device did not offer)
CAP_TIMESTAMPS = 1 << 0         # the device stamps its messages with its clock (the frame's TIME)
CAP_KEEPS_EVENTS = 1 << 1       # the device keeps undelivered events through a link loss
CAP_AUTHENTICATION = 1 << 2     # the device can authenticate frames (used when paired with a key)
CAPABILITIES = {CAP_TIMESTAMPS: "timestamps", CAP_KEEPS_EVENTS: "keeps events",
                CAP_AUTHENTICATION: "authentication"}
MAX_CHECKSUM = 64               # bytes of a firmware checksum (a SHA-512 at most)


def capability_names(bits: int) -> list[str]:
    """The capabilities a bit set names, in words; an unknown bit by its number."""
    return [CAPABILITIES.get(1 << bit, f"bit {bit}") for bit in range(16) if bits >> bit & 1]


@SESSION.message(0x70, HOST, U16)
class UseCapabilities(Message):
    capabilities: int           # the bits of the device's Identity the host turns on


@SESSION.message(0x71, HOST, U64)
class SetClock(Message):
    utc_ms: int                 # milliseconds since 1970-01-01 00:00 UTC


@SESSION.message(0xF0, DEVICE, TEXT, TEXT, TEXT, TEXT, U8_LIST, U16)
class Identity(Message):
    manufacturer: str
    model: str
    serial: str
    firmware_version: str
    firmware_checksum: tuple[int, ...]      # its bytes (a CRC-32 is 4, a SHA-256 32)
    capabilities: int                       # bit set: CAPABILITIES

    def __post_init__(self) -> None:
        for name in ("manufacturer", "model", "serial", "firmware_version"):
            if not getattr(self, name):
                raise ValueError(f"{name} is empty")
        if not 1 <= len(self.firmware_checksum) <= MAX_CHECKSUM:
            raise ValueError(f"firmware checksum of {len(self.firmware_checksum)} bytes is not 1-{MAX_CHECKSUM}")

    @property
    def checksum_hex(self) -> str:
        return bytes(self.firmware_checksum).hex()

    def record(self) -> dict[str, Any]:
        """What is journaled and shown to a technician."""
        return {"manufacturer": self.manufacturer, "model": self.model, "serial": self.serial,
                "firmware_version": self.firmware_version, "firmware_checksum": self.checksum_hex,
                "capabilities": capability_names(self.capabilities)}
