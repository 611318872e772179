"""The engine's anchor written straight to the audit trail (controller/engine_trail.py) is the line the
logging chain wrote: the same fields in the same order, on the same chain, and it still reaches the
console when the console shows debug."""

from __future__ import annotations

import io
import json
import types

import pytest

from controller.app import logs
from controller.engine_events import DealerAction, Verdict
from controller.engine_trail import EngineTrail
from controller.store.anchors import ANCHOR
from controller.store.audit import AuditTrail, verify


class FakeJournal:
    def __init__(self) -> None:
        self.chain_head = (0, "0" * 64)
        self.committed_kinds: list[str] = []

    def commit(self, chain: int, kinds: list[str]) -> None:
        self.chain_head, self.committed_kinds = (chain, f"{chain:064x}"), kinds


TABLE = types.SimpleNamespace(state="betting", round=types.SimpleNamespace(id=12))


def _lines(tmp_path, straight: bool, level: str = "info") -> tuple[list[dict], str]:
    console = io.StringIO()
    trail = AuditTrail(tmp_path / ("straight" if straight else "logged"))
    journal = FakeJournal()
    try:
        logs.configure("json", level, stream=console, audit=trail)
        engine_log = logs.structlog.get_logger("engine").bind(table="T1")
        writer = EngineTrail(journal, engine_log, trail.write if straight else None,
                             console_debug=logs.console_debug)
        writer.after("start", None, TABLE)                      # nothing committed: no line
        journal.commit(1, ["opened", "wagers"])
        writer.after(DealerAction("open_betting", {}, "dealer", None, "dealer"), Verdict(True), TABLE)
        journal.commit(2, ["alert"])
        writer.after(DealerAction("void_round", {"reason": "x"}, "supervisor", None, "Sam"), Verdict(True), TABLE)
        writer.after(DealerAction("deal", {}, "dealer", None, "dealer"), Verdict(False, "no"), TABLE)
    finally:
        logs.detach_audit()
        trail.close()
    assert verify(trail.directory) == (4, 1)                    # one chain, every line on it
    text = (trail.directory / "audit.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()], console.getvalue()


def test_the_straight_anchor_is_the_logged_one(tmp_path):
    straight, _ = _lines(tmp_path, straight=True)
    logged, _ = _lines(tmp_path, straight=False)
    assert [e["event"] for e in straight] == [ANCHOR, "dealer.action", ANCHOR, "dealer.action"]

    def same(entry: dict) -> list:
        return [(k, v) for k, v in entry.items() if k not in ("timestamp", "prev")]
    assert [same(e) for e in straight] == [same(e) for e in logged]
    first = straight[0]
    assert list(first) == ["chain", "digest", "cause", "facts", "state", "round", "event", "level", "timestamp",
                           "prev"]
    assert first["cause"] == "open_betting by dealer" and first["facts"] == ["opened", "wagers"]
    assert first["digest"] == f"{1:064x}"[:32] and first["timestamp"].endswith("Z")
    assert straight[1]["action"] == "void_round" and straight[1]["privileged"] is True   # a supervisor's
    assert straight[3]["action"] == "deal" and straight[3]["refused"] == "no"


@pytest.mark.parametrize("level, on_console", [("info", 0), ("debug", 2)])
def test_the_console_shows_anchors_only_at_debug(tmp_path, level, on_console):
    entries, console = _lines(tmp_path, straight=True, level=level)
    assert [e["event"] for e in entries].count(ANCHOR) == 2
    assert [json.loads(line)["event"] for line in console.splitlines()].count(ANCHOR) == on_console


def test_a_line_the_disk_refuses_does_not_raise(tmp_path):
    journal = FakeJournal()

    def refused(entry):
        raise OSError(28, "No space left on device")
    writer = EngineTrail(journal, logs.structlog.get_logger("engine"), refused)
    journal.commit(1, ["opened"])
    writer.after("start", None, TABLE)                          # the trail keeps the failure; the engine halts
