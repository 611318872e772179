"""A whole table on a full disk (controller/app/run.py, controller/store/audit.py): it halts and
says why, stops without a torn audit line or a traceback, and a start on a disk still full is
refused in words. The disk is made full where the trail writes (its one write call) and, for
the journal, by the failpoint that fails a commit as SQLite does on a full disk."""

from __future__ import annotations

import errno
import sqlite3

import pytest

from controller.app.run import AUDIT_DIR
from controller.cli import main
from controller.store.audit import AuditTrail, verify
from tests.support.rig import config_text, table


def _full(fd: int, data: bytes) -> None:
    import os
    os.write(fd, data[:9])                      # what the disk took before it was full
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_halts_the_table_and_the_stop_leaves_whole_lines(tmp_path, monkeypatch, capsys):
    from controller.store.failpoints import Failpoints
    with table(tmp_path, page=False) as rig:
        rig.state("ready")
        journal = rig.journal
        failpoints = Failpoints(f"journal.commit={journal.commits + 1}:fail")
        failpoints.commits = journal.commits
        journal.failpoints = failpoints
        monkeypatch.setattr(rig.run.audit, "_write_all", _full)
        verdict = rig.engine.act("open_betting")
        # the journal's commit fails, or, when a device's event logged a line first (the rig's devices
        # run on their own threads), the trail's write did: a full disk either way, and said so
        assert not verdict.ok and verdict.message.startswith((
            "The table has stopped: the journal cannot be written",
            "The table has stopped: the audit trail cannot be written ([Errno 28] No space left on device)")), \
            verdict.message
        assert rig.snap["halted"] and rig.engine._thread.is_alive()
    # stopped (by the fixture) on the disk still full: nothing raised, every line whole
    assert "Traceback" not in capsys.readouterr().err
    trail = tmp_path / "data" / AUDIT_DIR
    assert (trail / "audit.jsonl").read_bytes().endswith(b"\n")
    lines, _ = verify(trail)
    assert lines > 0


def test_a_start_on_a_disk_still_full_is_refused_in_words(tmp_path, monkeypatch, capsys):
    config = tmp_path / "table.toml"
    config.write_text(config_text(), encoding="utf-8")
    data = tmp_path / "data"
    with table(tmp_path, data_dir=data) as rig:       # a table that played, then stopped
        rig.state("ready")
    capsys.readouterr()
    monkeypatch.setattr(AuditTrail, "_write_all", staticmethod(_full))
    status = main(["run", "--config", str(config), "--simulate", "--data-dir", str(data), "--port", "0"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert "the audit trail cannot be written ([Errno 28] No space left on device); nothing was started" in err
    assert "Traceback" not in err
    monkeypatch.undo()
    assert verify(data / AUDIT_DIR)[0] > 0            # the refused start left the trail whole


@pytest.mark.parametrize("where", ["header", "records"])
def test_a_damaged_journal_file_is_refused_in_words_at_the_start(tmp_path, capsys, where):
    config = tmp_path / "table.toml"
    config.write_text(config_text(), encoding="utf-8")
    data = tmp_path / "data"
    with table(tmp_path, data_dir=data) as rig:
        rig.state("ready")
    path = data / "journal.sqlite"
    # the records' own page, not "the middle of the file": that can be a page's unused space, whose
    # damage harms nothing (one more index moved it there, and the table rightly started)
    db = sqlite3.connect(path)
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'records'").fetchone()[0]
    page = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    raw = bytearray(path.read_bytes())
    at = 100 if where == "header" else (root - 1) * page
    raw[at:at + 512] = b"\xa5" * 512
    path.write_bytes(bytes(raw))
    capsys.readouterr()
    status = main(["run", "--config", str(config), "--simulate", "--data-dir", str(data), "--port", "0"])
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err
    assert err.startswith(f"table-controller: {path}:") and ("damaged" in err or "malformed" in err
                                                             or "not a database" in err), err
