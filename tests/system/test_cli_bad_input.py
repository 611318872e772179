"""The command line against a careless technician and a test lab: bad input is refused in words, with
the exit status docs/cli.md gives, no traceback, and nothing changed on disk."""

import io
import json
import sys
from pathlib import Path

import pytest

from controller.cli import main
from controller.errors import JournalError
from controller.store.journal import Journal
from controller.store.pins import PIN_FILE, PinRefused, PinStore
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


def test_a_put_back_keeps_the_wrong_pins_the_playing_table_counted_meanwhile(tmp_path, monkeypatch, capsys):
    """The put-back was a copy of the whole PIN file taken before the change: a wrong PIN the playing
    table counted between the change and the journal's refusal was wiped, and a guesser went on."""
    data = _journal(tmp_path / "data")
    _stdin(monkeypatch, "4711\n")
    assert main(["pin", "set", "supervisor", "Ana", "--data-dir", str(data)]) == 0
    _stdin(monkeypatch, "1357\n")
    assert main(["pin", "set", "dealer", "Cy", "--data-dir", str(data)]) == 0
    table = PinStore(data / PIN_FILE)                              # the playing table's own store

    def refused_after_a_guess(self, kind, what):
        with pytest.raises(PinRefused):
            table.check("dealer", "0000")                         # a wrong PIN on the page meanwhile
        raise JournalError(f"{self.path}: cannot write the journal: database or disk is full")
    monkeypatch.setattr(Journal, "table_event", refused_after_a_guess)
    _stdin(monkeypatch, "8642\n")
    assert main(["pin", "set", "supervisor", "Bo", "--data-dir", str(data)]) == 3
    assert main(["pin", "remove", "supervisor", "Ana", "--data-dir", str(data)]) == 3
    doc = json.loads((data / PIN_FILE).read_text())
    assert [h["name"] for h in doc["holders"]] == ["Ana", "Cy"] and doc["lockout"]["failures"] == 2
    assert table.check("supervisor", "4711").name == "Ana"        # Ana's own PIN, as it was


@pytest.mark.parametrize("name, words", [("Ana\n\x1b[31mBo", "without control or formatting characters"),
                                         ("x" * 201, "at most 200 characters, not 201")])
def test_a_pin_holders_name_is_plain_text_of_bounded_length(tmp_path, monkeypatch, capsys, name, words):
    data = _journal(tmp_path / "data")
    before = _files(data)
    _stdin(monkeypatch, "4711\n")
    assert main(["pin", "set", "dealer", name, "--data-dir", str(data)]) == 2
    assert words in capsys.readouterr().err
    assert _files(data) == before


@pytest.mark.parametrize("argv", [["recall", "--last", "99999999999999999999"],
                                  ["recall", "--round", "99999999999999999999999", "--json"],
                                  ["replay", "--round", "99999999999999999999999"]])
def test_a_number_sqlite_cannot_hold_is_a_usage_error_not_a_traceback(tmp_path, capsys, argv):
    data = _journal(tmp_path / "data")
    with pytest.raises(SystemExit) as done:
        main([*argv, "--data-dir", str(data)])
    assert done.value.code == 2
    assert "is not a whole number of at most 15 digits" in capsys.readouterr().err
    anchor = "99999999999999999999999:" + "a" * 64
    assert main(["verify", "--anchor", anchor, "--data-dir", str(data)]) == 2
    assert "give FACT:DIGEST" in capsys.readouterr().err


def test_files_not_in_utf8_are_refused_naming_file_and_line(tmp_path, capsys):
    latin1 = tmp_path / "t é.toml"
    latin1.write_bytes(b'[table]\nid = "caf\xe9"\n')
    assert main(["config", "check", str(latin1)]) == 2
    assert capsys.readouterr().err == f"table-controller: {latin1}, line 2: not UTF-8 text (byte 0xe9): save the " \
        "file as UTF-8\n"
    assert main(["par-sheet", "--paytable", str(latin1)]) == 2
    assert "line 2: not UTF-8 text" in capsys.readouterr().err
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbf" + (Path(__file__).parents[2] / "deploy/table.example.toml").read_bytes())
    assert main(["config", "check", str(bom)]) == 2
    assert "line 1: begins with a byte order mark (BOM)" in capsys.readouterr().err
    from simulators.players import ScriptError, load_script
    with pytest.raises(ScriptError, match="not UTF-8 text"):
        load_script(latin1)


