"""The command line against a careless technician and a test lab: bad input is refused in words, with
the exit status docs/cli.md gives, no traceback, and nothing changed on disk."""

import io
import sys
from pathlib import Path

import pytest

from controller.cli import main
from controller.errors import JournalError
from controller.store.journal import Journal
from controller.store.pins import PIN_FILE
from controller.store.readers import READERS_FILE


def _journal(data: Path) -> Path:
    journal = Journal(data / "journal.sqlite")
    journal.table_event("configuration", {"digest": "x"})
    journal.close()
    return data


def _files(folder: Path) -> dict[str, bytes]:
    """What a command may not change: every file but SQLite's shared-memory index of a reader."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.endswith(("-shm", "-wal"))}


def _stdin(monkeypatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))


def test_pin_and_feed_changes_are_refused_on_a_journal_under_another_tables_key(tmp_path, monkeypatch, capsys):
    """They were made, and their events chained under the wrong key: exit 0, and the journal no longer
    verified under its own key (the table refused to start on it)."""
    data = _journal(tmp_path / "data")
    own_key = (data / "journal.key").read_bytes()
    (data / "journal.key").write_bytes(bytes(32))                  # another table's key, installed by mistake
    before = _files(data)
    _stdin(monkeypatch, "4711\n")
    assert main(["pin", "set", "supervisor", "Ana", "--data-dir", str(data)]) == 3
    assert main(["feed", "add", "Room 2", "--data-dir", str(data)]) == 3
    err = capsys.readouterr().err
    assert "the key it is read with is not this journal's" in err and "Traceback" not in err
    assert _files(data) == before and not (data / PIN_FILE).exists() and not (data / READERS_FILE).exists()
    (data / "journal.key").write_bytes(own_key)
    assert main(["verify", "--data-dir", str(data)]) == 0


def test_a_pin_change_the_journal_cannot_take_is_put_back(tmp_path, monkeypatch, capsys):
    data = _journal(tmp_path / "data")
    _stdin(monkeypatch, "4711\n")
    assert main(["pin", "set", "supervisor", "Ana", "--data-dir", str(data)]) == 0
    before = _files(data)

    def full(self, kind, what):
        raise JournalError(f"{self.path}: cannot write the journal: database or disk is full")
    monkeypatch.setattr(Journal, "table_event", full)
    _stdin(monkeypatch, "8642\n")
    assert main(["pin", "set", "supervisor", "Bo", "--data-dir", str(data)]) == 3
    assert main(["pin", "remove", "supervisor", "Ana", "--data-dir", str(data)]) == 3
    assert _files(data) == before                                  # Ana keeps her PIN, Bo has none
    capsys.readouterr()
    monkeypatch.undo()
    assert main(["pin", "list", "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out.split() == ["supervisor", "Ana"]


@pytest.mark.parametrize("name, words", [("Ana\n\x1b[31mBo", "without control or formatting characters"),
                                         ("x" * 201, "at most 200 characters, not 201")])
def test_a_pin_holders_name_is_plain_text_of_bounded_length(tmp_path, monkeypatch, capsys, name, words):
    data = _journal(tmp_path / "data")
    before = _files(data)
    _stdin(monkeypatch, "4711\n")
    assert main(["pin", "set", "dealer", name, "--data-dir", str(data)]) == 2
    assert words in capsys.readouterr().err
    assert _files(data) == before
