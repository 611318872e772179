"""``table-controller backup``: taken from a table that is playing (another connection writing the
journal all along), checked, restored into an empty folder, verified, and run on again."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from tests.support import ROOT


def _cli(*args: str, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True,
                          input=stdin, timeout=timeout, cwd=ROOT)


def _head(journal: Path) -> int:
    if not journal.exists():
        return 0
    db = sqlite3.connect(f"{journal.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return db.execute("SELECT MAX(c) FROM (SELECT MAX(chain) AS c FROM records UNION ALL "
                          "SELECT MAX(chain) FROM table_events)").fetchone()[0] or 0
    except sqlite3.OperationalError:            # not created yet
        return 0
    finally:
        db.close()


def _wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.1)


def test_a_backup_taken_while_the_table_plays_restores_and_verifies(tmp_path):
    data, dest, restored = tmp_path / "data", tmp_path / "backups", tmp_path / "restored"
    assert _cli("pin", "set", "supervisor", "Ana", "--data-dir", str(data), stdin="4711\n").returncode == 0
    table = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--autoplay", "--rounds", "400",
                              "--data-dir", str(data), "--port", "0", "--log-format", "json"], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        _wait_for(lambda: _head(data / "journal.sqlite") > 150, 60, "rounds played")
        before = _head(data / "journal.sqlite")
        out = _cli("backup", str(dest), "--data-dir", str(data), "--json")
        assert out.returncode == 0, out.stderr
        written = json.loads(out.stdout)
        # the table went on committing while the copy was made and checked: the copy is one snapshot
        _wait_for(lambda: _head(data / "journal.sqlite") > written["journal_last_fact"] + 20, 60,
                  "commits after the backup")
        assert written["journal_last_fact"] >= before
        table.send_signal(signal.SIGTERM)
        assert table.wait(60) == 0
    finally:
        if table.poll() is None:
            table.kill()
            table.wait()
    folder = Path(written["path"])
    assert folder.parent == dest and folder.name.startswith("SIM-1-")
    assert not list(dest.glob(".*partial"))
    assert {"journal.sqlite", "pins.json", "audit/audit.jsonl"} <= set(written["files"])
    assert not (folder / "journal.key").exists() and written["key_included"] is False
    assert written["rounds"] >= 1
    assert json.loads((folder / "BACKUP.json").read_text())["files"] == written["files"]
    assert (folder / "pins.json").stat().st_mode & 0o777 == 0o600

    # the restore, as docs/deploy.md gives it: the backup's files into an empty data folder, the key
    # from where it is kept apart
    restored.mkdir()
    shutil.copy2(folder / "journal.sqlite", restored / "journal.sqlite")
    shutil.copy2(folder / "pins.json", restored / "pins.json")
    shutil.copytree(folder / "audit", restored / "audit")
    shutil.copy2(data / "journal.key", restored / "journal.key")
    check = _cli("verify", "--data-dir", str(restored))
    assert check.returncode == 0, check.stderr
    assert check.stdout.splitlines()[-1] == "verified"
    assert f"through fact {written['journal_last_fact']}" in check.stdout
    pins = _cli("pin", "list", "--data-dir", str(restored))
    assert pins.returncode == 0 and "Ana" in pins.stdout
    again = _cli("run", "--autoplay", "--rounds", "2", "--data-dir", str(restored), "--port", "0")
    assert again.returncode == 0, again.stderr                     # the table starts on the restored records
    summary = json.loads(again.stdout.splitlines()[-1])
    # the round the backup caught in play is taken up again (recovery), then a new one is played
    assert summary["rounds_played"] + summary["rounds_voided"] >= 1 and summary["rounds_open"] == 0, summary


def test_the_key_only_when_asked_and_older_backups_pruned(tmp_path):
    data, dest = tmp_path / "data", tmp_path / "backups"
    assert _cli("run", "--autoplay", "--rounds", "2", "--data-dir", str(data), "--port", "0").returncode == 0
    for stamp in ("20200101T000000Z", "20210101T000000Z"):        # two older backups of this table
        old = dest / f"SIM-1-{stamp}"
        old.mkdir(parents=True)
        (old / "BACKUP.json").write_text("{}")
    other = dest / "TCP-07-20200101T000000Z"                       # another table's is not touched
    other.mkdir()
    (other / "BACKUP.json").write_text("{}")
    out = _cli("backup", str(dest), "--data-dir", str(data), "--include-key", "--keep", "2")
    assert out.returncode == 0, out.stderr
    assert "key" in out.stdout and "copied" in out.stdout
    assert "removed (older than the 2 kept)" in out.stdout and "SIM-1-20200101T000000Z" in out.stdout
    kept = sorted(p.name for p in dest.iterdir())
    assert kept[0] == "SIM-1-20210101T000000Z" and kept[-1] == "TCP-07-20200101T000000Z" and len(kept) == 3
    new = dest / kept[1]
    assert (new / "journal.key").read_bytes() == (data / "journal.key").read_bytes()
    assert (new / "journal.key").stat().st_mode & 0o777 == 0o600
    assert _cli("verify", "--data-dir", str(new)).returncode == 0          # the copy carries its own key


def test_a_journal_that_does_not_verify_leaves_no_backup(tmp_path):
    data, dest = tmp_path / "data", tmp_path / "backups"
    assert _cli("run", "--autoplay", "--rounds", "2", "--data-dir", str(data), "--port", "0").returncode == 0
    db = sqlite3.connect(data / "journal.sqlite")
    db.execute("UPDATE records SET data = replace(data, '500', '900') WHERE kind = 'wagers'")
    db.commit()
    db.close()
    out = _cli("backup", str(dest), "--data-dir", str(data))
    assert out.returncode == 3
    assert "the backup was not written" in out.stderr and "was altered" in out.stderr
    assert list(dest.iterdir()) == []
    missing = _cli("backup", str(dest), "--data-dir", str(tmp_path / "nothing"))
    assert missing.returncode == 2 and "no journal here to back up" in missing.stderr


def test_a_backup_killed_mid_copy_leaves_a_partial_the_next_backup_removes(tmp_path):
    """A ``.NAME.partial`` is a backup whose writer died (killed mid-copy); later backups, which have
    other names, once never removed it. Another table's partial, and anything else, stay."""
    data, dest = tmp_path / "data", tmp_path / "backups"
    assert _cli("run", "--autoplay", "--rounds", "1", "--data-dir", str(data), "--port", "0").returncode == 0
    killed = dest / ".SIM-1-20200101T000000Z.partial"
    (killed / "audit").mkdir(parents=True)
    (killed / "journal.sqlite").write_bytes(b"half a copy")
    others = [dest / ".TCP-07-20200101T000000Z.partial", dest / ".SIM-1-notes.partial"]
    for other in others:
        other.mkdir()
    out = _cli("backup", str(dest), "--data-dir", str(data))
    assert out.returncode == 0, out.stderr
    left = sorted(p.name for p in dest.iterdir())
    assert ".SIM-1-20200101T000000Z.partial" not in left
    assert [p.name for p in others if p.exists()] == [p.name for p in others]
    assert len([name for name in left if not name.startswith(".")]) == 1
