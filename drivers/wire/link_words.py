"""The link's words, said once for both ends and their callers: the link frames' types and NAK reasons,
the session messages' types, the acknowledgement deadline, and the events a link reports (what was
delivered, refused, failed, fell silent). The link itself, which speaks them, is drivers/wire/link.py
(docs/protocols/framing.md is the rule book)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

ACK, NAK, HEARTBEAT = 0x00, 0x01, 0x02
FIRST_MESSAGE_TYPE = 0x10
HELLO, HELLO_REPLY, IDENTITY = 0x10, 0x90, 0xF0     # the session messages of both framed protocols
NAK_UNREADABLE, NAK_BAD_MESSAGE, NAK_UNKNOWN_TYPE = 1, 2, 3
NAK_REASONS = {NAK_UNREADABLE: "unreadable frame", NAK_BAD_MESSAGE: "bad message",
               NAK_UNKNOWN_TYPE: "unknown message type"}
UNKNOWN_SEQ = 0xFF
# A receiver acknowledges a frame within this many seconds of its last byte; a sender's retransmit
# timer (0.25 s by default) must be longer, so that an ACK on time never crosses a retransmission
# (docs/protocols/framing.md; drivers/registry.py refuses a shorter one).
ACK_DEADLINE = 0.1


class MessageError(ValueError):
    """A frame whose message payload cannot be decoded."""

    def __init__(self, reason: str, unknown_type: bool = False):
        super().__init__(reason)
        self.unknown_type = unknown_type


@dataclass(frozen=True)
class Delivered:
    message: Any
    time_ms: int | None = None      # when the peer stamped it (the frame's TIME), ms since 1970 UTC


@dataclass(frozen=True)
class LinkFault:
    """Peer bytes we could not use; counted, logged with their bytes, answered with NAK (a frame
    refused by authentication, ``security``, is never answered: it is reported, and ``quiet`` when
    it is only a frame of a session that has just ended)."""
    reason: str
    raw: bytes
    security: bool = False
    quiet: bool = False


@dataclass(frozen=True)
class Refused:
    """The peer NAKed one of our messages as bad or unknown."""
    message_type: int
    reason: str


@dataclass(frozen=True)
class SendFailed:
    message_type: int
    attempts: int


@dataclass(frozen=True)
class PeerSilent:
    seconds: float


@dataclass(frozen=True)
class PeerAlive:
    pass


LinkEvent: TypeAlias = Delivered | LinkFault | Refused | SendFailed | PeerSilent | PeerAlive
