"""The engine's timers: named deadlines on the engine's clock, kept by the engine's thread.

Owns which timers are live and when each is due. Scheduling a name again replaces it, and a
cancelled or replaced timer never fires: each expiry carries the token it was scheduled with,
and only the live token's expiry counts (``expire``).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable

from controller.engine_events import TimerExpired


class Deadlines:
    def __init__(self, clock: Callable[[], float]):
        self.clock = clock
        self._heap: list[tuple[float, int, str]] = []
        self._live: dict[str, int] = {}
        self._tokens = itertools.count(1)

    def schedule(self, name: str, delay: float) -> None:
        token = next(self._tokens)
        self._live[name] = token
        heapq.heappush(self._heap, (self.clock() + delay, token, name))

    def cancel(self, name: str) -> None:
        self._live.pop(name, None)

    def until_next(self) -> float | None:
        """Seconds until the next live timer is due (0 when one is), None when none is live."""
        while self._heap and self._live.get(self._heap[0][2]) != self._heap[0][1]:
            heapq.heappop(self._heap)
        if not self._heap:
            return None
        return max(0.0, self._heap[0][0] - self.clock())

    def due(self) -> TimerExpired | None:
        if self._heap and self._heap[0][0] <= self.clock():
            _, token, name = heapq.heappop(self._heap)
            return TimerExpired(name, token)
        return None

    def expire(self, event: TimerExpired) -> bool:
        """True when ``event`` is its timer's live expiry (which is then over)."""
        if self._live.get(event.name) != event.token:
            return False
        del self._live[event.name]
        return True
