"""The simulated table in a process of its own: devices, players and the scripted dealer.

Owns running ``SimulatedTable`` and its ``ScriptedDealer`` in a child process
(``multiprocessing``'s spawn: a clean interpreter, nothing of the controller's
logging, audit trail or threads), so that the controller's process holds what a
table PC holds: drivers, engine, journal, page. In one process the simulated
devices, their links and the players share the controller's interpreter lock,
and a benchmark measures both at once; apart, the devices sit where hardware
sits (their ptys or sockets) and work on the other core.

The two processes speak over two one-way pipes: the controller sends each
published snapshot (newest only: a dealer acts on the table as it is now, as
one looking at the page does), the child sends the dealer's actions and the
count of rounds it has seen finish; the end of the controller's pipe tells the child to stop.
Only simulation uses this; the controller
reaches the devices through their URLs as always.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable
from typing import Any

from controller.rules.paytable import Preset
from simulators.dealer import Submit
from simulators.table import SimError, SimOptions

START_TIMEOUT = 30.0        # seconds for the child to open its ports (a spawn imports the simulators)
STOP_TIMEOUT = 5.0          # seconds for it to stop its devices once its pipe has ended; then SIGKILL


class SimulatedTableApart:
    """What ``SimulatedTable`` offers a controller (``urls``, ``line_settings``, ``key_files``,
    ``start``, ``stop``), with the devices in a child process; ``dealer`` wires its scripted dealer."""

    usb_backend = None          # the simulated USB bus lives in pyusb's process: not apart

    def __init__(self, options: SimOptions, preset: Preset):
        ctx = multiprocessing.get_context("spawn")
        self._to_child, child_in = ctx.Pipe(duplex=False)[::-1]
        child_out, self._from_child = ctx.Pipe(duplex=False)[::-1]
        self._process = ctx.Process(target=_serve, args=(child_in, child_out, options, preset),
                                    name="table-sim-apart", daemon=True)
        self._process.start()
        child_in.close()
        child_out.close()
        try:
            if not self._from_child.poll(START_TIMEOUT):
                raise SimError(f"the simulated table's process did not open its ports within {START_TIMEOUT:g} s")
            kind, hello = self._from_child.recv()
        except (EOFError, OSError):
            kind, hello = "error", "the simulated table's process ended before opening its ports (its error is above)"
        except SimError:
            self._end_child()
            raise
        if kind == "error":
            self._end_child()
            raise SimError(hello)
        self.key_files: dict[str, str] = hello["key_files"]
        self._urls: dict[str, str] = hello["urls"]
        self._lines: dict[str, dict[str, Any]] = hello["lines"]
        self._newest: dict | None = None
        self._sending = threading.Lock()        # one writer at a time on the pipe to the child
        self._wake = threading.Condition()
        self._stopping = False
        self._threads: list[threading.Thread] = []

    def urls(self) -> dict[str, str]:
        return dict(self._urls)

    def line_settings(self) -> dict[str, dict[str, Any]]:
        return {role: dict(line) for role, line in self._lines.items()}

    def start(self) -> SimulatedTableApart:
        self._send(("start", None))
        return self

    def stop(self) -> None:
        """The child is told by the end of its pipe (it stops its devices and ends), never by a
        message: a child that stopped reading must not hold the controller's stop."""
        with self._wake:
            self._stopping = True
            self._wake.notify()
        for thread in self._threads:
            thread.join(2)
        if not any(thread.is_alive() for thread in self._threads):
            self._to_child.close()      # a sender stuck on a full pipe ends with the child, below
        self._end_child()

    def _end_child(self) -> None:
        self._process.join(STOP_TIMEOUT)
        if self._process.is_alive():
            self._process.kill()
            self._process.join(5)
        self._from_child.close()

    def _send(self, message: tuple[str, Any]) -> None:
        with self._sending:
            self._to_child.send(message)

    def dealer(self, submit: Submit, observers: list[Callable[[dict[str, Any]], None]],
               rounds: int | None) -> ApartDealer:
        """The child's scripted dealer, seen from here: ``finished`` and ``done`` as ScriptedDealer's;
        its actions go to ``submit``; each snapshot given to ``observers`` is sent to it."""
        dealer = ApartDealer()
        self._send(("dealer", rounds))
        observers.append(self._observe)
        self._threads = [threading.Thread(target=self._send_snapshots, name="sim-apart-send", daemon=True),
                         threading.Thread(target=self._hear, args=(submit, dealer), name="sim-apart-hear",
                                          daemon=True)]
        for thread in self._threads:
            thread.start()
        return dealer

    def _observe(self, snap: dict) -> None:
        # on the engine's thread: never a pipe write there (a slow child must not hold the table)
        with self._wake:
            self._newest = snap
            self._wake.notify()

    def _send_snapshots(self) -> None:
        while True:
            with self._wake:
                self._wake.wait_for(lambda: self._newest is not None or self._stopping)
                if self._stopping:
                    return
                snap, self._newest = self._newest, None
            try:
                self._send(("snapshot", snap))
            except OSError:
                return                  # the child has gone: the run's stop follows

    def _hear(self, submit: Submit, dealer: ApartDealer) -> None:
        while not self._stopping:
            try:
                if not self._from_child.poll(0.2):
                    continue
                kind, body = self._from_child.recv()
            except (EOFError, OSError, ValueError):     # ValueError: the pipe was closed by stop
                dealer.done.set()       # no dealer any more: the run ends instead of waiting for ever
                return
            if kind == "submit":
                action, role, who, args = body
                submit(action, role=role, who=who, **args)
            elif kind == "finished":
                dealer.finished, done = body
                if done:                # the child's dealer says when it has played the rounds asked
                    dealer.done.set()


class ApartDealer:
    """The parent's view of the child's scripted dealer."""

    def __init__(self) -> None:
        self.finished = 0
        self.done = threading.Event()


def _serve(inbox: Any, outbox: Any, options: SimOptions, preset: Preset) -> None:
    """The child: open the ports, say where they are, then run devices and dealer until its pipe
    from the controller ends."""
    from simulators.dealer import ScriptedDealer
    from simulators.table import SimulatedTable
    try:
        sim = SimulatedTable(options, preset)
    except (SimError, OSError, ValueError) as err:
        outbox.send(("error", f"the simulated table could not start: {err}"))
        return
    outbox.send(("hello", {"urls": sim.urls(), "lines": sim.line_settings(), "key_files": sim.key_files}))
    dealer: ScriptedDealer | None = None
    finished = 0
    try:
        while True:
            kind, body = inbox.recv()
            if kind == "start":
                sim.start()
            elif kind == "dealer":
                def submit(action: str, role: str = "dealer", who: str = "", **args: Any) -> None:
                    outbox.send(("submit", (action, role, who, args)))
                dealer = ScriptedDealer(submit, sim.players, rounds=body)
            elif kind == "snapshot" and dealer is not None:
                dealer.observe(body)
                if dealer.finished != finished:
                    finished = dealer.finished
                    outbox.send(("finished", (finished, dealer.done.is_set())))
    except (EOFError, OSError):
        return                          # the controller has gone
    finally:
        sim.stop()
