import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main
from tests.support import ROOT

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
    # with no --preset, settle has par-sheet's default (it once answered "preset: missing")
    from controller.rules.paytable import DEFAULT_PRESET
    code, (out,) = settle(monkeypatch, capsys, [json.dumps(line)])
    assert code == 0 and out["preset"] == DEFAULT_PRESET == "sheet-004"
    small = dict(line, jackpots={}, seats=[{"seat": 1, "cards": "As Ks Qs", "play": True, "wagers": {"ante": 100}}])
    code, (out,) = settle(monkeypatch, capsys, [json.dumps(small)], "--preset", "sheet-003")
    assert code == 0 and out["preset"] == "sheet-003"       # $1 is sheet-003's minimum, not sheet-004's
    assert "default sheet-004" in _help("settle")


def _help(command):
    out = subprocess.run([sys.executable, "-m", "controller.cli", command, "--help"], capture_output=True,
                         text=True, timeout=60)
    return out.stdout


def test_settle_skips_blank_lines(monkeypatch, capsys):
    code, out = settle(monkeypatch, capsys, ["", json.dumps(LINE), "   ", "\t", json.dumps(dict(LINE, id="r2"))])
    assert code == 0 and [o["id"] for o in out] == ["r1", "r2"] and not any("error" in o for o in out)
    code, out = settle(monkeypatch, capsys, ["", "not json"])
    assert code == 1 and out[0]["error"].startswith("line 2: not JSON")     # lines still counted


def test_settle_a_void_round_is_nothing_to_settle_not_a_failure(monkeypatch, capsys):
    void = {"id": 7, "preset": "sheet-004", "seats": [{"seat": 1, "wagers": {"ante": 500}}],
            "table": {"status": "void", "void_reason": "player dispute", "state": "void"}}
    code, out = settle(monkeypatch, capsys, [json.dumps(LINE), json.dumps(void)])
    assert code == 0
    assert out[1] == {"id": 7, "void": True, "void_reason": "player dispute", "settled": "void, nothing to settle"}
    assert "error" not in out[0] and out[0]["seats"][0]["net"] == 22000
    # only a round recall marks void is one: a complete round's line is settled as ever
    code, (out,) = settle(monkeypatch, capsys, [json.dumps(dict(LINE, table={"status": "complete"}))])
    assert code == 0 and out["seats"][0]["net"] == 22000
    code, (out,) = settle(monkeypatch, capsys, [json.dumps(dict(void, colour=1))])
    assert code == 1 and out["error"] == "line 1: unknown key 'colour'"       # a typo is still refused


def journal_with_rounds(data_dir: Path) -> Path:
    """A journal as the table writes it: round 1 complete (LINE's hand, paid), round 2 voided after
    "No more bets" (no hands dealt)."""
    from controller.app.run import JOURNAL_FILE
    from controller.rules.paytable import load_preset
    from controller.rules.roundio import settle_json
    from controller.store.journal import Journal
    journal = Journal(data_dir / JOURNAL_FILE)
    wagers = dict(LINE["seats"][0]["wagers"])
    first = journal.open_round("sheet-004")
    journal.append(first, "opened", {"round": first, "preset": "sheet-004", "deck": 1, "config_digest": "x",
                                     "jackpots": LINE["jackpots"]})
    journal.append(first, "wagers", {"positions": {"1": wagers}, "linked": []})
    from controller.rules.cards import parse_cards
    for hand_no, (target, text) in enumerate([(1, "As Ks Qs"), (0, LINE["dealer"])], 1):
        journal.append(first, "hand", {"hand_no": hand_no, "target": target,
                                       "cards": [[c, 1] for c in parse_cards(text)]})
    journal.append(first, "decision", {"position": 1, "play": True, "by": "sensor"})
    settlement = settle_json(LINE, load_preset, None)
    settlement["seats"][0].update(wagers=wagers, play=True)
    journal.append(first, "settlement", settlement)
    journal.append(first, "paid", {"position": 1, "net": 22000, "by": "dealer"})
    journal.append(first, "complete", {})
    second = journal.open_round("sheet-004")
    journal.append(second, "opened", {"round": second, "preset": "sheet-004", "deck": 1, "config_digest": "x",
                                      "jackpots": LINE["jackpots"]})
    journal.append(second, "wagers", {"positions": {"2": {"ante": 1000}}, "linked": []})
    journal.append(second, "void", {"reason": "player dispute", "by": "supervisor Ana"})
    journal.close()
    return data_dir


