"""The table's published moments: their version numbers, their snapshots drawn when read, who is told.

Owns what readers see of the engine's state and in what order. The engine publishes a moment
after each event (or burst of device events): the moment gets the next version number, the
device events it answers are measured (``latency``: a frame's post to its moment's publication)
and the observers are given its snapshot, in order. The snapshot (controller/round/view.py) is
drawn when someone reads it: an observer, a ``wait_snapshot`` caller, ``snapshot``; and at the
latest before the next event changes the table (``draw`` at the start of each event), because a
halt cannot draw: the table's memory may then hold facts the journal refused, and the halt's
moment must be the last committed one. Drawing reads the table, which only the engine's thread
may do while it runs, so a reader on another thread asks that thread (``ask``) and waits.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from controller.latency import Latencies

ASK_TIMEOUT = 1.0               # seconds a reader on another thread waits for the engine to draw


class Publisher:
    def __init__(self, draw: Callable[[], dict[str, Any]], ask: Callable[[float], bool], *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """``draw()``: the table's snapshot now (engine's thread); ``ask(timeout)``: has the engine's
        thread draw the newest moment, False when it did not within ``timeout``; ``clock``: the
        engine's (a simulation's is virtual, and events are stamped by it when posted)."""
        self._draw, self._ask, self._clock = draw, ask, clock
        self.observers: list[Callable[[dict[str, Any]], None]] = []     # given each moment's snapshot
        self.latency = Latencies()
        self.owner: threading.Thread | None = None      # the engine's thread once it runs
        self.version = 0
        self.published_at = 0.0
        self._unmeasured: list[float] = []
        self._snapshot: dict[str, Any] = {}             # the newest drawn
        self._drawn = 0                                 # its version
        self._waiting = 0                               # wait_snapshot callers waiting
        self._changed = threading.Condition()

    # --- the engine's thread --------------------------------------------------------------

    def measure(self, posted: float) -> None:
        """A device event posted at ``posted`` is answered by the next moment published."""
        self._unmeasured.append(posted)

    def publish(self, snapshot: dict[str, Any] | None = None) -> None:
        """A new moment; ``snapshot`` given (a halt's), it is the moment's as it is."""
        self.published_at = now = self._clock()
        for posted in self._unmeasured:
            self.latency.add(now - posted)
        self._unmeasured.clear()
        # read now, the moment is drawn before its version is told: one hold of the lock, and a reader
        # on another thread never finds the new version not drawn yet while the engine draws it anyway
        fresh = self._draw() if snapshot is None and (self.observers or self._waiting) else None
        with self._changed:
            self.version += 1
            if snapshot is not None:
                self._install(dict(snapshot))
            elif fresh is not None:
                self._install(fresh)
            self._changed.notify_all()
        if self.observers:
            drawn = self._snapshot
            for observer in self.observers:
                observer(drawn)

    def draw(self) -> None:
        """The newest moment's snapshot, drawn now if it is not yet (the engine's thread: when read,
        and before an event changes the table)."""
        if self._drawn != self.version:
            snapshot = self._draw()
            with self._changed:
                self._install(snapshot)

    def last_drawn(self) -> dict[str, Any]:
        return self._snapshot

    def _install(self, snapshot: dict[str, Any]) -> None:
        snapshot["version"] = self.version
        self._snapshot, self._drawn = snapshot, self.version

    # --- any thread -------------------------------------------------------------------------

    def current(self) -> dict[str, Any]:
        """The newest moment's snapshot (drawn now if need be, by the engine's thread). Should the
        engine not answer within ``ASK_TIMEOUT`` (busy or stuck), the newest one drawn."""
        with self._changed:
            if self._drawn == self.version:
                return self._snapshot
        owner = self.owner
        if owner is None or owner is threading.current_thread() or not owner.is_alive():
            self.draw()             # the engine's thread, or nobody drives the table meanwhile
        else:
            self._ask(ASK_TIMEOUT)
        return self._snapshot

    def wait(self, after_version: int, timeout: float) -> dict[str, Any]:
        """The first snapshot newer than ``after_version`` (or the current one after ``timeout``)."""
        with self._changed:
            self._waiting += 1
            try:
                self._changed.wait_for(lambda: self.version > after_version, timeout)
            finally:
                self._waiting -= 1
        return self.current()
