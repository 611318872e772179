"""Jackpot sign driver (host side): an Alpha protocol LED sign on a serial line.

Owns what the sign should show and getting it there without flicker: on every
(re)connection it turns the sign's ACK/NAK responses on, writes the memory
configuration and a TEXT layout that calls STRING files, then only ever
rewrites the STRINGs (MEGA, MAJOR, MINOR and a message line). The layout fits
the configured sign: ``lines`` value rows per page, each a STRING of ``width``
characters ("MEGA $250,000.00"), pages shown in turn, then the message page
(rotating, so a message of any length is read whole). A won jackpot shows
"MEGA WON" until its new value is posted, and a linked jackpot's level won on
the floor "MEGA PENDING" ("MEGA PEND" on a narrow sign: JACKPOT PENDING) until
then; a value too wide for the sign is never cut: its row shows the name alone
and the failure is reported.

Every packet goes to the sign's own address. With ACK/NAK, each packet waits
for its ACK; a NAK or silence is retried, then reported (``CommandFailed``
naming the sign's Serial Error Status bits, and ``DeviceOffline`` when it stays
silent); a periodic rewrite of one STRING doubles as the heartbeat. Without
ACK/NAK the sign cannot be heard, and a written packet is all that can be known.

``SignShowing`` is posted only when every STRING of the current values has
been acknowledged since they last changed: a value packet that failed stays
owed, and the heartbeat sends the owed values again instead of the message
line, so a sign that refused an update is retried until it shows it.
"""

from __future__ import annotations

from collections import deque
from math import inf

from drivers.device import DeviceDriver
from drivers.events import CommandFailed, SignShowing
from drivers.wire import alpha

LABELS = {"mega": "M", "major": "J", "minor": "N"}
MESSAGE_LABEL = "W"
LAYOUT_LABEL = "A"
RESPONSES = "ACK/NAK responses on"
# what the line carries when it is not a sign's: said once (a fault with the bytes), and as the reason
# the sign is offline when a packet got no answer but these
WHY_FOREIGN = "another device on this port, or a line that is not the sign's (9600 7E1 unless configured)"
FOREIGN = f"bytes no Alpha sign sends on the sign's line ({WHY_FOREIGN}): no ACK among them is believed"
NOT_A_SIGN = "no sign's answer within {seconds} s, only bytes no Alpha sign sends: " + WHY_FOREIGN


def format_cents(cents: int) -> str:
    return f"${cents // 100:,}.{cents % 100:02d}"


def value_row(name: str, cents: int | None, width: int, pending: bool = False) -> str | None:
    """A value row as the sign shows it, ``width`` characters: "MEGA $250,000.00", whole dollars
    when the cents are 00 and the full amount does not fit, "MEGA WON" for a jackpot won and not
    yet posted anew (``cents`` None), "MEGA PENDING" (or "PEND") for a linked level won on the
    floor (``pending``); None when the value cannot be shown whole."""
    label = name.upper()
    shown = ["PENDING", "PEND"] if pending else ["WON"] if cents is None else \
        [format_cents(cents)] + ([f"${cents // 100:,}"] if cents % 100 == 0 else [])
    for value in shown:
        row = f"{label} {value}"
        if len(row) <= width:
            return row.ljust(width)
    return None


def layout(lines: int) -> bytes:
    """The TEXT file: pages of ``lines`` value rows (hold), then the message page (rotate)."""
    rows = [alpha.call_string(label) for label in LABELS.values()]
    position = alpha.MIDDLE_LINE if lines == 1 else alpha.FILL
    pages = [alpha.page(bytes((alpha.NEXT_LINE,)).join(rows[i:i + lines]), position=position)
             for i in range(0, len(rows), lines)]
    pages.append(alpha.page(alpha.call_string(MESSAGE_LABEL), mode=alpha.ROTATE))
    return alpha.write_pages(LAYOUT_LABEL, pages)


