"""Tampering with the audit trail, and with the journal and trail together, is named (issue 33).

The trail's own chain is plain SHA-256 (anyone can recompute it), so the lab cut, edited and
re-chained it, forged a line, stripped every anchor, and cut the journal's tail with the anchors
that named it: each passed. The journal now keeps the trail's head under the table's key, bound
to its last fact, and after a clean stop the head is the trail's very last line
(controller/store/audit_head.py). ``verify``, ``recall``, ``meters`` and the start each name it;
the start also refuses every tampering of tests/store/test_tamper.py (it walks what ``verify`` walks).
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from controller.store.audit import PREV_DIGITS, line_hash
from tests.store.test_tamper import TAMPERINGS, _cli, _copy, _edit
from tests.store.test_tamper import played as played  # the module's fixture: 3 rounds, a clean stop


def _trail(data) -> list[str]:
    return (data / "audit" / "audit.jsonl").read_text(encoding="utf-8").splitlines()


def _rewrite(data, lines: list[str], since: int = 0) -> None:
    """The trail as given, its chain recomputed from line ``since`` on (what anyone can do)."""
    out = lines[:since]
    for text in lines[since:]:
        entry = json.loads(text)
        if out:
            entry["prev"] = line_hash(out[-1])[:PREV_DIGITS]
        out.append(json.dumps(entry, separators=(",", ":")))
    (data / "audit" / "audit.jsonl").write_text("".join(t + "\n" for t in out), encoding="utf-8")


def _head_says(data, lines_changed: bool = True) -> None:
    """The journal told the re-chained trail's last line is its head, as the lab did (no key needed
    before issue 33: meta audit_head was plain text)."""
    last = _trail(data)[-1]
    _edit(data, ("UPDATE meta SET value = ? WHERE key = 'audit_head'", (line_hash(last),)))


def _edited_and_rechained(data):
    lines = _trail(data)
    at = next(i for i, t in enumerate(lines) if '"dealer.action"' in t or '"table.state"' in t)
    entry = json.loads(lines[at])
    entry["note"] = "nothing happened here"
    lines[at] = json.dumps(entry, separators=(",", ":"))
    _rewrite(data, lines, at)
    _head_says(data)


def _forged_line(data):
    lines = _trail(data)
    forged = {"event": "dealer.action", "action": "void_round", "role": "supervisor", "by": "supervisor Ana",
              "ok": True, "round": 2, "level": "info", "timestamp": "2026-01-01T00:00:00Z"}
    lines.append(json.dumps(forged, separators=(",", ":")))
    _rewrite(data, lines, len(lines) - 1)


def _forged_line_and_head(data):
    _forged_line(data)
    _head_says(data)


def _anchors_stripped(data):
    _rewrite(data, [t for t in _trail(data) if '"journal.anchor"' not in t], 0)
    _head_says(data)


def _trail_cut(data):
    _rewrite(data, _trail(data)[:-25], 0)
    _head_says(data)


def _shutdown_line_edited(data):
    lines = _trail(data)
    entry = json.loads(lines[-1])
    entry["event"] = entry["event"] + ".edited"
    lines[-1] = json.dumps(entry, separators=(",", ":"))
    _rewrite(data, lines, len(lines) - 1)


def _journal_tail_cut_with_its_anchors(data):
    """The last round's facts removed, the start-up checkpoint deleted, the anchors that named them
    stripped and the trail re-chained and told to the journal: once, nothing said the round existed."""
    db = sqlite3.connect(data / "journal.sqlite")
    last_round = db.execute("SELECT MAX(id) FROM rounds").fetchone()[0]
    first = db.execute("SELECT MIN(chain) FROM records WHERE round_id = ?", (last_round,)).fetchone()[0]
    db.execute("DELETE FROM records WHERE chain >= ?", (first,))
    db.execute("DELETE FROM table_events WHERE chain >= ?", (first,))
    db.execute("DELETE FROM rounds WHERE id = ?", (last_round,))
    db.execute("DELETE FROM meta WHERE key IN ('checked_through', 'checked_digest', 'checked_mac')")
    db.commit()
    db.close()
    kept = [t for t in _trail(data) if '"journal.anchor"' not in t or json.loads(t)["chain"] < first]
    _rewrite(data, kept, 0)
    _head_says(data)


def _round_moved_to_another_day(data):
    _edit(data, ("UPDATE rounds SET opened_at = '2020-01-01T05:59:00.000+00:00' WHERE id = 2", ()))


TRAIL_TAMPERINGS = {
    "a trail line edited and the trail re-chained": (_edited_and_rechained, "not under the table's key"),
    "a line forged after the last stop": (_forged_line, "does not end with the line the table wrote"),
    "a line forged and the journal's head rewritten": (_forged_line_and_head, "not under the table's key"),
    "every anchor stripped and the trail re-chained": (_anchors_stripped, "not under the table's key"),
    "the trail's tail cut and re-chained": (_trail_cut, "not under the table's key"),
    "a shutdown line edited": (_shutdown_line_edited, "does not end with the line the table wrote"),
    "the journal's tail cut with its checkpoint and anchors": (_journal_tail_cut_with_its_anchors,
                                                               "not under the table's key"),
    "a round moved to another gaming day": (_round_moved_to_another_day, "round 2 opened at 2020-01-01T05:59:00"),
}


@pytest.mark.parametrize("what", TRAIL_TAMPERINGS)
def test_each_tampering_of_the_trail_is_named_by_verify_recall_meters_and_the_start(played, tmp_path, what):
    data = _copy(played, tmp_path)
    tamper, words = TRAIL_TAMPERINGS[what]
    tamper(data)
    result = _cli("verify", "--data-dir", str(data))
    assert result.returncode == 3 and words in result.stderr, (what, result.stdout, result.stderr)
    for command in ("recall", "meters"):
        shown = _cli(command, "--data-dir", str(data))
        assert shown.returncode == 2 and shown.stdout == "" and words in shown.stderr, (what, command, shown.stderr)
    started = _cli("run", "--autoplay", "--rounds", "1", "--data-dir", str(data), "--port", "0")
    assert started.returncode == 2 and words in started.stderr, (what, started.stdout, started.stderr)
    assert "Traceback" not in started.stderr


@pytest.mark.parametrize("what", TAMPERINGS)
def test_the_table_never_starts_on_a_journal_verify_rejects(played, tmp_path, what):
    """The start-up check walked only from its checkpoint: an edited payment, a deleted record, a
    changed status, swapped facts ... behind it, and the table played on."""
    data = _copy(played, tmp_path)
    _edit(data, *TAMPERINGS[what])
    refused = _cli("verify", "--data-dir", str(data)).stderr.strip()
    started = _cli("run", "--autoplay", "--rounds", "1", "--data-dir", str(data), "--port", "0")
    assert started.returncode == 2 and started.stdout == "", (what, started.stdout, started.stderr)
    assert started.stderr.strip().endswith(refused.removeprefix("table-controller: ")), (what, started.stderr)


def test_an_untouched_table_stops_and_starts_again_on_its_sealed_trail(played, tmp_path):
    data = _copy(played, tmp_path)
    for _ in range(2):
        started = _cli("run", "--autoplay", "--rounds", "1", "--data-dir", str(data), "--port", "0")
        assert started.returncode == 0, started.stderr
    assert _cli("verify", "--data-dir", str(data)).returncode == 0