def test_recall_json_piped_into_settle_with_a_void_round(tmp_path, monkeypatch, capsys):
    """README's ``recall --json | settle`` exited 1 on a journal holding a void round."""
    data = journal_with_rounds(tmp_path / "data")
    assert main(["recall", "--data-dir", str(data), "--json"]) == 0
    recalled = capsys.readouterr().out.splitlines()
    assert [json.loads(x)["table"]["status"] for x in recalled] == ["complete", "void"]
    code, out = settle(monkeypatch, capsys, recalled)
    assert code == 0
    assert out[0]["id"] == 1 and out[0]["seats"][0]["net"] == json.loads(recalled[0])["table"]["results"][0]["net"]
    assert out[1] == {"id": 2, "void": True, "void_reason": "player dispute", "settled": "void, nothing to settle"}


@pytest.mark.parametrize("last", ["0", "-3"])
def test_recall_last_must_be_one_or_more(tmp_path, capsys, last):
    data = journal_with_rounds(tmp_path / "data")
    assert main(["recall", "--data-dir", str(data), "--last", last]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (f"table-controller: --last {last}: the number of rounds to recall must be 1 or more\n")
    assert main(["recall", "--data-dir", str(data), "--last", "1", "--json"]) == 0
    assert [json.loads(x)["id"] for x in capsys.readouterr().out.splitlines()] == [2]


def test_text_output_shows_dollars_and_json_keeps_cents(tmp_path, capsys):
    data = journal_with_rounds(tmp_path / "data")
    assert main(["meters", "--data-dir", str(data)]) == 0
    text = capsys.readouterr().out
    pair_plus = next(line for line in text.splitlines() if line.startswith("pair_plus"))
    assert pair_plus.split() == ["pair_plus", "1", "$5.00", "$200.00", "$0.00", "-$200.00"]
    assert "cap reductions $0.00" in text and "rounds: 1 complete, 1 void, 0 open" in text
    assert main(["meters", "--data-dir", str(data), "--json"]) == 0
    meters = json.loads(capsys.readouterr().out)
    assert meters["wagers"]["pair_plus"] == {"wagers": 1, "wagered": 500, "paid": 20000, "taken": 0, "hold": -20000}
    assert main(["recall", "--data-dir", str(data)]) == 0
    text = capsys.readouterr().out
    assert "wagers ante $5.00, pair_plus $5.00, six_card_bonus $5.00, super6 $5.00  net $220.00  paid" in text
    assert "position 2: (no hand)    wagers ante $10.00" in text and "void: player dispute" in text
    assert main(["config", "check", str(ROOT / "deploy/table.example.toml")]) == 0
    assert "limits ante $5-$10, pair_plus $5-$10" in capsys.readouterr().out


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
    assert main(["config", "check", str(bad)]) == 2                        # ConfigError, every problem
    assert capsys.readouterr().err == (f"table-controller: {bad}, line 2: key 'table.id': must be non-empty text\n"
                                       f"table-controller: {bad}, line 1: key 'table.preset': must be non-empty "
                                       "text\n"
                                       f"table-controller: {bad}: key 'devices': missing\n")
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


def test_royal_at_deals_the_rare_hand_on_purpose_and_is_refused_without_simulation(tmp_path):
    """``run --royal-at R``: the players' round R is position 1 alone with Ante $5 and Super 6 $10,
    dealt Ah Kh Qh against Jh 10h 2c, Super 6's MINOR on sheet 004, paid at the posted $2,500.00."""
    import json
    import sqlite3
    done = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--autoplay", "--rounds", "3",
                           "--royal-at", "2", "--seed", "4", "--data-dir", str(tmp_path / "d"), "--port", "0",
                           "--log-format", "json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    db = sqlite3.connect(tmp_path / "d" / "journal.sqlite")
    settled = {r: json.loads(d) for r, d in db.execute("SELECT round_id, data FROM records WHERE kind = 'settlement'")}
    hits = {r: s["jackpot_hits"] for r, s in settled.items() if s["jackpot_hits"]}
    assert list(hits) == [2] and [(h["jackpot"], h["amount"], h["seat"]) for h in hits[2]] == [("minor", 250_000, 1)]
    assert settled[2]["dealer"] == "Jh 10h 2c"
    for bad, said in ((["--royal-at", "0"], "--royal-at 0: a round number is 1 or more"),
                      (["--config", "deploy/table.example.toml", "--royal-at", "2"], "--royal-at needs simulated")):
        done = subprocess.run([sys.executable, "-m", "controller.cli", "run", *bad], capture_output=True, text=True,
                              timeout=60)
        assert done.returncode != 0 and said in done.stderr
