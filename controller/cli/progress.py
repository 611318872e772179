"""Progress of a long command, for a person watching a terminal; nothing for a tool reading the output.

Owns the one progress line of ``run --autoplay --rounds N``, ``verify`` and ``report``:
written to standard error, only when standard error is a terminal, redrawn in place at
most ten times a second ("verify: 120,000 of 300,000 facts (40%), 2.1 s left"), and
cleared when the work ends, so that standard output (JSON for tools) stays clean and a
log file or a pipe never sees it. ``say`` writes the closing summary line the same way.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

REDRAW_EVERY = 0.1          # seconds: a person reads no faster, and a terminal is not flooded


class Progress:
    def __init__(self, what: str, unit: str, total: int | None = None, *, stream: TextIO | None = None,
                 clock=time.monotonic):
        self.what, self.unit, self.total = what, unit, total
        self.stream = stream if stream is not None else sys.stderr
        self.shown = self.stream.isatty()
        self.clock = clock
        self.started = clock()
        self._drawn_at = -REDRAW_EVERY
        self._width = 0

    def update(self, done: int, total: int | None = None) -> None:
        if total is not None:
            self.total = total
        if not self.shown:
            return
        now = self.clock()
        if now - self._drawn_at < REDRAW_EVERY and (self.total is None or done < self.total):
            return
        self._drawn_at = now
        self._draw(self.line(done, now - self.started))

    def line(self, done: int, elapsed: float) -> str:
        """The words of the line: done, of how many, how much longer at this pace."""
        if not self.total:
            return f"{self.what}: {done:,} {self.unit}"
        text = f"{self.what}: {done:,} of {self.total:,} {self.unit} ({100 * done // self.total}%)"
        if 0 < done < self.total and elapsed > 0.5:
            text += f", {elapsed * (self.total - done) / done:.1f} s left"
        return text

    def _draw(self, text: str) -> None:
        pad = max(self._width - len(text), 0)
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()
        self._width = len(text)

    def clear(self) -> None:
        """Take the line away (the work is over, or something else is about to be written)."""
        if self.shown and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0

    def say(self, text: str) -> None:
        """A closing line for the person at the terminal (a summary); nothing when not a terminal."""
        self.clear()
        if self.shown:
            self.stream.write(text + "\n")
            self.stream.flush()
