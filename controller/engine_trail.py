"""What the engine tells the audit trail after each event: the anchor of what it committed.

Owns the ``journal.anchor`` line (controller/store/anchors.py says what it vouches for and how
the start-up check and ``verify`` read it) and the ``dealer.action`` lines of actions the anchor
does not account for. The anchor goes straight to the trail's writer (``AuditTrail.write``) with
the fields structlog's chain gave it (``level``, ``timestamp``: the same line, the same chain),
not through the logging chain: it is the trail's busiest line (about 17 a round) and the console
never shows it unless it shows debug, so rendering, filtering and a new logger per line were
spent on a line nobody else reads. A console at debug still gets it, as before. Without a trail
writer (the round's tests) the line goes through structlog as it did.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import structlog

from controller.engine_events import DealerAction, Verdict, cause
from controller.round import machine as procedure
from controller.store.anchors import ANCHOR, ANCHOR_DIGITS

TrailWrite = Callable[[Mapping[str, Any]], None]


class EngineTrail:
    def __init__(self, journal: Any, log: Any, write: TrailWrite | None = None, *,
                 console_debug: Callable[[], bool] = lambda: False, stamp: Callable[[], str] | None = None) -> None:
        """``write``: the trail's own writer (raises OSError on a line its disk does not take, which
        the trail keeps: the engine halts on ``journal.trail_trouble()``); ``console_debug``: whether
        the console shows debug (then the anchor is rendered there too); ``stamp``: the line's
        ``timestamp`` where the table's time is not the system's (the simulation's virtual clock,
        the same form: ISO 8601 UTC ending in Z), structlog's TimeStamper otherwise."""
        self.journal = journal
        self.log = log                          # the engine's logger, bound once
        self._write = write
        self._console_debug = console_debug
        self._stamp = structlog.processors.TimeStamper(fmt="iso", utc=True)     # as logs.configure's
        self._now = stamp
        self._anchored = journal.chain_head     # the last fact the audit trail was told of

    def after(self, event: Any, verdict: Verdict | None, table: Any) -> None:
        """The trail's lines for a handled event: its anchor when it committed facts (the chain's new
        head, what caused it and which facts it wrote; the facts themselves are in the journal,
        ``table-controller recall``); an action that committed nothing, was refused or was a
        supervisor's also gets a ``dealer.action`` line of its own."""
        head = self.journal.chain_head
        committed = head != self._anchored
        if isinstance(event, DealerAction) and (not committed or event.action in procedure.SUPERVISOR_ACTIONS
                                                or not (verdict and verdict.ok)):
            self.action(event, verdict, table)
        if not committed:
            return
        self._anchored = head
        rnd = table.round
        fields = {"chain": head[0], "digest": head[1][:ANCHOR_DIGITS], "cause": cause(event),
                  "facts": self.journal.committed_kinds, "state": table.state, "round": rnd.id if rnd else None}
        if self._write is None or self._console_debug():
            structlog.get_logger("engine").info(ANCHOR, **fields)       # the logging chain (and the trail in it)
            return
        entry: dict[str, Any] = {**fields, "event": ANCHOR, "level": "info"}
        if self._now is None:
            stamped = self._stamp(None, "info", entry)
        else:
            entry["timestamp"] = self._now()
            stamped = entry
        try:
            self._write(stamped)
        except OSError:                 # kept by the trail: the engine halts on it after this event
            pass

    def action(self, event: DealerAction, verdict: Verdict | None, table: Any) -> None:
        ok = verdict is not None and verdict.ok
        self.log.info("dealer.action", action=event.action, role=event.role, by=event.by, ok=ok,
                      refused=(verdict.message if verdict else "not handled") if not ok else None,
                      state=table.state, round=table.round.id if table.round else None,
                      position=event.args.get("position"), reason=event.args.get("reason"),
                      privileged=event.action in procedure.SUPERVISOR_ACTIONS)
