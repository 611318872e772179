"""The forwarder's pause between attempts to reach the floor: exponential with full jitter.

Owns one thing: how long a table waits before trying the floor again after the link failed. The
n-th pause after a failure (n = 0, 1, 2...) is drawn uniformly from [0, min(CAP, FIRST * 2**n)]
("full jitter"): the ceiling doubles from 0.2 s to the cap of 10 s, and the draw spreads the
tables of a floor over it, so that after a failover or a restart 500 tables do not reconnect in
lockstep (a fixed doubling sends them all at the same instants). Connecting resets it. The
random source is injectable: a test gives a seeded ``random.Random`` and knows every pause.
"""

from __future__ import annotations

import random

FIRST = 0.2         # seconds: the first ceiling
CAP = 10.0          # seconds: the ceiling never grows past it (a table's Super 6 waits for the link)


class Backoff:
    def __init__(self, first: float = FIRST, cap: float = CAP, rng: random.Random | None = None):
        if not 0 < first <= cap:
            raise ValueError(f"backoff: 0 < first ({first}) <= cap ({cap}) is needed")
        self.first = first
        self.cap = cap
        self.rng = rng or random.Random()       # not a secret: spreading, not security
        self.attempt = 0

    def ceiling(self) -> float:
        """The largest pause the next draw may give."""
        return min(self.cap, self.first * 2 ** min(self.attempt, 62))

    def next(self) -> float:
        """The pause before the next attempt (seconds); each call raises the next ceiling."""
        pause = self.rng.uniform(0.0, self.ceiling())
        self.attempt += 1
        return pause

    def reset(self) -> None:
        """The link is up: the next failure starts again from ``first``."""
        self.attempt = 0
