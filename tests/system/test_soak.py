"""The soak campaign of the whole table in its own process (`table-sim soak --on process`), short: the real
controller killed and restarted under faults, checked after. The simulation's soak: tests/sim/test_soak_sim.py."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support import ROOT

SOAK = [sys.executable, "-m", "simulators.cli", "soak", "--on", "process"]


# The default suite's sample: 4 rounds on a seed that kills the controller and injects faults in
# them (about 20 s); a round the simulated players lost track of after a restart is looked into
# after 10 s. The campaign: 25 rounds (issue 30).
@pytest.mark.parametrize("rounds, seed, stuck_after", [
    (4, 2, 10), pytest.param(25, 5, 15, marks=pytest.mark.campaign)])
def test_a_short_soak_with_kills_and_faults_loses_and_doubles_nothing(tmp_path, rounds, seed, stuck_after):
    report, summary = tmp_path / "soak.html", tmp_path / "soak.json"
    done = subprocess.run([*SOAK, "--rounds", str(rounds), "--seed",
                           str(seed), "--fault-rate", "0.3", "--kill-rate", "0.2", "--stuck-after", str(stuck_after),
                           "--work-dir", str(tmp_path / "work"),
                           "--report", str(report), "--summary", str(summary)],
                          cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    doc = json.loads(summary.read_text())
    assert doc == json.loads(done.stdout)
    assert doc["rounds_closed"] >= rounds and doc["restarts"] >= 1 and sum(doc["faults_injected"].values()) >= 1
    check = doc["check"]
    assert check["verify"]["ok"] and check["rounds_recalled"] == check["rounds_in_journal"] >= rounds
    assert check["coverage_problems"] == []
    assert check["resettlement_discrepancies"] == 0 and check["rounds_settled_again"] >= 1
    assert check["payments_doubled"] == check["payments_lost"] == check["void_rounds_that_paid"] == 0
    assert doc["recovery_s"]["max"] > 0
    page = report.read_text()
    assert page.count("<svg") == 7 and "PASS" in page and "<script" not in page
    # the latency histograms: every life's events merged, none lost on the way
    for key in ("frame_to_snapshot", "snapshot_to_page"):
        whole = doc["latency"][key]
        assert whole["n"] == sum(life[key]["n"] for life in doc["latency_by_life"]) > 0
        assert whole["max_ms"] == max(life[key]["max_ms"] for life in doc["latency_by_life"])
    assert page.count("histogram over every life") == 2


def test_lives_merge_into_one_histogram():
    from simulators.soak_report import merged
    lives = [{"t": {"n": 3, "max_ms": 2.0, "buckets": [[0.1, 2], [2.0, 1]]}},
             {"t": {"n": 100, "max_ms": 9.0, "buckets": [[0.1, 90], [1.0, 9], [9.0, 1]]}}, {}]
    assert merged(lives, "t") == {"n": 103, "p50_ms": 0.1, "p99_ms": 2.0, "max_ms": 9.0,
                                  "buckets": [[0.1, 92], [1.0, 9], [2.0, 1], [9.0, 1]]}


def test_soak_options_are_refused_in_words():
    done = subprocess.run([*SOAK, "--rounds", "0"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "'0' is not a whole number of at least 1" in done.stderr
    done = subprocess.run([*SOAK, "--kill-rate", "2"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "'2' is not a chance from 0 to 1" in done.stderr


def test_a_soak_stopped_by_a_signal_still_checks_and_reports_what_was_played(tmp_path):
    """A lab ends a long campaign early (SIGTERM, or Ctrl-C): the rounds played are checked and
    the summary and report written, saying so."""
    import signal
    import sqlite3
    import time
    summary = tmp_path / "soak.json"
    soak = subprocess.Popen([*SOAK, "--rounds", "100000", "--faults", "none",
                             "--work-dir", str(tmp_path / "work"), "--summary", str(summary)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    journal = tmp_path / "work" / "data" / "journal.sqlite"
    deadline = time.monotonic() + 120
    closed = 0
    while closed < 3 and time.monotonic() < deadline:
        time.sleep(0.2)
        if journal.exists():
            try:
                with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as db:
                    closed = db.execute("SELECT count(*) FROM rounds WHERE status = 'complete'").fetchone()[0]
            except sqlite3.Error:
                pass
    assert closed >= 3
    soak.send_signal(signal.SIGTERM)
    out, err = soak.communicate(timeout=300)
    assert soak.returncode == 0, err[-3000:]
    doc = json.loads(summary.read_text())
    assert doc["stopped_by"] == "SIGTERM" and doc["rounds_closed"] >= 3
    assert doc["check"]["rounds_recalled"] == doc["check"]["rounds_in_journal"] >= 3
    assert doc["check"]["resettlement_discrepancies"] == 0 and doc["check"]["verify"]["ok"]


def test_the_simulated_players_never_leave_the_table_empty():
    """Nobody sitting down made a round with no wagers: the scripted dealer had nothing to ask and a
    50,000-round soak waited for ever after round 32,157."""
    from controller.rules.paytable import load_preset
    from simulators.players import Players

    class Shoe:
        listeners: list = []
    class Sensors:
        listeners: list = []
    players = Players(load_preset("sheet-004"), Sensors(), Shoe(), positions=1, seed=3, sit_chance=0.05)
    assert all(players._random_bets() for _ in range(200))


def _soak_until(tmp_path, rounds: int, *extra: str):
    """A soak started in the background, returned once ``rounds`` rounds completed."""
    import sqlite3
    import time
    soak = subprocess.Popen([*SOAK, "--rounds", "100000", "--faults",
                             "none", "--seed", "3", "--work-dir", str(tmp_path / "work"), *extra],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    journal = tmp_path / "work" / "data" / "journal.sqlite"
    deadline, closed = time.monotonic() + 120, 0
    while closed < rounds and time.monotonic() < deadline:
        time.sleep(0.2)
        if journal.exists():
            try:
                with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as db:
                    closed = db.execute("SELECT count(*) FROM rounds WHERE status = 'complete'").fetchone()[0]
            except sqlite3.Error:
                pass
    assert closed >= rounds
    return soak


def test_a_soak_killed_with_its_machine_goes_on_with_resume_and_reports_every_segment(tmp_path):
    """Two long soaks lost their summaries with their process. The evidence is on disk as it is
    gathered; ``--resume`` reads it back, stops the controller the dead soak left running, and the
    summary covers both segments, every round checked."""
    import signal

    from simulators.soak_progress import Progress
    soak = _soak_until(tmp_path, 3)
    work = tmp_path / "work"
    try:
        beside = subprocess.run([*SOAK, "--work-dir", str(work),
                                 "--resume", "--seed", "3", "--faults", "none"],
                                cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert beside.returncode == 2 and f"a soak is still running there (process {soak.pid})" in beside.stderr
    finally:
        soak.send_signal(signal.SIGKILL)                # the soak dies; its controller runs on
        soak.wait()
    orphan = Progress(work).load().controller_pid
    try:
        assert orphan and _alive(orphan)
        again = subprocess.run([*SOAK, "--work-dir", str(work),
                                "--seed", "3"], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert again.returncode == 2 and "already holds a soak (soak-progress.jsonl): --resume goes on" in again.stderr
        other = subprocess.run([*SOAK, "--work-dir", str(work), "--resume",
                                "--seed", "4"], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert other.returncode == 2 and "was started with seed 3, faults none: resume it with the options it " \
            "was started with" in other.stderr
        done = subprocess.run([*SOAK, "--work-dir", str(work), "--resume",
                               "--seed", "3", "--faults", "none", "--rounds", "6", "--summary",
                               str(tmp_path / "s.json")], cwd=ROOT, capture_output=True, text=True, timeout=300)
        stopped = not _alive(orphan)
    finally:
        _end(orphan)
    assert done.returncode == 0, (done.stdout[-4000:], done.stderr[-3000:])
    assert stopped                                      # the resumed soak ended the dead soak's controller
    doc = json.loads((tmp_path / "s.json").read_text())
    assert [s["segment"] for s in doc["segments"]] == [1, 2] and doc["segments"][1]["t"] > 0
    assert doc["rounds_closed"] >= 6 and doc["elapsed_s"] > doc["segments"][1]["t"]
    check = doc["check"]
    assert check["verify"]["ok"] and check["coverage_problems"] == []
    assert check["rounds_recalled"] == check["rounds_in_journal"] >= 6
    assert check["resettlement_discrepancies"] == check["payments_doubled"] == check["payments_lost"] == 0
    times = [s["t"] for s in Progress(work).load().samples]
    assert times == sorted(times)                       # one clock over both segments


def _alive(pid: int) -> bool:
    """Running: neither gone nor a zombie waiting for init to reap it (it may go while read)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return "zombie" not in status.read().lower()
    except OSError:
        return False


