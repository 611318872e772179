"""A device speaking the shared framed protocol (shoe, sensors): its link and its session.

Owns, on top of the driver base (drivers/device.py), the framed link's plumbing
(drivers/wire/link.py: bytes in and out, timers, what its events mean to the
controller) and the session (docs/protocols/framing.md): Hello after every
(re)connection and again while unanswered, the device's HelloReply and
Identity, the capabilities turned on and the device's clock set, the device
online only then, and the messages it sent before (events kept through a link
loss) acted on once it is online, in order. With a pairing key (``key_file``)
every frame is authenticated (drivers/wire/auth.py): a frame that fails is
refused, reported as a device fault, never acted on. The time a device
stamped on a message (``message_time``) is the driver's to pass on with it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from drivers.device import DeviceDriver, HelloReply, Post
from drivers.events import CommandFailed, DeviceMessage
from drivers.transport import Transport, TransportError
from drivers.wire.auth import HOST, Authenticator, read_key
from drivers.wire.link import Link
from drivers.wire.link_words import Delivered, LinkEvent, LinkFault, PeerAlive, PeerSilent, Refused, SendFailed
from drivers.wire.messages import (
    CAP_AUTHENTICATION,
    CAP_KEEPS_EVENTS,
    CAP_TIMESTAMPS,
    Catalog,
    Identity,
    Message,
    SetClock,
    UseCapabilities,
    capability_names,
)

MAX_BEFORE_SESSION = 256        # messages kept while a device is offline, until its HelloReply
HOST_CAPABILITIES = CAP_TIMESTAMPS | CAP_KEEPS_EVENTS | CAP_AUTHENTICATION   # what we use when offered
# authentication is the pairing's: used only on a link we hold a key for (a plain link never says it used it)
CLOCK_EVERY = 3600.0            # seconds between two settings of a device's clock
# A message stamped this long before it reached us was held back (through a link loss, a busy
# line): worth an info line. A routine message is a few milliseconds late and its meaning is in
# the journal: at info, each would be an audit line (about 9 KB per round, more than the rest).
HELD_BACK_AFTER = 0.5
# Frames refused by authentication alert the dealer at most once in this many seconds; those between
# are counted (link.stats["refused"]) and named in the next alert. One warning and one engine event per
# refused frame let 5,252 forged frames in 5 s hold a genuine chip reading back 10.1 s (issue 33).
REFUSED_ALERT_EVERY = 30.0
# Silence on a connection where no frame was ever read is not a device gone quiet: nothing that speaks
# the protocol is on that port (a wrong url, another device's port, a wrong line, no power or cable).
# "silent for 3.0 s (heartbeat timeout)" sent the technician after a link that never existed.
NEVER_ANSWERED = ("no answer in {seconds} s since its port was opened: check that the url is this device's port, "
                  "its line settings, its cable, its power and its pairing key")
# A device heard on the line that acknowledges no Hello (a paired device refuses a keyless host's plain
# Hello; a device in a state that takes no session) never went offline: it was never online, and its
# frames kept the link alive, so the page said "not connected yet" with no alert, for good.
HELLO_REFUSED = ("heard, but it takes no Hello ({count} sends unacknowledged): check that it holds the pairing key "
                 "of key_file (or neither has one) and speaks this protocol")


class FramedDriver(DeviceDriver):
    """A device speaking the shared framed protocol (shoe, sensors)."""

    catalog: Catalog
    decode: ClassVar[Callable[[int, bytes], Message]]      # called on the class: type(self).decode
    hello: Message
    hello_reply: type[HelloReply]
    protocol_version: int

    def __init__(self, name: str, transport: Transport, post: Post, *,
                 heartbeat_every: float = 1.0, silence_after: float = 3.0,
                 retransmit_after: float = 0.25, key_file: str | None = None, **kwargs):
        super().__init__(name, transport, post, **kwargs)
        # a key file that cannot be used stops the driver here, in words naming it (KeyFileError)
        auth = Authenticator(read_key(key_file), HOST) if key_file else None
        self.link = Link(self.decode_message, retransmit_after=retransmit_after,
                         heartbeat_every=heartbeat_every, silence_after=silence_after, auth=auth)
        self.message_time: int | None = None    # the device's stamp on the message being handled
        self.held_back = False          # the message being handled was kept by the device through a link loss
        self._hello_at = 0.0            # when we last said Hello (said again while unanswered)
        self._hello_failed = False      # that Hello went unacknowledged after all its sends
        self._before_session: list[Any] = []    # messages heard while offline, acted on once online
        self._reply: Any = None         # this session's HelloReply, until its Identity follows
        self._clock_at = 0.0            # when we last set the device's clock
        self.identity: dict[str, Any] = {}      # the device's Identity as journaled (a technician's view)
        self.capabilities = 0           # what this session uses (UseCapabilities)
        self._refused_alerted_at: float | None = None   # when frames failing authentication last alerted
        self._frames_before_open = 0    # the link's frames_in when this connection opened
        self._refused_unsaid: tuple[int, str, bytes] | None = None   # refused since: count, first reason, bytes

    def decode_message(self, type_code: int, payload: bytes) -> Message:
        """A frame's message, or MessageError (the link NAKs it): the catalog's decoder, which a
        driver narrows where its configuration knows more than the protocol (a table's positions)."""
        return type(self).decode(type_code, payload)

    def send(self, message: Message) -> bool:
        """Send a command to the device: the link queues it, and when no frame of ours awaits its ACK
        its frame is written at once, on the caller's thread (under the driver's lock); else the I/O
        thread writes it once the frames before it are acknowledged. False (and CommandFailed) while
        disconnected or when the write fails."""
        with self._lock:
            if not self.connected:
                self.post(CommandFailed(self.name, type(message).__name__, "device not connected"))
                return False
            self.log.debug("device.command", command=type(message).__name__)
            try:
                self._write(self.queue(message, self.clock()))
            except TransportError as err:
                self.post(CommandFailed(self.name, type(message).__name__, str(err)))
                return False
            return True

    @property
    def _heard(self) -> bool:
        """A frame of the framed protocol has been read on this connection (a device was there)."""
        return self.link.stats["frames_in"] > self._frames_before_open

    def on_open(self, now: float) -> bytes:
        self.link.reset(now)
        self._frames_before_open = self.link.stats["frames_in"]
        self._before_session = []       # a new connection: what the old one held was never ACKed
        return self.say_hello(now)

    def say_hello(self, now: float) -> bytes:
        """Start a session (docs/protocols/framing.md): after every (re)connection, when a silent
        device is heard again, and every ``silence_after`` seconds while a Hello goes unanswered (a
        device that ACKed a Hello but never answered it, or one that says nothing until asked)."""
        self._hello_at = now
        self._hello_failed = False
        return self.queue(self.hello, now)

    def _hello_awaited(self, now: float) -> bool:
        """A Hello of ours is still being sent, or was acknowledged less than ``silence_after`` ago and
        its HelloReply may be on its way: another now would restart the session it is starting. A
        shoe rebooted on a paired link answers our Hello with its challenge, the first frame heard
        from it after its silence: taken for the device back (PeerAlive), it drew a second Hello 0
        to 3 ms after the first, against stop and wait (one message unacknowledged, a resend after
        ``retransmit_after``) and the 3 s between unanswered Hellos (docs/protocols/framing.md)."""
        if self.link.sending(self.hello.TYPE):
            return True
        return not self._hello_failed and now - self._hello_at < self.link.silence_after

    def queue(self, message: Message, now: float) -> bytes:
        """Hand a message to the link, which queues it; returns the bytes to write now: its frame when
        none of ours awaits an ACK, else nothing (lock held)."""
        type_code, payload = self.catalog.encode(message)
        return self.link.send(type_code, payload, now)

    def on_bytes(self, data: bytes, now: float) -> None:
        events, out = self.link.receive(data, now)
        self._write(out)
        self._handle(events, now, data)

    def on_tick(self, now: float) -> None:
        events, out = self.link.poll(now)
        if out:                                 # most ticks have nothing to send or handle
            self._write(out)
        if events:
            self._handle(events, now)
        if not self.online and now >= self._hello_at + self.link.silence_after and self.link.idle:
            if self._reply is not None:         # a device built without the session's second half
                self._reply = None
                self.fault("the device answered Hello but sent no Identity after its HelloReply "
                           "(docs/protocols/framing.md, Session): it stays offline")
            self._write(self.say_hello(now))
        elif self.online and now >= self._clock_at + CLOCK_EVERY:
            self._set_clock(now)
        if self._refused_unsaid and now >= (self._refused_alerted_at or 0.0) + REFUSED_ALERT_EVERY:
            self._alert_refused(now)

    def next_due(self, now: float) -> float:
        """When ``on_tick`` next acts (its tests, the same sums; inf: not before something is heard,
        sent or commanded): the link's timers, a Hello said again, the device's clock set again, the
        refused frames alerted. Before it, ``on_tick`` changes nothing: a loop may sleep until then."""
        due = self.link.next_due()
        if not self.online and self.link.idle:
            due = min(due, self._hello_at + self.link.silence_after)
        elif self.online:
            due = min(due, self._clock_at + CLOCK_EVERY)
        if self._refused_unsaid:
            due = min(due, (self._refused_alerted_at or 0.0) + REFUSED_ALERT_EVERY)
        return due

    def _set_clock(self, now: float) -> None:
        """The device's clock is ours (UTC): set at each session and every CLOCK_EVERY seconds."""
        self._clock_at = now
        self._write(self.queue(SetClock(int(self.wall() * 1000)), now))

    def _command_name(self, message_type: int) -> str:
        """The message's name in the catalog (what the controller asked for), not its wire code."""
        cls = self.catalog.types().get(message_type)
        return cls.__name__ if cls is not None else f"message 0x{message_type:02x}"

    def _handle(self, events: list[LinkEvent], now: float, raw: bytes = b"") -> None:
        for event in events:
            try:
                self._handle_one(event, now)
            except TransportError:
                raise                                   # the port failed: the I/O thread reconnects
            except Exception as err:                    # one handler's bug: the other events still count
                what = type(event.message).__name__ if isinstance(event, Delivered) else type(event).__name__
                self.survived(err, f"handling {what}", raw)

    def _handle_one(self, event: LinkEvent, now: float) -> None:
        if isinstance(event, Delivered):
            self._delivered(event.message, now, event.time_ms)
        elif isinstance(event, LinkFault) and event.quiet:
            self.log.info("device.stale_frame", reason=event.reason)   # the session that just ended
        elif isinstance(event, LinkFault) and event.security:
            self._refused(event, now)
        elif isinstance(event, LinkFault):
            self.fault(event.reason, event.raw, security=event.security)
        elif isinstance(event, Refused):
            self.post(CommandFailed(self.name, self._command_name(event.message_type), event.reason))
        elif isinstance(event, SendFailed):
            if event.message_type == self.hello.TYPE:
                self._hello_failed = True       # a device heard from again is asked at once
            if event.message_type == self.hello.TYPE and not self.online:
                self.log.info("device.hello_unanswered", attempts=event.attempts)   # said again later
                if self._heard:
                    self.went_offline(HELLO_REFUSED.format(count=event.attempts))
                return
            self.post(CommandFailed(self.name, self._command_name(event.message_type),
                                    f"no acknowledgement after {event.attempts} attempts"))
        elif isinstance(event, PeerSilent):
            self.went_offline(f"silent for {event.seconds:.1f} s (heartbeat timeout)" if self._heard else
                              NEVER_ANSWERED.format(seconds=f"{event.seconds:.1f}"))
        elif isinstance(event, PeerAlive) and not self._hello_awaited(now):
            self._write(self.say_hello(now))                       # handshake again

    def _refused(self, event: LinkFault, now: float) -> None:
        """A frame that failed authentication: the first alerts at once; after it, at most one alert
        per REFUSED_ALERT_EVERY seconds names how many were refused since. Nothing per frame is logged
        or posted, so a flood costs the I/O thread only its HMACs, and the engine's queue never holds
        it ahead of a genuine reading."""
        count, reason, raw = self._refused_unsaid or (0, event.reason, event.raw)
        self._refused_unsaid = (count + 1, reason, raw)
        if self._refused_alerted_at is None or now - self._refused_alerted_at >= REFUSED_ALERT_EVERY:
            self._alert_refused(now)

    def _alert_refused(self, now: float) -> None:
        assert self._refused_unsaid is not None
        count, reason, raw = self._refused_unsaid
        self._refused_unsaid, self._refused_alerted_at = None, now
        many = f" ({count} frames refused within {REFUSED_ALERT_EVERY:.0f} s)" if count > 1 else ""
        self.fault(reason + many, raw, security=True)

    def _delivered(self, message: Any, now: float, time_ms: int | None = None) -> None:
        if isinstance(message, self.hello_reply):
            # The Hello offers our version; a device answers the version it speaks, ours or older.
            if not 1 <= message.protocol_version <= self.protocol_version:
                self.fault(f"protocol version {message.protocol_version} unsupported "
                           f"(this controller speaks 1 to {self.protocol_version})")
                return
            self._reply = message           # online once its Identity follows
            return
        if isinstance(message, Identity):
            self._identified(message, now)
            return
        if not self.online:
            # An event a device kept through a link loss can arrive before our new Hello is answered:
            # it is acted on after the device is back online, in order, never while the table holds
            # the round for the device's absence (a hand would be taken for a dead hand).
            if len(self._before_session) < MAX_BEFORE_SESSION:
                self._before_session.append((message, time_ms))
            else:
                self.fault(f"more than {MAX_BEFORE_SESSION} messages before the session: "
                           f"{type(message).__name__} dropped")
            return
        self.message_time = time_ms
        late = None if time_ms is None else round(self.wall() - time_ms / 1000, 3)
        # the engine journals what a message means; one held back through a link loss is worth a line
        held_back = late is not None and late >= HELD_BACK_AFTER
        (self.log.info if held_back else self.log.debug)("device.event", message=type(message).__name__,
                                                         device_time=time_ms, late=late)
        try:
            self.on_message(message, now)
        finally:
            self.message_time = None

    def _identified(self, identity: Identity, now: float) -> None:
        """The session's second half: who the device is and what it can do; we turn on what we use,
        set its clock, and the device is online."""
        if self._reply is None:
            if self.online:     # an answer to a Hello said again while the device was silent: already online
                self.log.info("device.identity_repeated")
            else:
                self.fault("Identity before a HelloReply: ignored")
            return
        reply, self._reply = self._reply, None
        usable = HOST_CAPABILITIES if self.link.auth is not None else HOST_CAPABILITIES & ~CAP_AUTHENTICATION
        self.capabilities = identity.capabilities & usable
        self.identity = identity.record()
        self._write(self.queue(UseCapabilities(self.capabilities), now))
        self._set_clock(now)
        if self.online:                     # a Hello repeated on a live session: nothing to announce
            self.on_handshake(reply, now)
            return
        self.went_online({**vars(reply), "identity": self.identity,
                          "capabilities_used": capability_names(self.capabilities)})
        self.on_handshake(reply, now)
        held, self._before_session = self._before_session, []
        self.held_back = True           # the device's own order: its HelloReply, what it kept, its Identity
        try:
            for earlier, stamped in held:
                self._delivered(earlier, now, stamped)
        finally:
            self.held_back = False

    def on_handshake(self, reply: Any, now: float) -> None:
        pass

    def on_message(self, message: Any, now: float) -> None:
        self.post(DeviceMessage(self.name, message))
