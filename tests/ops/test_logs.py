"""The console and the audit trail (controller/app/logs.py): the trail keeps every entry at info
and above; the trail's own anchors (one per committed event) stay out of the console, which a
technician reads in journalctl, unless the console shows debug."""

from __future__ import annotations

import io
import json

import pytest
import structlog

from controller.app import logs
from controller.store.anchors import ANCHOR
from controller.store.audit import AuditTrail


@pytest.mark.parametrize("level, anchors_on_console", [("info", False), ("debug", True)])
def test_anchors_go_to_the_trail_and_to_the_console_only_at_debug(tmp_path, level, anchors_on_console):
    console = io.StringIO()
    trail = AuditTrail(tmp_path / "audit")
    try:
        logs.configure("json", level, stream=console, audit=trail)
        log = structlog.get_logger("t")
        log.info(ANCHOR, chain=7, digest="ab" * 8)
        log.info("table.state", state="betting")
        log.warning("device.fault", device="shoe")
    finally:
        logs.detach_audit()
        trail.close()
    shown = [json.loads(line)["event"] for line in console.getvalue().splitlines()]
    kept = [json.loads(line)["event"] for line in (tmp_path / "audit" / "audit.jsonl").read_text().splitlines()]
    assert kept == [ANCHOR, "table.state", "device.fault"]
    assert shown == ([ANCHOR] if anchors_on_console else []) + ["table.state", "device.fault"]
