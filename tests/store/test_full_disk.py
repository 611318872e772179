"""A full disk (controller/store/audit.py, controller/engine.py): the trail never keeps half a
line, a log call never raises because the trail's disk is full, and the table halts and says so:
the halt itself cannot fail, even when its own critical line cannot be written."""

from __future__ import annotations

import errno
import io
import json

import pytest
import structlog

from controller.app import logs
from controller.store.audit import AuditTrail, AuditWriteError, verify
from controller.store.failpoints import Failpoints
from tests.round.bench import Bench


class FullDisk:
    """The trail's writes as a full disk answers them: the first ``takes`` bytes of a write go
    to the file, then ENOSPC (while ``full``)."""

    def __init__(self, trail: AuditTrail, takes: int = 7):
        self.full, self.takes, self.refused = False, takes, 0
        self._write = trail._write_all
        trail._write_all = self         # type: ignore[method-assign]

    def __call__(self, fd: int, data: bytes) -> None:
        if not self.full:
            return self._write(fd, data)
        self.refused += 1
        import os
        os.write(fd, data[:self.takes])          # what a disk takes before it is full
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_line_the_disk_does_not_take_leaves_no_torn_line_and_is_kept_as_the_failure(tmp_path):
    trail = AuditTrail(tmp_path / "audit")
    disk = FullDisk(trail)
    trail.write({"event": "before"})
    disk.full = True
    with pytest.raises(AuditWriteError, match="No space left on device"):
        trail.write({"event": "lost"})
    assert (tmp_path / "audit" / "audit.jsonl").read_bytes().endswith(b"\n")     # cut back, whole lines
    assert trail.failure is not None and trail.failure.errno == errno.ENOSPC
    with pytest.raises(OSError, match="No space left"):
        trail.head()                    # the next journal commit is refused: the table halts on it
    disk.full = False
    trail.write({"event": "after"})     # the chain continues from the last whole line
    trail.close()
    assert verify(tmp_path / "audit") == (2, 1)


def test_a_log_call_never_raises_when_the_trail_cannot_be_written(tmp_path):
    trail = AuditTrail(tmp_path / "audit")
    disk = FullDisk(trail)
    console = io.StringIO()
    logs.configure("json", "info", stream=console, audit=trail)
    try:
        disk.full = True
        structlog.get_logger("t").critical("engine.halted", reason="disk full")
    finally:
        logs.detach_audit()
        trail.close()
    assert disk.refused == 1
    assert [json.loads(line)["event"] for line in console.getvalue().splitlines()] == ["engine.halted"]


def _bench_with_trail(tmp_path) -> tuple[Bench, AuditTrail, FullDisk]:
    trail = AuditTrail(tmp_path / "audit")
    logs.configure("json", "warning", stream=io.StringIO(), audit=trail)     # before the engine binds its loggers
    bench = Bench(tmp_path)
    bench.journal.audit_head = trail.head
    bench.devices_up()
    assert bench.state == "ready"
    return bench, trail, FullDisk(trail)


def test_the_halt_cannot_fail_when_its_own_critical_line_cannot_be_written(tmp_path):
    """The lab's full disk: the journal's commit fails, and so does the audit write inside the
    halt's own ``engine.halted`` line; the engine's thread once died there, leaving the page on
    "collecting" with halted null and the health check saying ok."""
    bench, trail, disk = _bench_with_trail(tmp_path)
    try:
        failpoints = Failpoints(f"journal.commit={bench.journal.commits + 1}:fail")
        failpoints.commits = bench.journal.commits
        bench.journal.failpoints = failpoints
        disk.full = True
        verdict = bench.act("open_betting")
        assert not verdict.ok and verdict.message.startswith("The table has stopped: the journal cannot be written")
        assert bench.snap["halted"].endswith("call a technician") and disk.refused >= 1
        assert not bench.act("open_betting").ok           # the engine still answers: halted, in words
    finally:
        logs.detach_audit()
        trail.close()


def test_a_trail_that_cannot_be_written_halts_the_table_at_once(tmp_path):
    """An anchor the disk refused: the table stops before it plays on with a trail that lacks it
    (the committed action itself stands, and is drawn)."""
    bench, trail, disk = _bench_with_trail(tmp_path)
    try:
        disk.full = True
        verdict = bench.act("open_betting")            # committed; its anchor is refused
        assert verdict.ok and bench.state == "betting"
        assert bench.snap["halted"].startswith("the audit trail cannot be written")
        assert "No space left on device" in bench.snap["halted"]
        assert bench.snap["state"] == "betting"
        later = bench.act("close_table")
        assert not later.ok and later.message.startswith("The table has stopped: the audit trail")
    finally:
        logs.detach_audit()
        trail.close()


def test_an_error_outside_any_handler_halts_the_engine_instead_of_ending_its_thread(tmp_path):
    import threading
    bench = Bench(tmp_path)
    bench.devices_up()
    bench.engine._trail.after = lambda *args: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left"))
    thread = threading.Thread(target=bench.engine.run, daemon=True)
    thread.start()
    verdict = bench.engine.act("open_betting", timeout=5)
    assert thread.is_alive() and bench.engine.snapshot["halted"] is not None
    assert "internal error (OSError" in bench.engine.snapshot["halted"]
    assert not verdict.ok
    bench.engine.stop()