def _end(pid: int | None) -> None:
    """The resumed soak stopped the orphan; if a failed assertion came first, this does."""
    import os
    import signal
    try:
        if pid and _alive(pid):
            os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def test_resume_needs_a_soak_and_a_cut_last_line_is_dropped(tmp_path):
    from simulators.soak_progress import Progress, ProgressError
    done = subprocess.run([*SOAK, "--resume", "--work-dir",
                           str(tmp_path / "empty")], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "holds no soak to resume (soak-progress.jsonl not found)" in done.stderr
    progress = Progress(tmp_path)
    progress.write("start", {"segment": 1, "t": 0.0})
    progress.write("sample", {"t": 2.0, "rounds": 1, "rss_kb": 1})
    progress.write("hold", {"t": 2.5, "round": 1})
    progress.close()
    with open(progress.path, "a") as f:
        f.write('{"kind":"sample","t":4.0,"rou')      # the process died writing it
    got = progress.load()
    assert (len(got.starts), len(got.samples), got.holds, got.elapsed) == (1, 1, 1, 2.5)   # the hold, last
    assert progress.path.read_text().endswith('"round":1}\n')          # the next segment starts whole
    inode = progress.path.stat().st_ino
    with open(progress.path, "a") as f:
        f.write('{"kind":"sample","t":5.0,"rounds":2,"rss_kb":1}')     # whole, its newline never written
    assert len(progress.load().samples) == 2
    assert progress.path.read_text().endswith('"rss_kb":1}\n') and progress.path.stat().st_ino == inode
    progress.path.write_text('{"kind":"start"}\nnot json\n{"kind":"hold"}\n')
    with pytest.raises(ProgressError, match="line 2 is not a soak fact"):
        progress.load()


def test_a_last_line_cut_inside_a_character_is_dropped_not_a_crash(tmp_path):
    """Review finding (session 11): the file was read as UTF-8 text, and a line cut inside a
    character (or a tail of garbage after a power cut) raised UnicodeDecodeError at every resume."""
    from simulators.soak_progress import Progress
    progress = Progress(tmp_path)
    progress.write("start", {"segment": 1, "t": 0.0, "note": "mesa número 1"})
    progress.close()
    whole = progress.path.read_bytes()
    with open(progress.path, "ab") as f:
        f.write('{"kind":"sample","note":"ú'.encode()[:-1])      # cut between the two bytes of "ú"
    assert len(progress.load().starts) == 1
    assert progress.path.read_bytes() == whole                     # cut back to its whole lines


def test_a_resume_whose_journal_is_gone_is_refused(tmp_path):
    """Review finding (session 11): a deleted journal was accepted, and the campaign's rounds began
    again from nothing under the old soak's name."""
    from simulators.soak import SoakOptions
    from simulators.soak_progress import Progress
    o = SoakOptions()
    progress = Progress(tmp_path)
    progress.write("start", {"segment": 1, "t": 0.0, "seed": o.seed, "preset": o.preset, "positions": o.positions,
                             "faults": o.faults, "fault_rate": o.fault_rate, "kill_rate": o.kill_rate})
    progress.write("sample", {"t": 2.0, "rounds": 40, "rss_kb": 1})
    progress.close()
    done = subprocess.run([*SOAK, "--resume", "--work-dir", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "journal.sqlite is gone, but its soak had played rounds" in done.stderr
