"""``table-floor report``: a gaming day per table and wager type from the floor's records, beside
the par sheet's edge; rounds of another day and void rounds are not settled into it."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime, timedelta

from controller.floor.cli import main
from controller.floor.forwarder import Forwarder
from controller.rules.parsheet import par_sheet
from controller.rules.paytable import load_preset
from controller.store.outbox import chain_end


def seat(seat_no, ante, pair_plus, play, results):
    return {"seat": seat_no, "cap_reduction": 0, "play": play, "cards": "", "hand": "", "net": sum(results.values()),
            "six_card": None, "super6_hand": None,
            "wagers": {"ante": ante, "pair_plus": pair_plus, "six_card_bonus": 0, "super6": 0},
            "results": {"ante": 0, "ante_bonus": 0, "pair_plus": 0, "play": 0, "six_card_bonus": 0, "super6": 0,
                        **results}}


def settle(journal, seats, kind="complete"):
    rid = journal.open_round("sheet-004")
    journal.append(rid, "settlement", {"id": rid, "preset": "sheet-004", "jackpot_hits": [], "seats": seats})
    journal.append(rid, kind, {"reason": "misdeal"} if kind == "void" else {})


def test_a_day_per_table_and_wager_type_beside_the_par_sheet(cluster, table, capsys):
    # round 1: seat 1 plays and wins ante and play, loses Pair Plus; seat 2 folds
    settle(table.journal, [seat(1, 1000, 500, True, {"ante": 1000, "play": 1000, "pair_plus": -500}),
                           seat(2, 500, 0, False, {"ante": -500})])
    # round 2: seat 1 loses ante and play, wins Pair Plus with a pair (1 to 1)
    settle(table.journal, [seat(1, 1000, 500, True, {"ante": -1000, "play": -1000, "pair_plus": 500})])
    settle(table.journal, [seat(1, 1000, 0, True, {"ante": 5000})], kind="void")   # void: not settled
    fwd = Forwarder(table.settings, table.journal.path, table.journal.key).start()
    try:
        assert fwd.wait_confirmed(chain_end(table.journal), 20)
    finally:
        fwd.stop()
    capsys.readouterr()                          # the forwarder's log lines
    today = datetime.now(UTC).date().isoformat()
    assert main(["report", "--dsn", cluster.dsn(), "--day", today, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)["tables"][table.table_id]
    assert (report["rounds"], report["rounds_void"], report["presets"]) == (2, 1, ["sheet-004"])
    sheet = par_sheet(load_preset("sheet-004"))
    w = report["wagers"]
    assert w["ante"] == {"rounds": 2, "wagers": 3, "wagered": 2500, "paid": 1000, "hold": 500,
                         "hold_percent": 20.0, "theoretical_percent": None}
    assert w["play"]["wagered"] == 2000 and w["play"]["hold"] == 0 and w["play"]["hold_percent"] == 0.0
    assert w["pair_plus"]["wagers"] == 2 and w["pair_plus"]["wagered"] == 1000 and w["pair_plus"]["hold"] == 0
    assert w["pair_plus"]["theoretical_percent"] == round(100 * sheet["pair_plus"]["house_edge"]["decimal"], 3)
    base = w["base_game"]
    assert (base["wagered"], base["paid"], base["hold"]) == (4500, 2000, 500)
    assert base["theoretical_percent"] == round(
        100 * 2500 * sheet["ante_play"]["house_edge_per_ante"]["decimal"] / 4500, 3)
    assert "super6" not in w                 # nobody wagered it, nothing was paid or taken

    assert main(["report", "--dsn", cluster.dsn(), "--day", today, "--csv"]) == 0
    rows = [r for r in csv.DictReader(io.StringIO(capsys.readouterr().out)) if r["table"] == table.table_id]
    ante = next(r for r in rows if r["wager"] == "ante")
    assert (ante["wagered"], ante["paid"], ante["hold"], ante["hold_percent"]) == ("25.00", "10.00", "5.00", "20.0")

    assert main(["report", "--dsn", cluster.dsn(), "--day", today]) == 0
    shown = capsys.readouterr().out
    assert f"Gaming day {today}" in shown and "$25.00" in shown and "1 void" in shown

    yesterday = (datetime.now(UTC).date() - timedelta(days=1)).isoformat()
    assert main(["report", "--dsn", cluster.dsn(), "--day", yesterday, "--json"]) == 0
    assert table.table_id not in json.loads(capsys.readouterr().out)["tables"]


def test_a_bad_day_is_refused_in_words(cluster, capsys):
    assert main(["report", "--dsn", cluster.dsn(), "--day", "2026-13-01"]) == 2
    assert "table-floor: --day '2026-13-01' is not a date YYYY-MM-DD" in capsys.readouterr().err
