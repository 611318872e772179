"""The one owner of game state: a queue of events and the thread that drains it.

Owns the order in which things happen. Device reader threads, the dealer's
page and the timers only ``post`` events here; one thread takes them one at
a time, hands each to the table (controller/round/table.py), lets the round move
on by itself where it can (``machine.AUTOMATIC``), then publishes the moment
for readers (``snapshot``/``wait_snapshot``, observers and watchers:
controller/publisher.py, which draws a moment's snapshot when it is read). Timers are
deadlines kept by this thread; an expired timer is one more event.

Dealer actions carry a reply slot: ``act`` posts the action and waits for
the verdict (done, or refused with the reason), so the page can say why.
They also carry who asks: a role, and for supervisor actions the PIN holder
the page checked (controller/store/pins.py). The engine refuses a supervisor action
from any other role, hands ``by`` (who) to the table so each journal record
of the action names its author, and logs every action, done or refused, with
who and why into the audit trail.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import structlog
from transitions import MachineError

from controller.deadlines import Deadlines
from controller.engine_events import (
    FLOOR_EVENTS,
    DealerAction,
    Draw,
    JournalBehindFloor,
    PageAlert,
    Probe,
    Stop,
    TimerExpired,
    Verdict,
    bad_arguments,
)
from controller.engine_trail import EngineTrail, TrailWrite
from controller.publisher import Publisher
from controller.round import machine as procedure
from controller.round.ports import Command, Ports
from controller.round.table import Table
from controller.round.view import DrawMemo, SettlementLines, build_snapshot
from controller.rules.words import command_words, device_says
from controller.store.behind import standing as standing_behind
from controller.store.journal import JournalError
from controller.store.pins import PRIVILEGED_ROLES
from drivers.events import (
    CommandFailed,
    DeckChecked,
    DeviceFault,
    DeviceMessage,
    DeviceOffline,
    DeviceOnline,
    DeviceTrouble,
    FeltRead,
    HandDealt,
    ShoeCount,
    ShoeDoor,
    ShoeJam,
    ShoeMiscounted,
    ShuffleDone,
    ShuffleLate,
    SignShowing,
    SpotChanged,
    SpotFault,
)

PUBLISH_AT_LEAST_EVERY = 0.02   # seconds: a long burst of device events is still drawn this often
SHOE_FACTS = (ShuffleDone, HandDealt, ShoeCount, ShoeJam, ShoeDoor, DeckChecked, ShuffleLate, ShoeMiscounted)

class Engine:
    def __init__(self, config, journal, ports: Ports, *, clock: Callable[[], float] = time.monotonic,
                 trail: TrailWrite | None = None, console_debug: Callable[[], bool] = lambda: False,
                 trail_stamp: Callable[[], str] | None = None):
        """``trail``: the audit trail's writer, for the anchors (controller/engine_trail.py), and
        ``trail_stamp`` their time where it is not the system's (the simulation's)."""
        self.config, self.journal, self.ports = config, journal, ports
        self.clock = clock
        self.halted: str | None = None      # the journal cannot be written: nothing more is done
        self._halted_on_record = False      # halted by a finding kept in the journal: alive, on purpose
        self._verdict: Verdict | None = None    # the current action's, told once it is journaled
        # (posted, event): posted by ``post`` alone. A SimpleQueue (C, no Python lock and condition at each
        # put, get and the emptiness asked at every step): the engine needs nothing more of a queue
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        self._dirty = False                     # handled since the last moment was published
        self.timers = Deadlines(clock)
        self._handling: Any = None              # the event being handled (a halt answers it)
        self.log = structlog.get_logger("engine").bind(table=config.table_id)
        self._trail = EngineTrail(journal, self.log, trail, console_debug=console_debug, stamp=trail_stamp)
        self.table = Table(config, journal, schedule=self.timers.schedule, cancel=self.timers.cancel)
        self._trail.after("start", None, self.table)     # the start-up's own facts (self-check, recovery)
        self._lines, self._memo = SettlementLines(), DrawMemo()
        self.publisher = Publisher(self._draw, self._ask_to_draw, clock=clock)
        self.observers: list[Callable[[dict], None]] = self.publisher.observers    # each moment's snapshot
        self.latency = self.publisher.latency   # a device event's post to its moment's publication
        self._thread: threading.Thread | None = None
        self._halt_on_record()
        self._publish()

    def _halt_on_record(self) -> None:
        """A finding the journal keeps that forbids play (a journal found behind the floor, not yet
        cleared by a technician: controller/store/behind.py) halts the table from its start. It
        answers the watchdog: restarting cannot help, and the page keeps saying why."""
        found = standing_behind(self.journal)
        if found is not None:
            self.halted = self._halt_words(f"{found['words']} (found {found['at']}; a technician clears it with "
                                           "`table-controller behind clear`, then restarts the table)")
            self._halted_on_record = True
            self._say_halted()

    # --- anyone may call these ------------------------------------------------------

    def post(self, event: Any) -> None:
        self.queue.put((self.clock(), event))   # stamped: a device event's wait is measured

    def act(self, action: str, role: str = "dealer", timeout: float = 5.0, who: str = "",
            **args) -> Verdict:
        reply: queue.Queue = queue.Queue(maxsize=1)
        self.post(DealerAction(action, args, role, reply, who))
        try:
            return reply.get(timeout=timeout)
        except queue.Empty:
            return Verdict(False, f"{action}: the table did not answer within {timeout:g} s; the outcome is "
                           "unknown: look at the table before touching again", unknown=True)

    def submit(self, action: str, role: str = "dealer", who: str = "", **args: Any) -> None:
        """Post an action without waiting for its verdict (for callers on the engine's own thread,
        such as an observer of the snapshots, which must never block it)."""
        self.post(DealerAction(action, args, role, None, who))

    def alive(self, timeout: float) -> bool:
        """True when the engine's thread takes an event from its queue within ``timeout``."""
        probe = Probe()
        self.post(probe)
        return probe.done.wait(timeout)

    @property
    def snapshot(self) -> dict:
        return self.publisher.current()

    def wait_snapshot(self, after_version: int, timeout: float) -> dict:
        """The first snapshot newer than ``after_version`` (or the current one after ``timeout``)."""
        return self.publisher.wait(after_version, timeout)

    # --- the owner thread -----------------------------------------------------------

    def start(self) -> None:
        self._thread = self.publisher.owner = threading.Thread(target=self.run, name="table-engine", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.post(Stop())
        if self._thread:
            self._thread.join(5)

    def run(self) -> None:
        while True:
            try:
                if not self.step(None):
                    return
            except Exception as err:        # nothing ends the engine's thread unseen: the table halts
                self._halt(f"an internal error ({type(err).__name__}: {err})", self._handling)

    def step(self, timeout: float | None = 0.0) -> bool:
        """Handle one event (or expired timer); False once stopped."""
        if self._dirty and self.queue.empty():  # a burst ended on a probe or a stop: draw it now
            self._publish()
        wait = self.timers.until_next()
        if timeout is not None:
            wait = timeout if wait is None else min(wait, timeout)
        try:
            posted, event = self.queue.get(timeout=wait) if wait is None or wait > 0 else self.queue.get_nowait()
        except queue.Empty:
            posted, event = None, self.timers.due()
            if event is None:
                return True
        if isinstance(event, Stop):
            return False
        if isinstance(event, Probe):
            # a halted table must not look alive to the watchdog, but for a halt the journal keeps
            if self.halted is None or self._halted_on_record:
                event.done.set()
            return True
        if isinstance(event, Draw):         # a reader on another thread asks for the newest moment
            if self.halted is None:         # (a halt's moment is drawn: the table is not read again)
                self._publish() if self._dirty else self.publisher.draw()
            event.done.set()
            return True
        if posted is not None and hasattr(event, "device"):      # a device's event: frame to snapshot
            self.publisher.measure(posted)
        self._handling = event
        self.handle(event)
        return True

    def idle(self) -> bool:
        """No event waits and no timer is due: ``step`` has nothing to do now."""
        wait = self.timers.until_next()
        return self.queue.empty() and (wait is None or wait > 0) and not self._dirty

    def handle(self, event: Any) -> None:
        """One event, one transaction: the table decides and journals; the event's records are
        committed together; then its device commands go out and the new state is published."""
        table = self.table
        if self.halted is not None:
            if isinstance(event, DealerAction) and event.reply is not None:
                event.reply.put(Verdict(False, f"The table has stopped: {self.halted}"))
            return
        self.publisher.draw()               # the last moment, unread yet, before the table changes
        try:
            with self.journal.event():
                try:
                    self._dispatch(event)
                    self._advance()
                    table.floor_duties()        # a linked jackpot: locks taken, the floor's values
                except JournalError:
                    raise
                except Exception as err:    # a bug must not take the table down with the round in it
                    self.log.exception("engine.error", failed_event=repr(event), state=table.state)
                    table.alert("internal_error", f"Internal error handling {type(event).__name__}: "
                                f"{err}; call a technician")
        except JournalError as err:
            table.take_commands()           # nothing is sent for facts that are not in the journal
            self._verdict = None
            self._halt(f"the journal cannot be written ({err})", event)
            return
        self._trail.after(event, self._verdict, table)
        trail = self.journal.trail_trouble()
        if trail is not None:               # the facts are committed: they are acted on and drawn, then no more
            self.halted = self._halt_words(f"the audit trail cannot be written ({trail})")
            self._say_halted()
        elif isinstance(event, JournalBehindFloor):     # its alert is committed: the table plays no more
            self.halted = self._halt_words(event.words)
            self._halted_on_record = True               # and the journal keeps it (store/behind.py)
            self._say_halted()
        verdict, self._verdict = self._verdict, None
        self._send(table.take_commands())
        # A burst of device events (a player's stacks, the sensors' snapshot after a reconnect) is drawn
        # once it has been handled: readers want the newest moment, not each one on the way. A person's
        # action is always drawn at once, before its verdict (its page looks at the table right after).
        if isinstance(event, DealerAction) or self.queue.empty() or \
                self.clock() - self.publisher.published_at >= PUBLISH_AT_LEAST_EVERY:
            self._publish()
        else:
            self._dirty = True
        if isinstance(event, DealerAction) and event.reply is not None:
            event.reply.put(verdict or Verdict(False, f"{event.action}: not handled"))

    def _halt(self, why: str, event: Any) -> None:
        """The journal cannot be written (a full or read-only disk, a failing drive): nothing may be
        done that is not journaled, so the table stops taking events, says why everywhere (log, page,
        systemd's status) and stops answering the watchdog, which restarts the service. Nothing
        here can fail: a log line the disk refuses is the console's alone (controller/store/audit.py)."""
        self.halted = self._halt_words(why)
        self._say_halted()
        if isinstance(event, DealerAction) and event.reply is not None:
            event.reply.put(Verdict(False, f"The table has stopped: {self.halted}"))
        # the last snapshot published is the last committed truth: the table's memory may hold facts
        # of the event that was rolled back, so it is not drawn again
        try:
            self._publish(dict(self.publisher.last_drawn(), halted=self.halted))
        except Exception:                   # an observer's failure: the snapshot is published first
            pass

    @staticmethod
    def _halt_words(why: str) -> str:
        return f"{why}. Nothing more is recorded or paid; call a technician"

    def _say_halted(self) -> None:
        try:
            self.log.critical("engine.halted", reason=self.halted, state=self.table.state,
                              round=self.table.round.id if self.table.round else None)
        except Exception:
            pass

    def _dispatch(self, event: Any) -> None:
        table = self.table
        if isinstance(event, DealerAction):
            self._dealer_action(event)
        elif isinstance(event, SpotChanged):
            table.on_spot(event)
        elif isinstance(event, SpotFault):
            table.on_spot_fault(event)
        elif isinstance(event, SHOE_FACTS) or (isinstance(event, DeviceTrouble) and event.device == "shoe"):
            self.log.debug("device.message", device=event.device, message=type(event).__name__,
                           state=table.state, round=table.round.id if table.round else None)
            table.on_shoe(event)
        elif isinstance(event, SignShowing):
            table.on_sign_showing(event.values)
        elif isinstance(event, DeviceOnline):
            table.on_online(event.device, event.info)
        elif isinstance(event, FeltRead):
            table.on_felt_read(event.device)
        elif isinstance(event, DeviceOffline):
            table.on_offline(event.device, event.reason)
        elif isinstance(event, DeviceFault):
            self.log.warning("device.fault", device=event.device, url=event.url, reason=event.reason,
                             raw=event.raw_hex, state=table.state, security=event.security)
            if event.security:          # a forged or replayed frame, or a wrong key: never a fact
                table.alert("device_security", device_says(event.device, f"sending frames that fail authentication "
                                                           f"({event.reason}); each is refused. Call a technician"))
            else:
                table.alert("device_fault", device_says(event.device, "sending what the table cannot use (refused; "
                                                        "the log has the bytes): call a technician if it repeats"))
        elif isinstance(event, (DeviceMessage, DeviceTrouble)):
            self.log.info("device.message", device=event.device, message=repr(event),
                          state=table.state, round=table.round.id if table.round else None)
        elif isinstance(event, CommandFailed):
            table.alert("command_failed", device_says(event.device, f"not taking the command to "
                                                          f"{command_words(event.command)}: {event.reason}"))
            if event.device == "sign":
                table.on_sign_failed(f"the sign did not take the command to {command_words(event.command)}: "
                                     f"{event.reason}")
            else:
                table.on_command_failed(event.device, event.command)
        elif isinstance(event, FLOOR_EVENTS):
            event.deliver(table, self.log)
        elif isinstance(event, PageAlert):
            table.alert(event.kind, event.message)
        elif isinstance(event, TimerExpired):
            if self.timers.expire(event):
                table.on_timer(event.name)
        else:
            self.log.error("engine.unknown_event", unknown=repr(event))

    def _send(self, commands: list[Command]) -> None:
        """The table's requests to its devices, in order, after the facts behind them are journaled.
        A port that fails is logged; the device's own events (offline, command failed) tell the rest."""
        for command in commands:
            try:
                command.send(self.ports)
            except Exception:
                self.log.exception("engine.command_failed", device=command.device, command=repr(command),
                                   state=self.table.state)

    def _dealer_action(self, event: DealerAction) -> None:
        """The action's verdict waits in ``_verdict`` until the event's records are committed: the
        page is told "done" only of what is in the journal."""
        try:
            verdict = self._try_action(event)
        except Exception as err:
            self._verdict = Verdict(False, f"{event.action}: internal error: {err}")
            raise
        self._verdict = verdict

    def _try_action(self, event: DealerAction) -> Verdict:
        takes = procedure.ACTION_ARGUMENTS.get(event.action)
        if takes is None:
            return Verdict(False, f"unknown action {event.action!r}")
        bad = bad_arguments(event.args, takes, procedure.NEEDED_ARGUMENTS.get(event.action, ()))
        if bad:
            return Verdict(False, f"{event.action}: {bad}")
        if event.action in procedure.SUPERVISOR_ACTIONS and event.role not in PRIVILEGED_ROLES:
            return Verdict(False, f"{event.action.replace('_', ' ')} needs a supervisor or technician PIN")
        table = self.table
        table.refusal = ""
        try:
            done = getattr(table, event.action)(**event.args, by=event.by)
        except MachineError:
            return Verdict(False, f"{event.action.replace('_', ' ')} is not possible while {table.state}")
        return Verdict(True) if done else Verdict(False, table.refusal or f"{event.action} refused")

    def _advance(self) -> None:
        """Take every automatic step whose conditions hold, until none does."""
        table = self.table
        for _ in range(20):
            moved = False
            triggers = procedure.TRIGGERS[table.state]      # the state is read again after each trigger fired
            for trigger in procedure.AUTOMATIC:
                if trigger in triggers and table.guard(procedure.GUARDS[trigger]):
                    if getattr(table, trigger)():
                        moved = True
                        break
                    triggers = procedure.TRIGGERS[table.state]
            if not moved:
                return

    # --- publishing -------------------------------------------------------------------

    def _publish(self, snap: dict | None = None) -> None:
        self._dirty = False
        self.publisher.publish(snap)

    def _draw(self) -> dict:
        snap = build_snapshot(self.table, self._lines, self._memo)
        snap["halted"] = self.halted
        return snap

    def _ask_to_draw(self, timeout: float) -> bool:
        draw = Draw()
        self.post(draw)
        return draw.done.wait(timeout)
