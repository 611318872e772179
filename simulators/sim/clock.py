"""Virtual time for the deterministic simulation: a clock that jumps to the next timer.

Owns "now" (seconds since the run began, monotonic, and the wall time derived from it: a fixed
epoch plus that), and the simulation's own timers: device deliveries, device and driver ticks,
the dealer's think time, faults and their undoing. Timers due at the same moment run in the order
they were set (a sequence number breaks ties), so a run never depends on how a heap orders equals.
The engine's own deadlines (controller/deadlines.py) run on ``monotonic`` too; the world
(simulators/sim/world.py) takes whichever comes first.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

# every run begins at the same wall time: the journal's times are the seed's, not the day's
EPOCH = datetime(2030, 1, 1, 8, 0, tzinfo=UTC)


class VirtualClock:
    def __init__(self) -> None:
        self.now = 0.0
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self._epoch = EPOCH.timestamp()
        self._iso: tuple[float, str] = (-1.0, "")     # the last stamp made: asked for again until time moves
        self._iso_z: tuple[float, str] = (-1.0, "")
        self._second: tuple[int, str] = (-1, "")      # the last whole second written out, without its zone

    # --- the clocks handed to the parts -----------------------------------------------

    def monotonic(self) -> float:
        return self.now

    def wall(self) -> float:
        """UTC seconds since 1970, as time.time() says."""
        return self._epoch + self.now

    def iso(self) -> str:
        """The journal's stamp (controller/store/journal.py ``now_iso``), in virtual time."""
        now = self.now
        if self._iso[0] != now:
            # the date and time of day once per second, the milliseconds on each: the same text as
            # (EPOCH + timedelta(seconds=round(now, 3))).isoformat(timespec="milliseconds"), made in
            # a fifth of the time (about 60 new stamps a round; tests/sim/test_clock.py holds the two together)
            stamp = round(now, 3)
            second = math.floor(stamp)
            if self._second[0] != second:
                self._second = (second, (EPOCH + timedelta(seconds=second)).isoformat(timespec="seconds")[:-6])
            self._iso = (now, f"{self._second[1]}.{round((stamp - second) * 1000):03d}+00:00")
        return self._iso[1]

    def iso_z(self) -> str:
        """The audit trail's stamp (structlog's ISO form, ending in Z), in virtual time."""
        if self._iso_z[0] != self.now:
            self._iso_z = (self.now, self.iso().replace("+00:00", "Z"))
        return self._iso_z[1]

    # --- timers -------------------------------------------------------------------------

    def at(self, when: float, action: Callable[[], None]) -> None:
        heapq.heappush(self._heap, (max(when, self.now), next(self._seq), action))

    def after(self, delay: float, action: Callable[[], None]) -> None:
        self.at(self.now + delay, action)

    def next_due(self) -> float | None:
        return self._heap[0][0] if self._heap else None

    def pop_due(self) -> Callable[[], None] | None:
        """The next timer due by now, taken off; None when none is."""
        if self._heap and self._heap[0][0] <= self.now:
            return heapq.heappop(self._heap)[2]
        return None

    def advance(self, to: float) -> None:
        if to > self.now:
            self.now = to

    def clear(self) -> None:
        self._heap.clear()
