"""Long commands show progress on a terminal and nothing else anywhere else: standard output
stays the tools' JSON, and logs stay quiet unless asked."""

import io
import json
import os
import re
import subprocess
import sys

from controller.cli.progress import Progress
from controller.rules.gaming import GamingClock
from controller.store.journal import Journal


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_line_is_redrawn_in_place_at_most_ten_times_a_second_and_cleared():
    now = [0.0]
    term = Terminal()
    p = Progress("verify", "facts", 4000, stream=term, clock=lambda: now[0])
    p.update(1000)
    now[0] = 0.05
    p.update(2000)                                  # too soon: not drawn
    now[0] = 1.0
    p.update(3000)
    p.say("verified")
    text = term.getvalue()
    assert "\rverify: 1,000 of 4,000 facts (25%)" in text and "2,000" not in text
    assert "verify: 3,000 of 4,000 facts (75%), 0.3 s left" in text
    assert text.endswith("\rverified\n")          # the progress line blanked, then the summary


def test_nothing_is_written_when_not_a_terminal():
    out = io.StringIO()
    p = Progress("verify", "facts", 10, stream=out)
    p.update(5)
    p.say("done")
    assert out.getvalue() == ""


def test_run_on_a_terminal_shows_progress_and_a_summary_and_keeps_stdout_json(tmp_path):
    master, slave = os.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--autoplay", "--rounds", "4",
                             "--seed", "3", "--data-dir", str(tmp_path / "data"), "--port", "0",
                             "--log-format", "json"], stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:                 # the child closed the terminal's other end
            break
        if not chunk:
            break
        seen += chunk
    out, _ = proc.communicate(timeout=120)
    os.close(master)
    assert proc.returncode == 0
    terminal = seen.decode()
    assert "run: " in terminal and "of 4 rounds" in terminal
    assert "4 rounds played, 0 void: $" in terminal
    assert '"level": "info"' not in terminal            # quiet unless asked: warnings and above only
    lines = out.splitlines()
    assert lines[0].startswith("Dealer page: ") and json.loads(lines[-1])["rounds_played"] == 4


def test_log_level_is_obeyed_and_no_progress_goes_to_a_pipe(tmp_path):
    out = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--autoplay", "--rounds", "2",
                          "--data-dir", str(tmp_path / "data"), "--port", "0", "--log-format", "json",
                          "--log-level", "error"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0
    assert "rounds played" not in out.stderr and "\r" not in out.stderr
    # no --seed: the seed is taken from the clock and said, so a restart does not replay the same rounds
    said = re.search(r"^Simulated shoe and players: seed (\d+) \(--seed \1 plays the same rounds again\)$",
                     out.stdout, re.M)
    assert said, out.stdout
    assert all(json.loads(line)["level"] in ("error", "critical") for line in out.stderr.splitlines())
    journal = Journal.read_only(tmp_path / "data" / "journal.sqlite", keyed=False)
    opened = journal.db.execute("SELECT opened_at FROM rounds ORDER BY id LIMIT 1").fetchone()[0]
    journal.close()
    day = GamingClock().day_of(opened).isoformat()          # the default gaming day: UTC, from 06:00
    report = subprocess.run([sys.executable, "-m", "controller.cli", "report", "--json", "--day", day,
                             "--data-dir", str(tmp_path / "data")], capture_output=True, text=True, timeout=120)
    assert report.returncode == 0 and report.stderr == ""
    assert json.loads(report.stdout)["rounds"]["complete"] >= 1


def test_a_table_without_a_dealer_pin_says_how_to_set_one_where_it_is_started(tmp_path):
    """Betting waits for a dealer to sign in; with no dealer PIN set nobody could, and the person who
    started the table is told the command (a scripted dealer, above, needs none and is not)."""
    data = tmp_path / "data"
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--data-dir", str(data), "--port", "0",
                             "--log-level", "error"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        first, second = proc.stdout.readline(), proc.stdout.readline()
    finally:
        proc.terminate()
        proc.communicate(timeout=60)
    assert first.startswith("Dealer page: ")
    assert second.strip() == ("No dealer PIN is set on this table, so no dealer can sign in and betting cannot "
                              f"open. A supervisor sets one: table-controller pin set dealer NAME --data-dir {data}")
