"""Tampering with what the table stored is named, never shown as true (issue 16).

A table plays real rounds on simulated devices; then the lab's edits are made straight in the
SQLite file, as someone with the file but without the table's key would. ``table-controller
verify`` names each one; ``recall``, ``meters`` and ``jackpot`` refuse to show the journal.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import shutil
import sqlite3
import subprocess

import pytest

from controller.cli import main
from tests.support.rig import table


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    base = tmp_path_factory.mktemp("played")
    with table(base, "sheet-004", autoplay=True, rounds=3, data_dir=base / "data") as rig:
        assert rig.run.dealer.done.wait(60)
        rig.engine.act("reset_meters", role="supervisor", who="supervisor Ana", reason="shift change")
    return base / "data"


def _cli(*args):
    """The command in this process: its exit status, standard output and error as a process's. A
    process of its own for each of the campaign's 40 commands cost half a second apiece and checked
    nothing more (tests/system/test_failpoints.py runs the real process on a damaged folder)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return subprocess.CompletedProcess(["table-controller", *args], status, out.getvalue(), err.getvalue())


def _copy(played, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(played, data)
    return data


def _edit(data, *statements):
    db = sqlite3.connect(data / "journal.sqlite")
    for sql, params in statements:
        db.execute(sql, params)
    db.commit()
    db.close()


def test_an_untouched_journal_verifies(played, tmp_path):
    result = _cli("verify", "--data-dir", str(_copy(played, tmp_path)))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("verified")


def _plain(previous, round_id, kind, text):
    return hashlib.sha256(f"{previous}|{round_id}|{kind}|{text}".encode()).hexdigest()


TAMPERINGS = {
    "a paid net edited": [("UPDATE records SET data = replace(data, '\"net\":', '\"net\":1') "
                           "WHERE seq = (SELECT MIN(seq) FROM records WHERE kind = 'paid')", ())],
    "a record removed": [("DELETE FROM records WHERE seq = (SELECT MIN(seq) FROM records WHERE kind = 'decision')",
                          ())],
    "a jackpot value inserted": [("INSERT INTO table_events(at, kind, data, digest, chain) VALUES "
                                  "('2026-01-01', 'jackpot_posted', '{\"values\": {\"mega\": 99999999900}}', "
                                  "'00', (SELECT MAX(c) + 1 FROM (SELECT chain c FROM records "
                                  "UNION ALL SELECT chain FROM table_events)))", ())],
    "a meter reset forged without a chain": [("INSERT INTO table_events(at, kind, data) VALUES "
                                              "('2026-01-01', 'meters_reset', '{\"after_round\": 3}')", ())],
    "a round marked complete": [("UPDATE rounds SET status = 'void' WHERE id = 1", ())],
    "a round's row deleted": [("DELETE FROM rounds WHERE id = 2", ())],
    "a record's time edited": [("UPDATE records SET at = '2020-01-01T00:00:00.000+00:00' WHERE seq = 3", ())],
    # columns the report reads beside the chained records (session 18): the pay table its theory is
    # computed with, a void's reason
    "a round's pay table changed": [("UPDATE rounds SET preset = 'sheet-003' WHERE id = 2", ())],
    "a void reason given to a complete round": [("UPDATE rounds SET void_reason = 'misdeal' WHERE id = 2", ())],
    # schema objects the table never makes (session 18): a trigger runs inside the table's own commits,
    # this one once the start-up check has passed; a view stands where a table's name is read
    "a trigger added": [("CREATE TRIGGER pay_more AFTER UPDATE ON meta BEGIN UPDATE records SET "
                         "data = replace(data, '\"net\":', '\"net\":1') WHERE kind = 'paid'; END", ())],
    "a view in a table's place": [("ALTER TABLE rounds RENAME TO rounds_kept", ()),
                                  ("CREATE VIEW rounds AS SELECT * FROM rounds_kept WHERE id > 1", ())],
    "the journal's boundary removed": [("DELETE FROM meta WHERE key = 'keyed_boundary'", ())],
    # the first two records next to each other on the chain: which facts come first depends on the devices
    # (chains 5 and 6 were two records when four table events came before the round; with a slow sign's
    # alerts first they were two table events, nothing was swapped, and verify rightly found nothing)
    "two facts swapped": [("CREATE TEMP TABLE pick AS SELECT MIN(chain) AS a FROM records r "
                           "WHERE EXISTS (SELECT 1 FROM records n WHERE n.chain = r.chain + 1)", ()),
                          ("UPDATE records SET chain = -chain WHERE chain IN "
                           "(SELECT a FROM pick UNION SELECT a + 1 FROM pick)", ()),
                          ("UPDATE records SET chain = CASE -chain WHEN (SELECT a FROM pick) "
                           "THEN (SELECT a + 1 FROM pick) ELSE (SELECT a FROM pick) END WHERE chain < 0", ())],
}


@pytest.mark.parametrize("what", TAMPERINGS)
def test_each_tampering_is_named_and_nothing_is_shown_from_the_journal(played, tmp_path, what):
    data = _copy(played, tmp_path)
    _edit(data, *TAMPERINGS[what])
    result = _cli("verify", "--data-dir", str(data))
    assert result.returncode == 3, (what, result.stdout, result.stderr)
    assert "journal.sqlite: " in result.stderr
    for command in ("recall", "meters", "jackpot"):
        shown = _cli(command, "--data-dir", str(data))
        assert shown.returncode == 2 and shown.stdout == "", (what, command, shown.stdout)
        assert shown.stderr.strip() == result.stderr.strip()


def test_an_edit_with_the_chain_recomputed_without_the_key_is_named(played, tmp_path):
    """Recomputing the digests needs the key: with a plain hash (what anyone can compute) the edit is
    still found at the edited record."""
    data = _copy(played, tmp_path)
    db = sqlite3.connect(data / "journal.sqlite")
    rows = db.execute("SELECT seq, round_id, kind, data, chain FROM records WHERE kind = 'paid' "
                      "ORDER BY seq LIMIT 1").fetchall()
    seq, round_id, kind, text, chain = rows[0]
    forged = text.replace('"net":', '"net":1')
    previous = db.execute("SELECT digest FROM records WHERE chain = ?", (chain - 1,)).fetchone()
    previous = previous[0] if previous else db.execute(
        "SELECT digest FROM table_events WHERE chain = ?", (chain - 1,)).fetchone()[0]
    db.execute("UPDATE records SET data = ?, digest = ? WHERE seq = ?",
               (forged, _plain(previous, round_id, kind, forged), seq))
    db.commit()
    db.close()
    result = _cli("verify", "--data-dir", str(data))
    assert result.returncode == 3
    assert f"record {seq} (round {round_id}, paid) was altered" in result.stderr


def test_an_old_record_behind_the_start_up_checkpoint_is_still_found(played, tmp_path):
    data = _copy(played, tmp_path)
    with table(tmp_path, "sheet-004", data_dir=data):
        pass                                    # a start: the checkpoint now covers every record
    _edit(data, *TAMPERINGS["a paid net edited"])
    result = _cli("verify", "--data-dir", str(data))
    assert result.returncode == 3 and "paid) was altered" in result.stderr


def test_a_journal_rewritten_in_the_old_unkeyed_form_is_named(played, tmp_path):
    """Every fact taken off the keyed chain and re-chained with plain SHA-256 (which needs no key):
    the boundary kept under the key says how much of the journal was ever unkeyed."""
    data = _copy(played, tmp_path)
    db = sqlite3.connect(data / "journal.sqlite")
    previous = "0" * 64
    rows = db.execute("SELECT seq, round_id, kind, data FROM records ORDER BY seq").fetchall()
    for seq, round_id, kind, text in rows:
        previous = _plain(previous, round_id, kind, text)
        db.execute("UPDATE records SET chain = NULL, digest = ? WHERE seq = ?", (previous, seq))
    db.execute("UPDATE table_events SET chain = NULL, digest = NULL")
    db.commit()
    result = _cli("verify", "--data-dir", str(data))
    assert result.returncode == 3 and "rewritten in the older, unkeyed form" in result.stderr
    db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")   # and calling it schema 1
    db.commit()
    db.close()
    result = _cli("verify", "--data-dir", str(data))
    assert result.returncode == 3
    assert "a schema 1 journal beside this table's key: the journal was rewritten" in result.stderr
