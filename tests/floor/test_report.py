"""``table-floor report``: a gaming day per table and wager type from the floor's records, beside
the par sheet's edge; rounds of another day and void rounds are not settled into it."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, date, datetime, time, timedelta

from controller.floor.cli import main
from controller.floor.forwarder import Forwarder
from controller.floor.report import day_bounds
from controller.rules.gaming import GamingClock
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

    # far from UTC the local gaming day is told by the zone (Kiritimati is UTC+14: its date is often not UTC's),
    # from each round's own ending record (not the clock now: a test across the cut-off counts them apart)
    zone = "Pacific/Kiritimati"
    clock = GamingClock(time_zone=zone, cutoff=time(6, 0))
    ended = [clock.day_of(r.at) for rid in table.journal.round_ids(10) for r in table.journal.records(rid)
             if r.kind in ("complete", "void")]
    local_day = ended[0]
    for day in (local_day - timedelta(days=1), local_day, local_day + timedelta(days=1)):
        assert main(["report", "--dsn", cluster.dsn(), "--day", day.isoformat(), "--day-start", "06:00",
                     "--time-zone", zone, "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        counted = doc["tables"].get(table.table_id, {"rounds": 0, "rounds_void": 0})
        assert counted["rounds"] + counted["rounds_void"] == ended.count(day)
        assert doc["time_zone"] == zone and doc["start"] < doc["end"]
    assert main(["report", "--dsn", cluster.dsn(), "--day", local_day.isoformat(), "--day-start", "06:00",
                 "--time-zone", zone]) == 0
    assert f"Gaming day {local_day} (from 06:00 {zone})" in capsys.readouterr().out

    yesterday = (datetime.now(UTC).date() - timedelta(days=1)).isoformat()
    assert main(["report", "--dsn", cluster.dsn(), "--day", yesterday, "--json"]) == 0
    assert table.table_id not in json.loads(capsys.readouterr().out)["tables"]


def test_a_capped_round_counts_each_wager_as_paid(cluster, table, capsys):
    """The floor's report left the maximum payout's cut out: a capped 6 Card Bonus counted $10,000.00
    paid where the dealer paid $4,530.00, and the day's hold was short by the cut."""
    from tests.report.test_capped_wagers import CAP, settle_capped
    rid, capped = settle_capped(table.journal)
    fwd = Forwarder(table.settings, table.journal.path, table.journal.key).start()
    try:
        assert fwd.wait_confirmed(chain_end(table.journal), 20)
    finally:
        fwd.stop()
    capsys.readouterr()
    day = datetime.fromisoformat(table.journal.records(rid)[-1].at).date().isoformat()
    assert main(["report", "--dsn", cluster.dsn(), "--day", day, "--json"]) == 0
    w = json.loads(capsys.readouterr().out)["tables"][table.table_id]["wagers"]
    assert w["six_card_bonus"]["paid"] == 1_000_000 - capped["cap_reduction"] and w["super6"]["paid"] == 250_000
    assert sum(w[s]["paid"] for s in ("base_game", "pair_plus", "six_card_bonus")) == CAP
    # two ways to the money: what the wagers lost the house is the seat's net as settled
    assert -sum(w[s]["hold"] for s in ("base_game", "pair_plus", "six_card_bonus", "super6")) == capped["net"]


def test_a_bad_day_is_refused_in_words(cluster, capsys):
    assert main(["report", "--dsn", cluster.dsn(), "--day", "2026-13-01"]) == 2
    assert "table-floor: --day '2026-13-01' is not a date YYYY-MM-DD" in capsys.readouterr().err
    assert main(["report", "--dsn", cluster.dsn(), "--day", "2026-11-22", "--time-zone", "Mars/Olympus"]) == 2
    assert "--time-zone 'Mars/Olympus' is not an IANA time zone name" in capsys.readouterr().err
    assert main(["report", "--dsn", cluster.dsn(), "--day", "9999-12-31"]) == 2
    assert "the calendar has no next day to end it" in capsys.readouterr().err


def test_the_gaming_day_is_the_casinos_local_day_across_summer_time():
    """The day's bounds were UTC midnights (or --day-start UTC): a Nevada casino's 06:00 gaming day began
    at 22:00 or 23:00 local the evening before, and each table's own report (in its gaming_day's zone)
    disagreed with the floor's."""
    la = "America/Los_Angeles"
    assert day_bounds("2026-11-22", "06:00", la) == ("2026-11-22T14:00:00.000", "2026-11-23T14:00:00.000")
    assert day_bounds("2026-03-08", "06:00", la) == ("2026-03-08T13:00:00.000", "2026-03-09T13:00:00.000")
    assert day_bounds("2026-03-07", "06:00", la) == ("2026-03-07T14:00:00.000", "2026-03-08T13:00:00.000")  # 23 h
    assert day_bounds("2026-10-31", "06:00", la) == ("2026-10-31T13:00:00.000", "2026-11-01T14:00:00.000")  # 25 h
    assert day_bounds("2026-11-22", "00:00") == ("2026-11-22T00:00:00.000", "2026-11-23T00:00:00.000")     # as before
    clock = GamingClock(time_zone=la, cutoff=time(6, 0))         # the tables' own bounds: the same day
    assert day_bounds("2026-03-07", "06:00", la) == tuple(
        m.replace(tzinfo=None).isoformat(timespec="milliseconds") for m in clock.day_bounds(date(2026, 3, 7)))
