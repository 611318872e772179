"""What a part of the round needs to be tested alone: a clerk on a journal in memory, timers that
only record, the machine's trigger as a list of what was fired. No engine, no SQLite, no thread."""

from __future__ import annotations

import itertools
from typing import Any

import structlog

from controller.app.config import TableConfig, parse_config
from controller.round.clerk import Clerk, Holds
from controller.round.facts import Round
from controller.store.journal import Record
from tests.support.rig import config_text


class MemoryJournal:
    """The two writes a clerk makes, kept in lists: round records and table events."""

    def __init__(self) -> None:
        self.written: list[Record] = []        # round records, in order
        self.table_events: list[tuple[str, dict[str, Any]]] = []
        self._seq = itertools.count(1)
        self._clock = itertools.count(1)

    def append(self, round_id: int, kind: str, data: dict[str, Any]) -> Record:
        record = Record(next(self._seq), round_id, f"2026-01-01T00:00:{next(self._clock):02d}", kind, data)
        self.written.append(record)
        return record

    def table_event(self, kind: str, data: dict[str, Any]) -> str:
        self.table_events.append((kind, data))
        return f"2026-01-01T00:00:{next(self._clock):02d}"

    def last_round(self) -> tuple[int, str] | None:
        """The last round written, open until its ``complete`` or ``void`` record."""
        if not self.written:
            return None
        last = self.written[-1].round_id
        ended = any(r.round_id == last and r.kind in ("complete", "void") for r in self.written)
        return last, "complete" if ended else "open"

    def records(self, round_id: int) -> list[Record]:
        return [r for r in self.written if r.round_id == round_id]

    def kinds(self) -> list[str]:
        return [r.kind for r in self.written]


class Desk:
    """A clerk and its holds on a memory journal, with the timers and triggers it was given."""

    def __init__(self, state: str = "ready", round_id: int | None = None) -> None:
        self.journal = MemoryJournal()
        self.timers: dict[str, float] = {}
        self.fired: list[tuple[str, dict[str, Any]]] = []
        self.clerk = Clerk(self.journal, structlog.get_logger("test"),  # type: ignore[arg-type]
                           schedule=self.timers.__setitem__, cancel=lambda name: self.timers.pop(name, None))
        self.clerk.fire = self._fire
        self.clerk.state = state
        if round_id is not None:
            self.clerk.round = Round(round_id)
        self.holds = Holds(self.clerk)

    def _fire(self, trigger: str, **kwargs: Any) -> bool:
        self.fired.append((trigger, kwargs))
        return True

    def alerts(self, kind: str | None = None) -> list[str]:
        return [a["message"] for a in self.clerk.standing_alerts() if kind is None or a["kind"] == kind]

    def commands(self) -> list[Any]:
        return self.clerk.take_commands()


def table_config(preset: str = "sheet-004", **settings: Any) -> TableConfig:
    return parse_config(config_text(preset, **settings), "parts.toml")
