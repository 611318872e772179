"""The journal's keyed chain: one chain for records and table events, schema 1 journals upgraded
in place, two writers on one file, and a journal without its key refused."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import pytest

from controller.store.journal import Journal, JournalError
from controller.store.verify import verify_journal


def _schema_1(path):
    """A journal as the previous release wrote it: plain SHA-256 records, unchained table events."""
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE rounds (id INTEGER PRIMARY KEY, opened_at TEXT NOT NULL, closed_at TEXT,
            status TEXT NOT NULL, preset TEXT NOT NULL, void_reason TEXT);
        CREATE TABLE records (seq INTEGER PRIMARY KEY, round_id INTEGER NOT NULL, at TEXT NOT NULL,
            kind TEXT NOT NULL, data TEXT NOT NULL, digest TEXT NOT NULL);
        CREATE TABLE table_events (seq INTEGER PRIMARY KEY, at TEXT NOT NULL, kind TEXT NOT NULL,
            data TEXT NOT NULL);
        INSERT INTO meta VALUES ('schema_version', '1');
        INSERT INTO rounds VALUES (1, 't', 't', 'void', 'sheet-002', 'x');
    """)
    previous = "0" * 64
    for kind, data in (("opened", {"preset": "sheet-002", "deck": 1}), ("void", {"reason": "x", "by": "s"})):
        text = json.dumps(data, sort_keys=True, separators=(",", ":"))
        previous = hashlib.sha256(f"{previous}|1|{kind}|{text}".encode()).hexdigest()
        db.execute("INSERT INTO records(round_id, at, kind, data, digest) VALUES (1, 't', ?, ?, ?)",
                   (kind, text, previous))
    db.execute("INSERT INTO table_events(at, kind, data) VALUES ('t', 'alert', '{}')")
    db.commit()
    db.close()


def test_a_schema_1_journal_is_upgraded_and_the_keyed_chain_follows_its_records(tmp_path):
    path = tmp_path / "journal.sqlite"
    _schema_1(path)
    journal = Journal(path, upgrade_unkeyed=True)
    assert journal.meta("schema_version") == "2"
    round_id = journal.open_round("sheet-002")
    journal.append(round_id, "opened", {"preset": "sheet-002", "deck": 1})
    journal.table_event("alert", {"kind": "x"})
    result = verify_journal(journal)
    assert (result.legacy_records, result.legacy_events, result.keyed, result.rounds) == (2, 1, 2, 2)
    journal.db.execute("UPDATE records SET data = '{}' WHERE seq = 1")      # the old part is still checked
    with pytest.raises(JournalError, match=r"record 1 \(round 1, opened\) was altered"):
        verify_journal(journal)
    journal.close()


def test_two_writers_on_one_journal_extend_one_chain(tmp_path):
    """``table-controller pin set`` adds a table event while the controller runs: the controller's
    next fact follows it, and the chain verifies."""
    path = tmp_path / "journal.sqlite"
    controller = Journal(path)
    round_id = controller.open_round("sheet-002")
    controller.append(round_id, "opened", {"preset": "sheet-002", "deck": 1})
    cli = Journal(path)
    cli.table_event("pin_changed", {"action": "set", "role": "supervisor", "name": "Ana"})
    cli.close()
    with controller.event():
        controller.append(round_id, "alert", {"kind": "x", "message": "m", "position": None})
    assert verify_journal(controller).keyed == 3
    controller.close()


def test_a_journal_whose_key_is_missing_is_refused_and_no_new_key_is_made(tmp_path):
    path = tmp_path / "journal.sqlite"
    journal = Journal(path)
    journal.table_event("alert", {"kind": "x"})
    journal.close()
    (tmp_path / "journal.key").unlink()
    with pytest.raises(JournalError, match="journal.key is missing: its records cannot be verified"):
        Journal(path)
    assert not (tmp_path / "journal.key").exists()


def test_a_journal_read_with_another_key_does_not_verify(tmp_path):
    path = tmp_path / "journal.sqlite"
    journal = Journal(path)
    journal.table_event("jackpot_posted", {"values": {"mega": 1}})
    journal.close()
    (tmp_path / "journal.key").write_bytes(b"k" * 32)
    with pytest.raises(JournalError, match=r"unkeyed part ends is missing or altered"):
        verify_journal(Journal(path))


