"""Latency histograms that cost the same on round 1 and round 1,000,000.

Owns how the table measures itself while it plays: the time from a device's
decoded frame to the snapshot it produced (the engine's), and from a snapshot's
publication to its server-sent event leaving for a page (the page's). Each is a
fixed array of log-spaced buckets (24 a decade, from 10 µs to 100 s: a
percentile is read within 10 % of its value) plus an exact count and maximum,
so memory stays flat however long the table runs. One owner thread adds; any
thread may read a summary (a slightly stale one is fine).
"""

from __future__ import annotations

import math

PER_DECADE = 24
LOWEST = 1e-5                   # seconds: faster than this counts in the first bucket
DECADES = 7                     # 10 µs .. 100 s; slower counts in the last bucket
BUCKETS = PER_DECADE * DECADES


class Latencies:
    def __init__(self) -> None:
        self.counts = [0] * BUCKETS
        self.n = 0
        self.worst = 0.0

    def add(self, seconds: float) -> None:
        index = 0 if seconds <= LOWEST else int(math.log10(seconds / LOWEST) * PER_DECADE)
        self.counts[min(index, BUCKETS - 1)] += 1
        self.n += 1
        self.worst = max(self.worst, seconds)

    def percentile(self, p: float) -> float:
        """The upper edge of the bucket holding the p-th percentile (seconds); 0 when empty."""
        if not self.n:
            return 0.0
        rank, seen = math.ceil(self.n * p / 100), 0
        for index, count in enumerate(self.counts):
            seen += count
            if seen >= rank:
                return min(self.worst, self._edge(index))
        return self.worst

    def summary(self) -> dict[str, object]:
        """``{"n", "p50_ms", "p99_ms", "max_ms", "buckets"}``, milliseconds to three decimals;
        ``buckets`` is the histogram itself, ``[upper edge ms, count]`` for each bucket that holds
        anything (the last one's edge is the maximum), so a reader can draw it or merge several."""
        return {"n": self.n, "p50_ms": round(self.percentile(50) * 1000, 3),
                "p99_ms": round(self.percentile(99) * 1000, 3), "max_ms": round(self.worst * 1000, 3),
                "buckets": [[round(self._edge(i) * 1000, 4), count] for i, count in enumerate(self.counts) if count]}

    def _edge(self, index: int) -> float:
        # the last bucket holds everything slower: its edge says nothing, the maximum does
        return self.worst if index == BUCKETS - 1 else LOWEST * 10 ** ((index + 1) / PER_DECADE)
