"""Reliable link over the shared frame codec: ACK/NAK, retransmission, heartbeats (sans-I/O).

Used unchanged by both ends (the host driver and the device, real or
simulated). Time is passed in (``now``, seconds); nothing here sleeps, reads
or writes. Every call returns the bytes to put on the wire and the events for
the caller.

Rules (docs/protocols/framing.md):
- Link frames: ``ACK`` (0x00, payload: acked SEQ), ``NAK`` (0x01, payload: SEQ or 0xFF when the frame was
  unreadable, then a reason code) and ``HEARTBEAT`` (0x02, empty). They consume no sequence number and are
  never acknowledged.
- Message frames (type >= 0x10) are sent stop-and-wait: one in flight, the next when it is ACKed. No ACK
  within ``retransmit_after`` seconds, or a NAK for corruption, sends it again; after ``max_attempts`` sends
  it is dropped with ``SendFailed``. A NAK for a bad or unknown message drops it with ``Refused``.
- A receiver ACKs each message frame it accepts, ACKs again without re-delivering a repeat of the last SEQ
  (a lost ACK), and NAKs a frame it cannot read (reason 1) or a message it cannot decode (2) or does not
  know (3).
- A new session, from either side, resets duplicate detection: the peer's Hello (``hello_type``) and its
  HelloReply (``hello_reply_type``) are accepted whatever their SEQ, and sending our own Hello forgets the
  peer's last SEQ. A device that rebooted begins again at SEQ 0, which may be the SEQ the host accepted
  last; without this its HelloReply was ACKed as a repeat, never delivered, and the device stayed offline.
  Both take effect only for a frame that decodes: a hostile or garbled frame of those types changes nothing.
- On a paired link a device's Hello waits for the host to answer its challenge (drivers/wire/auth.py): it is
  acted on, and the session replaced, only then.
- Numbering restarts with each session: a Hello is sent at SEQ 0, and a received Hello makes our next
  message (the HelloReply) SEQ 0 too; the first message after either is SEQ 1.
- A received Hello never loses what we had not delivered: the message in flight and those queued are parked,
  and sent again (under new SEQs, in order) right after our HelloReply, never the old session's Identity. A
  shoe's hand formed while the host was away still reaches it, never formed twice.
- ``keep_undelivered`` (devices): a message not acknowledged after ``max_attempts`` sends is not dropped but
  sent again every ``heartbeat_every`` seconds until the host acknowledges it or says Hello; a device's
  events survive a link loss of any length.
- The decode function's ``MessageError`` is NAKed with reason 2 (3 for an unknown type); any other exception
  from it is a decoder's bug, NAKed with reason 2 and reported, and the frames after it are still read.
- Either side sends a heartbeat after ``heartbeat_every`` seconds without sending; a peer not heard from for
  ``silence_after`` seconds is reported ``PeerSilent``, and ``PeerAlive`` when it is heard again.
  ``next_due`` says when ``poll`` next acts: a caller may sleep until then.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from math import inf
from typing import Any, TypeAlias

from drivers.wire.auth import HOST, NO_SESSION, STALE, Authenticator
from drivers.wire.framing import BadFrame, Frame, FrameDecoder, check_frame, frame_bytes
from drivers.wire.link_words import (
    ACK,
    FIRST_MESSAGE_TYPE,
    HEARTBEAT,
    HELLO,
    HELLO_REPLY,
    IDENTITY,
    NAK,
    NAK_BAD_MESSAGE,
    NAK_REASONS,
    NAK_UNKNOWN_TYPE,
    NAK_UNREADABLE,
    UNKNOWN_SEQ,
    Delivered,
    LinkEvent,
    LinkFault,
    MessageError,
    PeerAlive,
    PeerSilent,
    Refused,
    SendFailed,
)

Pending: TypeAlias = tuple[int, bytes, int | None]      # type, payload, TIME
# A peer still sealing frames in a session that ended sends a few (heartbeats, retransmits) before
# it hears our Hello: that many are refused quietly after each new connection or authentic frame.
# Past it, a stream of sessionless frames is alerted like any refusal: a device that never takes the
# new session, or frames made to look like one, must reach a technician.
STALE_QUIET = 32


class Link:
    def __init__(self, decode: Callable[[int, bytes], Any], *, hello_type: int = HELLO,
                 hello_reply_type: int = HELLO_REPLY, retransmit_after: float = 0.25, max_attempts: int = 4,
                 heartbeat_every: float = 1.0, silence_after: float = 3.0, keep_undelivered: bool = False,
                 auth: Authenticator | None = None):
        self._decode = decode
        self.auth = auth                # frames sealed and checked (drivers/wire/auth.py); None: plain
        self._hello_type = hello_type
        self._reply_type = hello_reply_type
        self._session_types = (hello_type, hello_reply_type)
        self.keep_undelivered = keep_undelivered
        self.retransmit_after = retransmit_after
        self.max_attempts = max_attempts
        self.heartbeat_every = heartbeat_every
        self.silence_after = silence_after
        self.stats = {"frames_in": 0, "frames_out": 0, "faults": 0, "retransmits": 0, "refused": 0}
        self.reset(0.0)

    def reset(self, now: float) -> None:
        """Forget all link state (a new connection)."""
        self._decoder = FrameDecoder()
        self._next_seq = 0
        self._queue: deque[Pending] = deque()
        self._in_flight: tuple[int, int, bytes, int | None] | None = None      # seq, type, payload, TIME
        self._parked: list[Pending] | None = None     # undelivered at the peer's Hello
        self._hello_ack_nonce: int | None = None      # a device's nonce for the ACK of a Hello just checked
        self._held_hello: tuple[int, Any, int | None] | None = None   # a device's: until its challenge holds
        self._confirm = False                         # the host: answer the device's challenge at once
        self._stale_quiet = STALE_QUIET               # sessionless frames still refused quietly
        if self.auth is not None:
            self.auth.reset()
        self._attempts = 0
        self._sent_at = now
        self._last_tx = now
        self._last_rx = now
        self._last_seq: int | None = None
        self._silent = False

    @property
    def last_seq(self) -> int | None:
        """The SEQ of the last message accepted from the peer (None: none since the session began)."""
        return self._last_seq

    @property
    def idle(self) -> bool:
        """Nothing queued, parked or awaiting acknowledgement."""
        return self._in_flight is None and not self._queue and not self._parked

    def sending(self, message_type: int) -> bool:
        """A message of ``message_type`` is in flight or queued (not yet acknowledged)."""
        return message_type in [m[0] for m in self._queue] + ([self._in_flight[1]] if self._in_flight else [])

    @property
    def pending(self) -> int:
        """Messages not yet acknowledged by the peer: in flight, queued and parked."""
        return (self._in_flight is not None) + len(self._queue) + len(self._parked or ())

    # --- sending -----------------------------------------------------------

    def send(self, message_type: int, payload: bytes, now: float, *, time_ms: int | None = None) -> bytes:
        """Queue a message (``time_ms``: stamp it with the time it happened); the bytes to write now."""
        if message_type < FIRST_MESSAGE_TYPE:
            raise ValueError(f"message type 0x{message_type:02x} is reserved for the link")
        check_frame(0, message_type, payload, time_ms)      # refuse an unsendable frame now
        if message_type == self._reply_type and self._parked is not None:
            # our answer to the peer's Hello goes first, then what the old session left undelivered
            self._queue = deque([(message_type, payload, time_ms), *self._parked, *self._queue])
            self._parked = None
        else:
            self._queue.append((message_type, payload, time_ms))
        return self._transmit_next(now) if self._in_flight is None else b""

    def _transmit_next(self, now: float) -> bytes:
        if not self._queue or self._parked is not None:     # parked: nothing before our HelloReply
            self._in_flight = None
            return b""
        message_type, payload, time_ms = self._queue.popleft()
        if message_type == self._hello_type:
            self._last_seq = None               # our new session: the peer may have restarted its SEQ
            self._next_seq = 0                  # and it starts at SEQ 0
        seq = self._next_seq
        self._next_seq = (seq + 1) % 256
        self._in_flight = (seq, message_type, payload, time_ms)
        self._attempts = 0
        return self._resend(now)

    def _resend(self, now: float) -> bytes:
        assert self._in_flight is not None
        self._attempts += 1
        self._sent_at = now
        seq, message_type, payload, time_ms = self._in_flight
        return self._wire(seq, message_type, payload, now, time_ms=time_ms)     # sealed afresh each time

    def _wire(self, seq: int, type_: int, payload: bytes, now: float, *, time_ms: int | None = None) -> bytes:
        """A frame's bytes, sealed when the link is authenticated; nothing when it may not be sent
        (no session yet: only the host's Hello goes out before one). Unchecked: ``send`` checked it."""
        auth = self.auth
        if auth is None:
            data = frame_bytes(seq, type_, payload, time_ms)
        elif type_ == self._hello_type and auth.role == HOST:
            data = frame_bytes(seq, type_, payload, time_ms, auth.seal_hello)
        elif type_ == ACK and self._hello_ack_nonce is not None:
            nonce, self._hello_ack_nonce = self._hello_ack_nonce, None
            data = frame_bytes(seq, type_, payload, None, lambda body: auth.seal_hello_ack(body, nonce))
        elif not auth.ready:
            return b""
        else:
            data = frame_bytes(seq, type_, payload, time_ms, auth.seal_next)
        self._last_tx = now
        self.stats["frames_out"] += 1
        return data

    # --- receiving -----------------------------------------------------------

    def receive(self, data: bytes, now: float) -> tuple[list[LinkEvent], bytes]:
        events: list[LinkEvent] = []
        out = bytearray()
        for item in self._decoder.feed(data):
            if isinstance(item, BadFrame):
                self.stats["faults"] += 1
                events.append(LinkFault(item.reason, item.raw))
                out += self._wire(UNKNOWN_SEQ, NAK, bytes((UNKNOWN_SEQ, NAK_UNREADABLE)), now)
                continue
            refused = self._unauthentic(item, events)
            if refused is not None:
                self.stats["refused"] += 1
                events.append(refused)
                continue
            if self._confirm:       # our first frame under the new keys answers the device's challenge
                self._confirm = False
                out += self._wire(0, HEARTBEAT, b"", now)
            self.stats["frames_in"] += 1
            self._last_rx = now
            if self._silent:
                self._silent = False
                events.append(PeerAlive())
            out += self._on_frame(item, now, events)
        return events, bytes(out)

    def _unauthentic(self, frame: Frame, events: list[LinkEvent]) -> LinkFault | None:
        """Why an authenticated link refuses ``frame`` (never NAKed, never acted on); None: it is
        authentic. The host's accepted ACK of its Hello starts the session's keys; on a device, the
        first frame under the keys its checked Hello promised starts them, and delivers that Hello."""
        auth = self.auth
        if auth is None:
            return None
        if auth.role == HOST:
            hello_in_flight = self._in_flight is not None and self._in_flight[1] == self._hello_type
            if (hello_in_flight and frame.type == ACK and self._in_flight is not None
                    and frame.payload[:1] == bytes((self._in_flight[0],)) and auth.check_hello_ack(frame)):
                self._confirm = True
                return None
            reason = auth.check(frame)
            # with no session, nothing is accepted, and a device still speaking in the session that ended
            # (a restarted host, a reconnect before our Hello or after it went unanswered) is expected:
            # counted and logged, not alarming. A soak raised 106 "call a technician" alerts from it
            quiet = reason in (NO_SESSION, STALE)
        elif frame.type == self._hello_type:
            reason = auth.check_hello(frame)
            if reason is None:
                self._hello_ack_nonce = auth.pending_ack_nonce
            quiet = False
        else:
            reason = auth.check(frame)
            if reason is not None and self._held_hello is not None and auth.confirm(frame):
                reason, (seq, hello, time_ms), self._held_hello = None, self._held_hello, None
                self._new_session()             # the Hello proved fresh: now it starts our session
                self._last_seq = seq
                events.append(Delivered(hello, time_ms))
            quiet = reason == NO_SESSION            # a device not yet paired to this host's session
        if reason is None:
            self._stale_quiet = STALE_QUIET             # the session works: the next gap has its allowance
            return None
        if quiet:
            quiet, self._stale_quiet = self._stale_quiet > 0, max(0, self._stale_quiet - 1)
        return LinkFault(f"refused: {reason}", frame.signed or frame.payload, security=True, quiet=quiet)

    def _on_frame(self, frame: Frame, now: float, events: list[LinkEvent]) -> bytes:
        if frame.type == HEARTBEAT:
            return b""
        if frame.type == ACK:
            if self._in_flight and frame.payload[:1] == bytes((self._in_flight[0],)):
                return self._transmit_next(now)
            return b""
        if frame.type == NAK:
            return self._on_nak(frame, now, events)
        if frame.type < FIRST_MESSAGE_TYPE:
            events.append(LinkFault(f"reserved frame type 0x{frame.type:02x}", frame.payload))
            return b""
        session = frame.type in self._session_types
        if frame.seq == self._last_seq and not session:
            return self._ack(frame.seq, now)             # our ACK was lost; the peer repeated itself
        try:
            message = self._decode(frame.type, frame.payload)
        except MessageError as err:
            return self._refuse(frame, str(err), NAK_UNKNOWN_TYPE if err.unknown_type else NAK_BAD_MESSAGE,
                                now, events)
        except Exception as err:                         # a decoder's bug: refused, and the link goes on
            return self._refuse(frame, f"message could not be decoded: {type(err).__name__}: {err}",
                                NAK_BAD_MESSAGE, now, events)
        if frame.type == self._hello_type and self.auth is not None and self.auth.role != HOST:
            self._held_hello = (frame.seq, message, frame.time_ms)     # until the challenge is answered
            return self._ack(frame.seq, now)
        if frame.type == self._hello_type:
            self._new_session()
        self._last_seq = frame.seq
        events.append(Delivered(message, frame.time_ms))
        return self._ack(frame.seq, now)

    def _new_session(self) -> None:
        """The peer said Hello: our numbering restarts at 0 with our HelloReply, and what we had
        not delivered waits (parked) to go right after it, never before and never lost."""
        undelivered: list[Pending] = [] if self._in_flight is None else [self._in_flight[1:]]
        undelivered += self._queue if self._parked is None else [*self._parked, *self._queue]
        self._parked = [m for m in undelivered if m[0] not in (*self._session_types, IDENTITY)]   # one per session
        self._queue.clear()
        self._in_flight = None
        self._next_seq = 0

    def _ack(self, seq: int, now: float) -> bytes:
        return self._wire(seq, ACK, bytes((seq,)), now)

    def _refuse(self, frame: Frame, reason: str, code: int, now: float, events: list[LinkEvent]) -> bytes:
        self.stats["faults"] += 1
        self._hello_ack_nonce = None                    # a Hello refused: no challenge goes out
        events.append(LinkFault(reason, frame.payload))
        return self._wire(frame.seq, NAK, bytes((frame.seq, code)), now)

    def _on_nak(self, frame: Frame, now: float, events: list[LinkEvent]) -> bytes:
        if not self._in_flight or len(frame.payload) < 2:
            return b""
        seq, reason = frame.payload[0], frame.payload[1]
        if seq not in (self._in_flight[0], UNKNOWN_SEQ):
            return b""
        if reason == NAK_UNREADABLE:
            return self._retry(now, events)
        events.append(Refused(self._in_flight[1], NAK_REASONS.get(reason, f"reason {reason}")))
        return self._transmit_next(now)

    def _retry(self, now: float, events: list[LinkEvent]) -> bytes:
        assert self._in_flight is not None
        if self._attempts >= self.max_attempts:
            if self.keep_undelivered:           # a device keeps its event until the host is back
                self.stats["retransmits"] += 1
                return self._resend(now)
            events.append(SendFailed(self._in_flight[1], self._attempts))
            return self._transmit_next(now)
        self.stats["retransmits"] += 1
        return self._resend(now)

    # --- timers ----------------------------------------------------------------

    @property
    def _retry_after(self) -> float:
        """A message past its attempts (kept, on a device) is tried at the heartbeat's pace."""
        if self.keep_undelivered and self._attempts >= self.max_attempts:
            return max(self.retransmit_after, self.heartbeat_every)
        return self.retransmit_after

    def next_due(self) -> float:
        """When ``poll`` next acts (inf: not before a frame is sent or heard): a resend, a heartbeat (none
        before an authenticated link's session: it could not be sealed) or the peer's silence."""
        beats = self.auth is None or self.auth.ready
        return min(self._sent_at + self._retry_after if self._in_flight else inf,
                   self._last_tx + self.heartbeat_every if beats else inf,
                   inf if self._silent else self._last_rx + self.silence_after)

    def poll(self, now: float) -> tuple[list[LinkEvent], bytes]:
        events: list[LinkEvent] = []
        out = b""                   # two frames at most: no buffer to make, nothing copied when idle
        if self._in_flight and now >= self._sent_at + self._retry_after:
            out += self._retry(now, events)
        if now >= self._last_tx + self.heartbeat_every:
            out += self._wire(0, HEARTBEAT, b"", now)
        if not self._silent and now >= self._last_rx + self.silence_after:
            self._silent = True
            events.append(PeerSilent(round(now - self._last_rx, 3)))
        return events, out
