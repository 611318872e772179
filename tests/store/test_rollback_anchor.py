"""A journal and audit trail rolled back together to an older copy verify on their own: nothing inside
the table can tell (issue 33, item 9). The gaming day's report prints the journal's head, to be kept
outside the table; ``verify --anchor FACT:DIGEST`` then names a journal that no longer holds it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from tests.support import ROOT


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)


def _play(data, rounds: int, seed: int) -> None:
    done = _cli("run", "--autoplay", "--rounds", str(rounds), "--seed", str(seed), "--data-dir", str(data),
                "--port", "0", "--log-format", "json")
    assert done.returncode == 0, done.stderr[-2000:]


def _head(data) -> dict:
    out = _cli("report", "--json", "--data-dir", str(data))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["journal_head"]


def test_the_report_prints_the_head_and_verify_holds_the_journal_to_it(tmp_path):
    data = tmp_path / "data"
    _play(data, 2, 3)
    older = tmp_path / "older"
    shutil.copytree(data, older)                                      # a copy kept (a backup, a disk image)
    first = _head(data)
    assert first["fact"] > 0 and len(first["digest"]) == 64
    text = _cli("report", "--data-dir", str(data)).stdout
    assert f"verify --anchor {first['fact']}:{first['digest']}" in text
    _play(data, 2, 4)
    later = _head(data)
    assert later["fact"] > first["fact"]
    anchor = f"{later['fact']}:{later['digest']}"
    ok = _cli("verify", "--data-dir", str(data), "--anchor", anchor, "--anchor", f"{first['fact']}:{first['digest']}")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.count("anchor kept outside: the journal holds fact") == 2

    shutil.rmtree(data)                                               # rolled back: journal, key and trail
    shutil.copytree(older, data)
    assert _cli("verify", "--data-dir", str(data)).returncode == 0    # nothing inside can tell
    back = _cli("verify", "--data-dir", str(data), "--anchor", anchor)
    assert back.returncode == 3
    assert f"names fact {later['fact']}, but the journal ends at fact {first['fact']}" in back.stderr
    assert "rolled back to an older copy" in back.stderr

    _play(data, 3, 9)                                                 # and then played on past the anchor
    assert _head(data)["fact"] > later["fact"]
    replaced = _cli("verify", "--data-dir", str(data), "--anchor", anchor)
    assert replaced.returncode == 3 and "the journal was replaced" in replaced.stderr


def test_an_anchor_that_is_not_one_is_refused_in_words(tmp_path):
    data = tmp_path / "data"
    _play(data, 1, 3)
    bad = _cli("verify", "--data-dir", str(data), "--anchor", "12:nothex")
    assert bad.returncode == 2 and "give FACT:DIGEST" in bad.stderr