def test_report_refuses_a_day_it_cannot_hold_and_a_file_it_cannot_write(tmp_path, capsys):
    data = _journal(tmp_path / "data")
    assert main(["report", "--day", "9999-12-31", "--json", "--data-dir", str(data)]) == 2
    assert "a gaming day is a date YYYY-MM-DD" in capsys.readouterr().err
    before = _files(tmp_path)
    for option, where in (("--html", tmp_path / "no such folder" / "r.html"), ("--pdf", data)):
        assert main(["report", option, str(where), "--json", "--data-dir", str(data)]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and f"{where}: cannot write the report there" in captured.err
    assert _files(tmp_path) == before


def test_settle_answers_valid_json_to_nan_and_infinity(monkeypatch, capsys):
    _stdin(monkeypatch, '{"id": NaN}\n{"id": 1e999}\n{"id": 2, "seats": [-Infinity]}\n')
    assert main(["settle"]) == 1

    def refuse(word):
        raise AssertionError(f"{word} in settle's output")
    out = [json.loads(line, parse_constant=refuse) for line in capsys.readouterr().out.splitlines()]
    assert [o["error"] for o in out] == ["line 1: not JSON: NaN is not a JSON number",
                                         "line 2: not JSON: 1e999 is too large a number",
                                         "line 3: not JSON: -Infinity is not a JSON number"]


def test_table_sims_configuration_is_toml_whatever_the_data_folder(tmp_path):
    import tomllib

    from controller.rules.paytable import load_preset
    from simulators.table import SimOptions, SimulatedTable
    sim = SimulatedTable(SimOptions(transport="tcp", seed=1), load_preset("sheet-004"))
    try:
        folder = str(tmp_path / 'a "quoted" back\\slash é')
        assert tomllib.loads(sim.config_toml(data_dir=folder))["data"]["dir"] == folder
    finally:
        sim.stop()


def test_backup_refuses_an_empty_a_file_and_a_full_destination(tmp_path, monkeypatch, capsys):
    import sqlite3

    import controller.store.backup as backup
    data = _journal(tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    before = _files(tmp_path)
    assert main(["backup", "", "--data-dir", str(data)]) == 2                 # an unset $DEST
    assert "DEST is empty" in capsys.readouterr().err
    assert main(["backup", str(data / "journal.key"), "--data-dir", str(data)]) == 2
    assert "it is a file, not a folder" in capsys.readouterr().err

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")
    monkeypatch.setattr(backup, "_write", full)
    monkeypatch.setattr(backup.shutil, "disk_usage", lambda path: type("Usage", (), {"free": 1024})())
    assert main(["backup", "dest", "--data-dir", str(data)]) == 2
    assert "dest is too full: the backup needs about" in capsys.readouterr().err
    assert _files(tmp_path) == before


@pytest.mark.parametrize("option, said", [(["--port", "70000"], "--port 70000: a port number is 1-65535"),
                                          (["--rounds", "0"], "--rounds 0: the number of rounds to play is 1 or more"),
                                          (["--royal-at", "0"], "--royal-at 0: a round number is 1 or more")])
def test_run_refuses_absurd_numbers_as_usage_errors(tmp_path, capsys, option, said):
    """``--port 70000`` killed the page's thread with a traceback and the table ran on without its page;
    ``--rounds 0`` played without end, ``-1`` no round; ``--royal-at 0`` exited 1."""
    assert main(["run", "--autoplay", *option, "--data-dir", str(tmp_path / "data")]) == 2
    assert capsys.readouterr().err.startswith(f"table-controller: {said}")
    assert not (tmp_path / "data").exists()


def test_a_pin_or_reader_file_that_cannot_be_written_is_said_in_words(tmp_path, monkeypatch, capsys):
    (tmp_path / "a file").write_text("")
    folder = tmp_path / "a file" / "data"                      # cannot be made: as read-only media to root
    _stdin(monkeypatch, "4711\n")
    assert main(["pin", "set", "supervisor", "Ana", "--data-dir", str(folder)]) == 2
    assert main(["feed", "add", "Room 2", "--data-dir", str(folder)]) == 2
    err = capsys.readouterr().err
    assert f"{folder / PIN_FILE}: cannot be written: Not a directory; nothing changed" in err
    assert f"table-controller: {folder / READERS_FILE}: cannot" in err and "Traceback" not in err


def test_a_holders_name_with_spaces_around_it_is_the_one_kept(tmp_path, monkeypatch, capsys):
    """The store trims a name on set; remove compared it as typed and found nobody, and the journal
    named the untrimmed one."""
    data = _journal(tmp_path / "data")
    _stdin(monkeypatch, "4711\n")
    assert main(["pin", "set", "dealer", " Ana ", "--data-dir", str(data)]) == 0
    assert main(["pin", "remove", "dealer", "Ana  ", "--data-dir", str(data)]) == 0
    journal = Journal(data / "journal.sqlite")
    said = [json.loads(d) for (d,) in journal.db.execute(
        "SELECT data FROM table_events WHERE kind = 'pin_changed' ORDER BY seq")]
    journal.close()
    assert [(e["action"], e["name"]) for e in said] == [("set", "Ana"), ("removed", "Ana")]


@pytest.mark.parametrize("argv", [["pin", "list", "--data-dir", ""], ["verify", "--config", " "],
                                  # --rounds 0: without the check this refuses (exit 2, other words), never plays
                                  ["run", "--data-dir", "", "--rounds", "0"], ["recall", "--data-dir", ""]])
def test_an_empty_path_is_refused_not_read_as_the_configured_tables(tmp_path, monkeypatch, capsys, argv):
    """``--data-dir "$DIR"`` with DIR unset in a script worked on the configured table's own folder."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    assert "an empty path (a variable not set in a script?)" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []           # nothing made, nothing read as a default folder
