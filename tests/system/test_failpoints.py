"""The real process killed by its own failpoint right after a chosen commit, then restarted.

``TABLE_FAILPOINTS`` (controller/store/failpoints.py) SIGKILLs ``table-controller run`` exactly
after the commit that holds a chosen record, or after the N-th commit; a second run on the same
data folder must finish the round it was in with every position paid once. Also: a second
controller on the same folder is refused, naming the PID that holds it; a folder that cannot be
used is refused in words.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from controller.store.journal import Journal


def _run(data, seed, rounds, failpoints=None, wait=True):
    env = dict(os.environ)
    env.pop("TABLE_FAILPOINTS", None)
    if failpoints:
        env["TABLE_FAILPOINTS"] = failpoints
    cmd = [sys.executable, "-m", "controller.cli", "run", "--autoplay", "--rounds", str(rounds), "--seed",
           str(seed), "--data-dir", str(data), "--log-format", "json", "--port", "0"]
    log = open(data.parent / f"run-{seed}-{failpoints or 'clean'}.log", "w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    return proc.wait(90) if wait else proc


def _check(data):
    journal = Journal(data / "journal.sqlite")
    try:
        assert journal.verify_chain() > 0
        statuses = dict(journal.db.execute("SELECT id, status FROM rounds").fetchall())
        assert statuses and set(statuses.values()) <= {"complete", "void"}, statuses
        for round_id, status in statuses.items():
            records = journal.records(round_id)
            settlements = [r for r in records if r.kind == "settlement"]
            paid = [r.data["position"] for r in records if r.kind == "paid"]
            assert len(paid) == len(set(paid)), f"round {round_id} paid a position twice"
            if status == "void":
                assert not paid
                continue
            assert len(settlements) == 1, f"round {round_id}: {len(settlements)} settlements"
            assert sorted(paid) == sorted(s["seat"] for s in settlements[0].data["seats"])
        return statuses
    finally:
        journal.close()


@pytest.mark.parametrize("failpoint", ["journal.record=settlement:kill", "journal.record=paid:kill",
                                       "journal.record=wagers:kill", "journal.commit=9:kill"])
def test_a_kill_right_after_a_commit_recovers_and_pays_each_position_once(tmp_path, failpoint):
    data = tmp_path / "data"
    data.mkdir()
    assert _run(data, 5, rounds=3, failpoints=failpoint) == -signal.SIGKILL
    before = dict(Journal(data / "journal.sqlite").db.execute("SELECT id, status FROM rounds").fetchall())
    assert "open" in before.values()                # killed inside a round
    assert _run(data, 6, rounds=2) == 0
    after = _check(data)
    assert set(before) <= set(after)                # the cut-off round is finished, not replaced


def test_a_second_controller_on_the_same_folder_is_refused_naming_the_first(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    first = _run(data, 1, rounds=1000, wait=False)
    try:
        lock = data / "controller.lock"
        deadline = time.monotonic() + 60            # until the first holds the lock (a deadline: a loaded
        while not (lock.exists() and lock.read_text().strip()):     # machine starts a Python slowly)
            assert time.monotonic() < deadline and first.poll() is None, "the first controller never took the lock"
            time.sleep(0.05)
        second = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--data-dir", str(data),
                                 "--port", "0"], capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        assert f"is in use by another controller (PID {first.pid})" in second.stderr
        assert first.poll() is None                 # the first one was not disturbed
    finally:
        first.send_signal(signal.SIGTERM)
        assert first.wait(30) == 0
    summary = json.loads((tmp_path / "run-1-clean.log").read_text().strip().splitlines()[-1])
    assert summary["rounds_open"] in (0, 1)


def test_a_data_folder_that_cannot_be_used_is_refused_in_words(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--data-dir", str(blocker / "data"),
                             "--port", "0"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip() == f"table-controller: {blocker / 'data'}: the data folder cannot be used: " \
                                    "Not a directory"


def test_a_journal_that_went_back_in_time_is_refused_at_start(tmp_path):
    """Commits lost after the fact (a deleted write-ahead log, an older copy restored): the audit
    trail saw them committed, so the table refuses to start on the shorter journal."""
    import sqlite3
    data = tmp_path / "data"
    data.mkdir()
    assert _run(data, 3, rounds=1) == 0
    db = sqlite3.connect(data / "journal.sqlite")
    last = max(db.execute(f"SELECT MAX(chain) FROM {t}").fetchone()[0] for t in ("records", "table_events"))
    for table_name in ("records", "table_events"):     # the last three facts of the chain, whatever they are
        db.execute(f"DELETE FROM {table_name} WHERE chain > ?", (last - 3,))
    db.commit()
    db.close()
    result = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--data-dir", str(data),
                             "--port", "0"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert f"the journal ends at fact {last - 3}" in result.stderr
    assert f"saw fact {last} committed: commits were lost" in result.stderr


@pytest.mark.parametrize("damage", ["cut", "deleted", "last line edited"])
def test_an_audit_trail_cut_deleted_or_edited_at_its_end_is_refused_at_start(tmp_path, damage):
    data = tmp_path / "data"
    data.mkdir()
    assert _run(data, 4, rounds=1) == 0
    audit = data / "audit" / "audit.jsonl"
    lines = audit.read_text().splitlines()
    journal = Journal(data / "journal.sqlite")
    seen = journal.meta("audit_head")
    journal.close()
    from controller.store.audit import line_hash
    index = next(i for i, text in enumerate(lines) if line_hash(text) == seen)     # the line the last commit saw
    if damage == "cut":                         # half the trail gone, and with it at least the line the journal saw
        # (the trail's fsync lags its lines by 20 ms: on a fast disk a whole round's commits saw a line in
        # the first half, a cut at the half kept it, and the start rightly went on and ran for ever)
        audit.write_text("\n".join(lines[:min(len(lines) // 2, index)]) + "\n")
    elif damage == "deleted":
        audit.unlink()
    else:                                       # every line after the last commit's, and that one, edited
        lines[index] = lines[index].replace('"level":"info"', '"level":"debug"')
        audit.write_text("\n".join(lines[:index + 1]) + "\n")
    result = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--data-dir", str(data),
                             "--port", "0"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stderr
    # the table had stopped cleanly: the journal keeps the trail's very last line (under the key)
    assert "the audit trail does not end with the line the table wrote when it last stopped" in result.stderr
    verify = subprocess.run([sys.executable, "-m", "controller.cli", "verify", "--data-dir", str(data)],
                            capture_output=True, text=True, timeout=60)
    assert verify.returncode == 3
