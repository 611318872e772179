import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main

# The issue's example line deals Qs to both the dealer and seat 1; here the dealer holds Qh.
LINE = {"id": "r1", "preset": "sheet-004", "dealer": "Qh 7h 2d",
        "jackpots": {"mega": 25000000, "major": 5000000, "minor": 1000000},
        "seats": [{"seat": 1, "cards": "As Ks Qs", "play": True,
                   "wagers": {"ante": 500, "pair_plus": 500, "six_card_bonus": 500, "super6": 500}}]}


def settle(monkeypatch, capsys, lines, *args):
    import io
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    code = main(["settle", *args])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return code, out


def test_settle_the_issue_example(monkeypatch, capsys):
    code, (out,) = settle(monkeypatch, capsys, [json.dumps(LINE)])
    assert code == 0
    seat = out["seats"][0]
    assert out["id"] == "r1" and out["dealer_qualifies"] is True
    # A-K-Q suited: straight flush. Play 1:1, Ante Bonus 4:1, Ante 1:1, Pair Plus 40:1.
    assert seat["results"] == {"play": 500, "ante_bonus": 2000, "ante": 500, "pair_plus": 20000,
                               "six_card_bonus": -500, "super6": -500}
    assert seat["cap_reduction"] == 0 and seat["net"] == 22000 - 0
    assert list(seat["results"]) == ["play", "ante_bonus", "ante", "pair_plus", "six_card_bonus", "super6"]


def test_a_card_dealt_twice_is_refused(monkeypatch, capsys):
    code, (out,) = settle(monkeypatch, capsys, [json.dumps(dict(LINE, dealer="Qs 7h 2d"))])
    assert code == 1 and out == {"id": "r1", "error": "line 1: card Qs is in both dealer and seat 1"}


def test_settle_keeps_order_and_reports_each_bad_line(monkeypatch, capsys):
    bad_card = dict(LINE, id="r2", seats=[dict(LINE["seats"][0], cards="As Ks 1s")])
    lines = [json.dumps(LINE), "not json", json.dumps(bad_card), json.dumps(dict(LINE, id="r4")), "[]",
             json.dumps(dict(LINE, id="r6", colour=1)), json.dumps(dict(LINE, id="r7", preset="nope"))]
    code, out = settle(monkeypatch, capsys, lines)
    assert code == 1
    assert [o.get("id") for o in out] == ["r1", None, "r2", "r4", None, "r6", "r7"]
    assert "error" not in out[0] and "error" not in out[3]
    assert out[1]["error"].startswith("line 2: not JSON")
    assert out[2]["error"] == "line 3: seat 1: card '1s': unknown rank '1'"
    assert out[4]["error"] == "line 5: a round must be a JSON object"
    assert out[5]["error"] == "line 6: unknown key 'colour'"
    assert "line 7: preset 'nope': unknown" in out[6]["error"]


@pytest.mark.parametrize("change, message", [
    ({"dealer": "Qs 7h"}, "dealer: 2 cards, expected 3"),
    ({"seats": [{"seat": 1, "cards": "As Ks Qs", "wagers": {"ante": 500}}]}, "seat 1.play: must be true"),
    ({"seats": [{"seat": 1, "cards": "As Ks Qs", "play": True, "wagers": {"antee": 500}}]},
     "seat 1.wagers: unknown wager 'antee'"),
    ({"seats": [{"seat": 1, "cards": "As Ks Qs", "play": True, "wagers": {"ante": 5.5}}]},
     "seat 1.wagers.ante: must be a whole number"),
    ({"seats": [{"seat": 1, "cards": "As Ks Qs", "play": True, "wagers": {"ante": 100}}]},
     "seat 1: ante 100 is below the minimum 500"),
    ({"seats": [{"seat": 0, "cards": "As Ks Qs"}]}, "seats[0].seat: must be 1 or more"),
    ({"jackpots": {"mega": -1}}, "jackpots.mega: must be positive cents"),
    ({"jackpots": {"grand": 1}}, "jackpots.grand: unknown jackpot"),
    ({"seats": {}}, "seats: must be a list"),
])
def test_settle_errors_name_the_field(monkeypatch, capsys, change, message):
    code, (out,) = settle(monkeypatch, capsys, [json.dumps(dict(LINE, **change))])
    assert code == 1 and message in out["error"]


def test_settle_preset_from_the_command_line(monkeypatch, capsys):
    line = {k: v for k, v in LINE.items() if k != "preset"}
    code, (out,) = settle(monkeypatch, capsys, [json.dumps(line)], "--preset", "sheet-004")
    assert code == 0 and out["preset"] == "sheet-004"
    code, (out,) = settle(monkeypatch, capsys, [json.dumps(line)])
    assert code == 1 and "preset: missing" in out["error"]


def test_unknown_preset_is_a_usage_error(capsys):
    assert main(["settle", "--preset", "sheet-9"]) == 2
    assert "sheet-9" in capsys.readouterr().err
    assert main(["par-sheet", "--preset", "sheet-9"]) == 2


