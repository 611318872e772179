"""The audit trail's chain, its rotation and torn tails; untrustworthy files stop the start."""

import json
import sqlite3

import pytest

from controller.store.audit import GENESIS, PREV_DIGITS, AuditError, AuditTrail, files_in_order, line_hash, verify
from controller.store.journal import Journal, JournalError
from tests.support.rig import table


def _trail(tmp_path, entries=30, max_bytes=2000):
    trail = AuditTrail(tmp_path / "audit", max_bytes=max_bytes)
    for i in range(entries):
        trail.write({"event": "round.paid", "round": i, "position": i % 6, "net": 500 * i})
    trail.close()
    return tmp_path / "audit"


def test_the_chain_runs_through_rotated_files_and_across_restarts(tmp_path):
    directory = _trail(tmp_path, entries=60)
    files = files_in_order(directory)
    assert len(files) > 2 and files[-1].name == "audit.jsonl" and files[0].name.endswith(f".{len(files) - 1}.gz")
    assert verify(directory) == (60, len(files))
    again = AuditTrail(directory, max_bytes=2000)           # a restart continues the chain
    again.write({"event": "run.started"})
    again.close()
    assert verify(directory)[0] == 61


@pytest.mark.parametrize("tamper, where", [
    (lambda lines: lines.__setitem__(3, lines[3].replace('"net":1500', '"net":9500')),
     "line 5: does not follow line 4"),
    (lambda lines: lines.__delitem__(2), "line 3: does not follow line 2"),
    (lambda lines: lines.insert(1, lines.pop(3)), "line 2: does not follow line 1"),
    (lambda lines: lines.__setitem__(0, "{not json"), "line 1: not a JSON entry"),
])
def test_the_first_altered_removed_or_reordered_line_is_named(tmp_path, tamper, where):
    directory = _trail(tmp_path, entries=10, max_bytes=10_000_000)
    path = directory / "audit.jsonl"
    lines = path.read_text().splitlines()
    tamper(lines)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(AuditError) as err:
        verify(directory)
    assert str(err.value).startswith(f"{path}, {where}")


def _relink(lines, digits):
    """The same entries chained again with ``digits`` hex digits of each hash in ``prev``."""
    out, previous = [], GENESIS
    for line in lines:
        entry = json.loads(line)
        entry["prev"] = previous[:digits]
        text = json.dumps(entry, separators=(",", ":"))
        out.append(text)
        previous = line_hash(text)
    return out


def test_prev_keeps_128_bits_and_a_trail_with_whole_hashes_still_verifies(tmp_path):
    directory = _trail(tmp_path, entries=10, max_bytes=10_000_000)
    path = directory / "audit.jsonl"
    lines = path.read_text().splitlines()
    assert {len(json.loads(line)["prev"]) for line in lines} == {PREV_DIGITS} == {32}
    path.write_text("\n".join(_relink(lines, 64)) + "\n")      # as written before release 0.3
    assert verify(directory) == (10, 1)
    again = AuditTrail(directory)                                # and the chain goes on from it
    again.write({"event": "run.started"})
    again.close()
    assert verify(directory) == (11, 1)
    path.write_text("\n".join(_relink(lines, 16)) + "\n")      # too few digits to vouch for a line
    with pytest.raises(AuditError, match="line 1: does not follow"):
        verify(directory)


def test_a_torn_last_line_is_set_aside_and_said(tmp_path):
    directory = _trail(tmp_path, entries=5, max_bytes=10_000_000)
    path = directory / "audit.jsonl"
    with open(path, "a") as f:
        f.write('{"event":"round.pa')                        # the power went here
    with pytest.raises(AuditError, match="line 6: incomplete last line"):
        verify(directory)
    trail = AuditTrail(directory)
    trail.close()
    assert (directory / "audit.jsonl.torn-1").read_text() == '{"event":"round.pa'
    assert verify(directory)[0] == 6
    assert "audit.torn_tail_set_aside" in path.read_text().splitlines()[-1]


def test_a_broken_audit_trail_or_journal_stops_the_table_from_starting(tmp_path):
    data = tmp_path / "data"
    with table(tmp_path, "sheet-002", autoplay=True, rounds=2, data_dir=data) as rig:
        assert rig.run.dealer.done.wait(30)
    assert verify(data / "audit")[0] > 10
    audit = data / "audit" / "audit.jsonl"
    lines = audit.read_text().splitlines()
    lines[5] = lines[5].replace('"level":"info"', '"level":"debug"')
    audit.write_text("\n".join(lines) + "\n")
    with pytest.raises(AuditError, match="audit.jsonl, line 7: does not follow line 6"):
        with table(tmp_path, "sheet-002", data_dir=data):
            pass
    lines[5] = lines[5].replace('"level":"debug"', '"level":"info"')
    audit.write_text("\n".join(lines) + "\n")

    db = sqlite3.connect(data / "journal.sqlite")
    db.execute("DELETE FROM meta WHERE key LIKE 'checked_%'")   # no checkpoint: a full check at start
    db.execute("UPDATE records SET data = replace(data, '\"net\":', '\"net\":1') "
               "WHERE seq = (SELECT MIN(seq) FROM records WHERE kind = 'paid')")
    db.commit()
    db.close()
    with pytest.raises(JournalError, match=r"journal.sqlite: record \d+ \(round 1, paid\) was altered"):
        with table(tmp_path, "sheet-002", data_dir=data):
            pass
    journal = Journal(data / "journal.sqlite")                # and a full check names it too
    with pytest.raises(JournalError, match=r"record \d+ \(round 1, paid\) was altered"):
        journal.verify_chain()
    journal.close()
