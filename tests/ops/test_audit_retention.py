"""The audit trail's rotated files are compressed and kept by policy (count, age), and the chain
still verifies across what was kept, while a beginning removed by hand is still refused."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

import pytest

from controller.store.anchors import last_anchor
from controller.store.audit import AuditError, AuditTrail, Retention, files_in_order, verify
from tests.support import ROOT


def _write(trail: AuditTrail, first: int, count: int) -> None:
    for i in range(first, first + count):
        trail.write({"event": "journal.anchor", "chain": i, "digest": f"{i:064x}", "pad": "x" * 40})


def test_rotated_files_are_compressed_and_the_chain_runs_through_them(tmp_path):
    trail = AuditTrail(tmp_path, retention=Retention(max_bytes=2000))
    _write(trail, 1, 100)
    trail.close()
    files = files_in_order(tmp_path)
    assert [p.name for p in files[-3:]] == ["audit.jsonl.2.gz", "audit.jsonl.1.gz", "audit.jsonl"]
    assert all(p.name.endswith(".gz") for p in files[:-1]) and len(files) > 5
    assert not list(tmp_path.glob("*.tmp")) and not (tmp_path / "audit.jsonl.1").exists()
    first = gzip.decompress(files[0].read_bytes()).decode().splitlines()[0]
    assert json.loads(first)["chain"] == 1                        # the oldest is the beginning
    assert verify(tmp_path) == (100, len(files))
    # the anchors are found in a compressed file too (the current one holds none now)
    in_current = len((tmp_path / "audit.jsonl").read_text().splitlines())
    (tmp_path / "audit.jsonl").write_text("")
    trail = AuditTrail(tmp_path, retention=Retention(max_bytes=2000))   # restarts on the compressed chain
    trail.write({"event": "run.started"})
    trail.close()
    assert last_anchor(tmp_path)[0] == 100 - in_current
    assert verify(tmp_path)[0] == 100 - in_current + 1


def test_kept_by_count_and_the_removal_is_on_the_chain(tmp_path):
    trail = AuditTrail(tmp_path, retention=Retention(max_bytes=2000, keep_files=3))
    _write(trail, 1, 100)
    trail.close()
    files = files_in_order(tmp_path)
    assert [p.name for p in files] == ["audit.jsonl.3.gz", "audit.jsonl.2.gz", "audit.jsonl.1.gz", "audit.jsonl"]
    lines, count = verify(tmp_path)
    assert count == 4 and lines < 100
    entries = [json.loads(line) for p in files for line in
               (gzip.decompress(p.read_bytes()).decode() if p.suffix == ".gz" else p.read_text()).splitlines()]
    removals = [e for e in entries if e["event"] == "audit.retention"]
    # compression and retention run on their own thread: one pass may find more than one file to remove
    assert removals and all(name.startswith("audit.jsonl.") and int(name.split(".")[2]) > 3
                            for e in removals for name in e["removed"])
    assert removals[-1]["keep_files"] == 3

    # removing the oldest kept file by hand is not the policy: refused
    files[0].unlink()
    with pytest.raises(AuditError, match="no audit.retention entry accounts for the files before it"):
        verify(tmp_path)


def test_kept_by_age(tmp_path):
    now = [1_000_000_000.0]
    trail = AuditTrail(tmp_path, retention=Retention(max_bytes=2000, keep_days=2), clock=lambda: now[0])
    _write(trail, 1, 30)
    trail.close()               # its compressions finished: a file read here is not renamed under the test
    rotated = files_in_order(tmp_path)[:-1]
    assert len(rotated) >= 2
    for path in rotated:                                   # written three days before the clock's now
        os.utime(path, (now[0] - 3 * 86400, now[0] - 3 * 86400))
    trail = AuditTrail(tmp_path, retention=Retention(max_bytes=2000, keep_days=2), clock=lambda: now[0])
    _write(trail, 31, 30)
    trail.close()
    kept = files_in_order(tmp_path)
    assert all(os.stat(p).st_mtime > now[0] - 86400 for p in kept)
    assert verify(tmp_path)[1] == len(kept)


def test_a_rotation_cut_short_by_a_crash_is_finished_at_start(tmp_path):
    trail = AuditTrail(tmp_path, retention=Retention(max_bytes=2000))
    _write(trail, 1, 40)
    trail.close()
    one = tmp_path / "audit.jsonl.1.gz"
    plain = gzip.decompress(one.read_bytes())
    (tmp_path / "audit.jsonl.1").write_bytes(plain)        # crashed after the .gz, before removing the plain
    two = tmp_path / "audit.jsonl.2.gz"
    (tmp_path / "audit.jsonl.2").write_bytes(gzip.decompress(two.read_bytes()))
    two.unlink()                                            # crashed before compressing
    AuditTrail(tmp_path).close()
    names = [p.name for p in files_in_order(tmp_path)]
    assert "audit.jsonl.1" not in names and "audit.jsonl.2" not in names and "audit.jsonl.2.gz" in names
    assert verify(tmp_path)[0] == 40


def test_the_policy_is_configured_and_checked(tmp_path):
    example = (ROOT / "deploy/table.example.toml").read_text()
    path = tmp_path / "t.toml"
    path.write_text(example.replace("audit_keep_files = 0", "audit_keep_files = -1"))
    out = subprocess.run([sys.executable, "-m", "controller.cli", "config", "check", str(path)],
                         capture_output=True, text=True, timeout=60)
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "audit_keep_files" in t)
    assert out.returncode == 2
    assert f"line {line}: key 'log.audit_keep_files': must be a whole number from 0 to 100000, not -1" in out.stderr
    from controller.app.config import load_config
    path.write_text(example.replace("audit_keep_days = 0", "audit_keep_days = 400"))
    retention = load_config(path).audit_retention
    assert retention == Retention(max_bytes=10_000_000, keep_files=0, keep_days=400)


def test_rotations_faster_than_compression_keep_every_line_in_order(tmp_path):
    """A rotation every few lines: the compressing threads fall behind and rotated files shift
    names under them; each file is still compressed from its own content."""
    trail = AuditTrail(tmp_path, retention=Retention(max_bytes=400))
    _write(trail, 1, 300)
    trail.close()
    files = files_in_order(tmp_path)
    assert len(files) > 50 and all(p.suffix == ".gz" for p in files[:-1])
    assert verify(tmp_path) == (300, len(files))