class SignDriver(DeviceDriver):
    def __init__(self, name, transport, post, *, address: str = alpha.BROADCAST, acks: bool = True,
                 ack_timeout: float = 0.5, max_attempts: int = 3, heartbeat_every: float = 5.0,
                 width: int = 20, lines: int = 1, **kwargs):
        # Refused here, where they are given, not in the I/O thread at the first packet.
        try:
            address = alpha.check_address(address)
        except alpha.AlphaEncodeError as err:
            wildcard = "; '?' is the protocol's wildcard, which reaches every sign it matches" \
                if "?" in str(err) else ""
            raise ValueError(f"sign driver setting 'address': {address!r} is not the sign's address, "
                             f"two hex digits (00 = every sign){wildcard}") from None
        if acks and address == alpha.BROADCAST:
            raise ValueError("sign driver setting 'address': 00 is broadcast, which no sign answers; "
                             "with acks on give the sign's own address (01 to FF)")
        if not 12 <= width <= alpha.MAX_STRING or not 1 <= lines <= 8:
            raise ValueError(f"sign driver settings 'width' {width!r} (12 to {alpha.MAX_STRING}) and "
                             f"'lines' {lines!r} (1 to 8)")
        super().__init__(name, transport, post, **kwargs)
        self.address = address
        self.acks = acks
        self.width = width
        self.lines = lines
        self.ack_timeout = ack_timeout
        self.max_attempts = max_attempts
        self.heartbeat_every = heartbeat_every
        self.values: dict[str, int] = {}
        self.won: frozenset[str] = frozenset()      # jackpots shown as WON until their new value
        self.pending: frozenset[str] = frozenset()  # a linked jackpot's levels shown as PENDING
        self.message = ""
        self._responses = alpha.ResponseDecoder()
        self._queue: deque[tuple[str, bytes]] = deque()
        self._in_flight: tuple[str, bytes] | None = None
        self._attempts = 0
        self._sent_at = 0.0
        self._last_sent = 0.0
        self._owed: set[str] = set()        # value STRINGs not yet acknowledged since they changed
        self._unfit: set[str] = set()       # values too wide for the sign: shown by name alone
        self._foreign = False               # bytes no sign sends since the packet in flight was sent
        self._foreign_said = False          # and the fault said, once until a sign answers again

    # --- commands (controller thread) ---------------------------------------------------

    def show_values(self, mega: int, major: int, minor: int, won: tuple[str, ...] = (),
                    pending: tuple[str, ...] = ()) -> None:
        """The posted values; ``won`` names the jackpots won since, shown "WON" instead, and
        ``pending`` a linked jackpot's levels won on the floor, shown "PENDING"."""
        with self._lock:
            self.values = {"mega": mega, "major": major, "minor": minor}
            self.won = frozenset(won)
            self.pending = frozenset(pending)
            self._enqueue_values()
            unfit = sorted(self._unfit, key=list(LABELS).index)
            if unfit:
                self.post(CommandFailed(self.name, f"STRING {unfit[0]}", (
                    f"{' and '.join(n.upper() + ' ' + format_cents(self.values[n]) for n in unfit)} "
                    f"cannot be shown whole on a {self.width}-character line: the sign shows the name "
                    "alone (a wider sign, or devices.sign.width, is needed)")))
            self._pump(self.clock())

    def show_message(self, text: str) -> None:
        with self._lock:
            self.message = text
            self._enqueue("STRING message", alpha.write_string(MESSAGE_LABEL, text[:alpha.MAX_STRING]))
            self._pump(self.clock())

    def clear(self) -> None:
        self.show_message("")

    # --- protocol -------------------------------------------------------------------------

    def on_open(self, now: float) -> bytes:
        self._responses = alpha.ResponseDecoder()
        self._queue.clear()
        self._in_flight = None
        if self.acks:               # a sign starts silent: the first packet asks it to answer
            self._enqueue(RESPONSES, alpha.set_responses(True))
        entries = [alpha.FileEntry(LAYOUT_LABEL, "A", 0x100)]
        entries += [alpha.FileEntry(label, "B", self.width) for label in LABELS.values()]
        entries.append(alpha.FileEntry(MESSAGE_LABEL, "B", alpha.MAX_STRING))
        self._enqueue("memory configuration", alpha.memory_config(entries))
        self._enqueue("layout", layout(self.lines))
        if self.values:
            self._enqueue_values()
        self._enqueue("STRING message", alpha.write_string(MESSAGE_LABEL, self.message))
        if not self.acks:
            self.went_online({"acks": False})
        self._pump(now)
        return b""

    def _enqueue_values(self) -> None:
        self._unfit.clear()
        for key, label in LABELS.items():
            row = value_row(key, None if key in self.won else self.values[key], self.width, key in self.pending)
            if row is None:
                self._unfit.add(key)
                row = key.upper().ljust(self.width)     # never a value cut short, nor the old one left
            self._owed.add(f"STRING {key}")
            self._enqueue(f"STRING {key}", alpha.write_string(label, row))

    def _enqueue(self, what: str, command: bytes) -> None:
        self._queue.append((what, alpha.packet(command, self.address)))

    def _pump(self, now: float) -> None:
        if not self.connected:
            return
        while self._in_flight is None and self._queue:
            what, data = self._queue.popleft()
            self._write(data)
            self._last_sent = now
            if self.acks:
                self._in_flight, self._attempts, self._sent_at = (what, data), 1, now
                self._foreign = False
            else:
                self._owed.discard(what)
                if not self._queue:
                    self._showing()

    def _showing(self) -> None:
        """Every value STRING acknowledged: the values the sign shows (a won one shows WON, and
        one too wide shows no value: neither is reported as shown)."""
        if not self._owed:
            shown = {k: v for k, v in self.values.items()
                     if k not in self.won and k not in self.pending and k not in self._unfit}
            self.post(SignShowing(self.name, shown, self.message))

    def on_bytes(self, data: bytes, now: float) -> None:
        before = self._responses.foreign
        responses = self._responses.feed(data)
        if self._responses.foreign > before:
            self._foreign = True                # the packet in flight: no answer on this line is believed
            if not self._foreign_said:
                self._foreign_said = True
                self.fault(FOREIGN, data)
        for response in responses:
            if self._in_flight is None or self._foreign:
                continue
            what, packet = self._in_flight
            if isinstance(response, alpha.SignNak) and what == RESPONSES and response.only_illegal:
                # a sign that answers already (set in its menu) but lacks the function: it answers
                self.log.info("sign.responses_function_unknown", status=f"0x{response.status:02x}")
                response = alpha.SignAck()
            if isinstance(response, alpha.SignAck):
                self._foreign_said = False      # a sign answers on this line: say it again if it changes
                self.went_online({"acks": True})
                self._in_flight = None
                self._owed.discard(what)
                if not self._queue:
                    self._showing()
            else:
                reasons = ", ".join(response.reasons)
                self.fault(f"sign refused {what}: NAK ({reasons})", bytes((alpha.NAK, response.status)))
                self._retry(now, f"NAK ({reasons})")
        self._pump(now)

    def on_tick(self, now: float) -> None:
        if self._in_flight and now >= self._sent_at + self.ack_timeout:
            self._retry(now, f"no answer within {self.ack_timeout:.1f} s")
        elif self.acks and not self._in_flight and not self._queue and \
                now >= self._last_sent + self.heartbeat_every:
            if self._owed and self.values:
                self._enqueue_values()          # a refused update is retried until the sign takes it
            else:
                self._enqueue("heartbeat", alpha.write_string(MESSAGE_LABEL, self.message))
        self._pump(now)

    def next_due(self, now: float) -> float:
        """When ``on_tick`` next acts (its tests, the same sums; inf: not before the sign answers or
        is given something to show): the ACK's timeout, packets waiting (at once), the heartbeat."""
        if self._in_flight:
            return self._sent_at + self.ack_timeout
        if self._queue and self.connected:
            return now
        return self._last_sent + self.heartbeat_every if self.acks and not self._queue else inf

    def _retry(self, now: float, reason: str) -> None:
        if self._in_flight is None:
            return
        what, packet = self._in_flight
        if self._attempts < self.max_attempts:
            self._attempts += 1
            self._sent_at = now
            self._foreign = False
            self._write(packet)
            return
        self._in_flight = None
        self.post(CommandFailed(self.name, what, f"{reason} after {self._attempts} attempts"))
        if reason.startswith("no answer"):
            # Treated as a lost connection: reopened with backoff, then rewritten in full.
            self._queue.clear()
            self._lost(NOT_A_SIGN.format(seconds=f"{self.ack_timeout:.1f}") if self._foreign
                       else f"sign silent: {reason}")