def test_a_schema_1_journal_is_keyed_only_by_a_technician_never_by_the_table(tmp_path, capsys):
    """Without the key nothing tells a genuine old journal from one rewritten into the older form, its
    key and audit trail deleted: the table keyed either on its own and played on (the integrity lab's
    noticed item). Now it refuses, makes no key, and `upgrade-journal` keys it, journaled with who and why."""
    from controller.cli import main
    data = tmp_path / "data"
    data.mkdir()
    path = data / "journal.sqlite"
    _schema_1(path)
    with pytest.raises(JournalError, match=r"a schema 1 journal \(from before the keyed chain\) and no key: it is "
                       r"keyed once, by a technician, with `table-controller upgrade-journal`"):
        Journal(path)
    assert not (data / "journal.key").exists()
    capsys.readouterr()
    assert main(["upgrade-journal", "--by", "Tom", "--reason", "matches last week's backup",
                 "--data-dir", str(data)]) == 0
    assert "keyed (schema 2) by Tom: 2 records and 1 table events of the older form" in capsys.readouterr().out
    assert (data / "journal.key").exists()
    journal = Journal(path)                                     # keyed now: the table opens it as any
    assert json.loads(journal.db.execute("SELECT data FROM table_events WHERE kind = 'journal_upgraded'")
                      .fetchone()[0]) == {"by": "Tom", "from_schema": 1, "reason": "matches last week's backup"}
    journal.close()
    assert main(["upgrade-journal", "--by", "Tom", "--reason", "again", "--data-dir", str(data)]) == 1
    assert "the journal is keyed already (schema 2): nothing to upgrade" in capsys.readouterr().err


def test_a_journal_with_facts_and_no_version_is_not_keyed_as_new(tmp_path):
    """Its schema_version row deleted (with the key and the trail), a journal of any form was taken for
    a new one: the table made a key, keyed where the old part ended and played on (the review's finding)."""
    path = tmp_path / "journal.sqlite"
    _schema_1(path)
    db = sqlite3.connect(path)
    db.execute("DELETE FROM meta WHERE key = 'schema_version'")
    db.commit()
    db.close()
    with pytest.raises(JournalError, match="a journal holding facts but no schema version"):
        Journal(path)
    assert not (tmp_path / "journal.key").exists()
    Journal(tmp_path / "new" / "journal.sqlite").close()                 # a new journal is still made and keyed
    assert (tmp_path / "new" / "journal.key").exists()


def test_an_upgrade_that_cannot_be_made_leaves_no_key_and_nothing_changed(tmp_path, capsys):
    from controller.cli import main
    data = tmp_path / "data"
    data.mkdir()
    path = data / "journal.sqlite"
    _schema_1(path)
    db = sqlite3.connect(path)
    db.execute("UPDATE records SET data = '{}' WHERE seq = 2")           # an old record altered
    db.commit()
    db.close()
    before = path.read_bytes()
    assert main(["upgrade-journal", "--by", "Tom", "--reason", "x", "--data-dir", str(data)]) == 3
    assert "record 2 (round 1, void) was altered, removed or inserted: the journal is not keyed; nothing " \
           "changed" in capsys.readouterr().err
    assert path.read_bytes() == before and not (data / "journal.key").exists()
    # a failure inside the upgrade itself (a full disk): the key made for it goes with it
    _schema_1(tmp_path / "other.sqlite")
    db = sqlite3.connect(tmp_path / "other.sqlite")
    db.execute("CREATE INDEX records_chain ON records(round_id)")       # the upgrade's own index name, taken
    db.commit()
    db.close()
    with pytest.raises(JournalError):
        Journal(tmp_path / "other.sqlite", upgrade_unkeyed=True)
    assert not (tmp_path / "journal.key").exists()
    # and a schema-1 journal read without its key names the command that keys it
    with pytest.raises(JournalError, match="keyed once, by a technician, with `table-controller upgrade-journal`"):
        Journal.read_only(tmp_path / "other.sqlite")