def test_presets_json(capsys):
    assert main(["presets", "--json"]) == 0
    presets = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in presets] == ["sheet-000", "sheet-002", "sheet-003", "sheet-004"]
    assert presets[3]["pair_plus"]["straight"] == 6 and presets[3]["limits"]["super6"]["max"] == 1000


def test_presets_text(capsys):
    assert main(["presets"]) == 0
    text = capsys.readouterr().out
    assert "sheet-003" in text and "ante $1-$100" in text and "$5,000" in text


def test_par_sheet_json_and_text(capsys):
    assert main(["par-sheet", "--preset", "sheet-003", "--json"]) == 0
    sheet = json.loads(capsys.readouterr().out)
    assert sheet["ante_play"]["house_edge_per_ante"]["fraction"].count("/") == 1
    assert main(["par-sheet", "--preset", "sheet-003"]) == 0
    assert "play Q-6-4 (Queen high) or better" in capsys.readouterr().out


def test_par_sheet_bad_jackpots_and_paytable(tmp_path, capsys):
    assert main(["par-sheet", "--preset", "sheet-004", "--jackpots", "1,2"]) == 2
    assert "--jackpots" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text("[preset]\nname='x'\n")
    assert main(["par-sheet", "--paytable", str(bad)]) == 2
    assert "bad.toml" in capsys.readouterr().err


def test_console_script_runs():
    """The installed entry point, as an operator would call it."""
    script = Path(sys.executable).parent / "table-controller"
    out = subprocess.run([str(script), "presets", "--json"], capture_output=True, text=True,
                         check=True)
    assert json.loads(out.stdout)[0]["name"] == "sheet-000"


@pytest.mark.parametrize("group, action", [("audit", "verify"), ("config", "check"), ("pin", "set")])
def test_a_group_without_its_action_prints_its_own_help(capsys, group, action):
    assert main([group]) == 2
    out = capsys.readouterr().out
    assert out.startswith(f"usage: table-controller {group} [-h] ACTION ...") and action in out
    assert "COMMAND" not in out                     # not the top-level help


def test_every_controller_error_is_in_the_tree():
    from controller.app.config import ConfigError
    from controller.errors import InputError, IntegrityError, TableError
    from controller.rules.cards import CardError
    from controller.rules.paytable import PayTableError
    from controller.rules.roundio import RoundFormatError
    from controller.rules.settlement import SettlementError
    from controller.store.audit import AuditError
    from controller.store.journal import JournalError
    from controller.store.pins import PinError, PinRefused
    for error in (ConfigError, CardError, PayTableError, RoundFormatError, SettlementError, PinError, PinRefused):
        assert issubclass(error, InputError) and issubclass(error, ValueError), error
    assert issubclass(PinRefused, PermissionError)
    for error in (JournalError, AuditError):
        assert issubclass(error, IntegrityError) and not issubclass(error, InputError), error
    assert issubclass(InputError, TableError) and issubclass(IntegrityError, TableError)


def test_an_input_error_inside_a_command_exits_2(tmp_path, capsys):
    bad = tmp_path / "table.toml"
    bad.write_text("[table]\nid = 5\n")
    assert main(["config", "check", str(bad)]) == 2                        # ConfigError
    assert capsys.readouterr().err == f"table-controller: {bad}, line 2: key 'table.id': must be non-empty text\n"
    assert main(["audit", "verify", "--data-dir", str(tmp_path)]) == 2      # raised by the command itself
    assert capsys.readouterr().err == f"table-controller: {tmp_path / 'audit'}: no audit trail here\n"


def damaged_journal(data_dir: Path) -> Path:
    data_dir.mkdir()
    path = data_dir / "journal.sqlite"
    path.write_bytes(b"not a database " * 100)
    return path


def test_an_integrity_error_inside_a_command_exits_3(tmp_path, monkeypatch, capsys):
    """``pin set`` journals the change; a journal that cannot be opened is a JournalError."""
    import io
    journal = damaged_journal(tmp_path / "data")
    monkeypatch.setattr(sys, "stdin", io.StringIO("1234\n"))
    assert main(["pin", "set", "supervisor", "Ana", "--data-dir", str(tmp_path / "data")]) == 3
    assert capsys.readouterr().err == (f"table-controller: {journal}: cannot open the journal: "
                                       "file is not a database\n")


def test_journal_readers_keep_exit_2_for_an_untrusted_journal(tmp_path, capsys):
    """recall, meters and jackpot (and run) exited 2 for a bad journal before the error tree."""
    journal = damaged_journal(tmp_path / "data")
    for command in ("recall", "meters", "jackpot"):
        assert main([command, "--data-dir", str(tmp_path / "data")]) == 2
        assert capsys.readouterr().err == (f"table-controller: {journal}: cannot open the journal: "
                                           "file is not a database\n")
