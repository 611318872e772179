"""A journal being made, as a reader in another process sees it (the floor demo's watch of each
table's progress, ``recall`` or ``verify`` beside a table that starts): its tables appear all at
once or not at all. They were made one statement, one commit, at a time, and the demo read
``records`` made and ``table_events`` not yet ("no such table: table_events"): the demo ended
with a traceback (seen under load in the suite)."""

from __future__ import annotations

import sqlite3

from controller.errors import JournalError
from controller.store.journal import Journal
from controller.store.outbox import chain_end


def _what_a_reader_sees(path) -> str:
    """The journal's last fact as another process reads it: "none yet" while the file holds no
    journal, the number once it does; anything else (a half-made schema) is said as it is."""
    try:
        journal = Journal.read_only(path, keyed=False)
    except JournalError:
        return "none yet"
    try:
        return str(chain_end(journal))
    except sqlite3.DatabaseError as err:
        return f"{type(err).__name__}: {err}"
    finally:
        journal.close()


def test_a_reader_never_sees_a_journal_half_made(tmp_path, monkeypatch):
    path = tmp_path / "journal.sqlite"
    seen: list[tuple[str, str]] = []
    connect = sqlite3.connect

    def watched(target, *args, **kwargs):
        db = connect(target, *args, **kwargs)
        if str(target) == str(path):                # the journal's own connection: looked at from outside
            def before_each_table(action, name, *_):
                if action == sqlite3.SQLITE_CREATE_TABLE:
                    seen.append((name, _what_a_reader_sees(path)))
                return sqlite3.SQLITE_OK
            db.set_authorizer(before_each_table)
        return db
    monkeypatch.setattr(sqlite3, "connect", watched)
    journal = Journal(path)
    monkeypatch.undo()
    journal.db.set_authorizer(None)
    try:
        journal.table_event("note", {"n": 1})
        assert [name for name, _ in seen] == ["meta", "rounds", "records", "table_events"]
        assert seen == [(name, "none yet") for name, _ in seen]
        assert _what_a_reader_sees(path) == "1"
    finally:
        journal.close()
