"""``table-controller report`` checked against the journal by an independent computation.

The journal is made by a real seeded autoplay run (the whole table on simulated devices), then
one round voided by a misdeal. The test recalls every round and settles it again with the rules
engine (``settle``'s path), sums wagered, paid and taken per wager type itself, and compares;
the theoretical hold is checked against the par sheet's house edges.
"""

import csv
import io
import json
from datetime import UTC, datetime, timedelta

import pytest

from controller.cli import main
from controller.rules.parsheet import par_sheet
from controller.rules.paytable import load_preset
from controller.rules.roundio import settle_json
from controller.store.journal import Journal
from controller.store.recall import recall
from tests.support.rig import config_text, table

ROUNDS = 40


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    base = tmp_path_factory.mktemp("report")
    data = base / "data"
    with table(base / "a", "sheet-004", autoplay=True, rounds=ROUNDS, seed=19, data_dir=data) as rig:
        assert rig.run.dealer.done.wait(120)
    with table(base / "b", "sheet-004", data_dir=data) as rig:      # then a misdeal: a void and an irregularity
        rig.open_and_bet({2: {"ante": 500, "pair_plus": 500}})
        rig.sim.shoe.next_hand_size = 4
        rig.deal()
        rig.state("void")
    # a gaming day far from now's cut-off: the whole run lies in one gaming day, in Madrid's time
    cutoff = (datetime.now(UTC) + timedelta(hours=12)).strftime("%H:00")
    config = base / "report.toml"
    config.write_text(config_text("sheet-004") + f'\n[gaming_day]\ntime_zone = "Europe/Madrid"\n'
                      f'cutoff = "{cutoff}"\nshifts = {{ early = "{cutoff}" }}\n', encoding="utf-8")
    return data, config


def report(capsys, played, *extra):
    data, config = played
    code = main(["report", "--data-dir", str(data), "--config", str(config), *extra])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


def independent(data):
    """Per wager type: wagers, wagered, paid and taken, from recalled rounds settled again."""
    journal = Journal.read_only(data / "journal.sqlite", keyed=False)
    try:
        rounds = recall(journal, last=10_000)
    finally:
        journal.close()
    sums = {s: [0, 0, 0, 0] for s in ("ante", "play", "pair_plus", "six_card_bonus", "super6")}
    complete = [r for r in rounds if r["table"]["status"] == "complete"]
    for doc in complete:
        for seat in doc["seats"]:           # the wagers as recalled, the Play only where played
            wagers = dict(seat["wagers"], play=seat["wagers"]["ante"] if seat.get("play") else 0)
            for spot, amount in wagers.items():
                if amount:
                    sums[spot][0] += 1
                    sums[spot][1] += amount
        again = settle_json(doc, load_preset, None)
        for seat in again["seats"]:
            for line, result in seat["results"].items():
                spot = "ante" if line == "ante_bonus" else line
                sums[spot][2 if result > 0 else 3] += abs(result)
    return rounds, complete, sums


def test_the_report_agrees_with_the_journal_settled_again(capsys, played):
    doc = json.loads(report(capsys, played, "--json"))
    rounds, complete, sums = independent(played[0])
    assert doc["rounds"] == {"complete": len(complete), "void": 1, "open": 0} and len(complete) >= ROUNDS
    assert doc["first_round"] == rounds[0]["id"] and doc["last_round"] == rounds[-1]["id"]
    for spot, (count, wagered, paid, taken) in sums.items():
        row = doc["wagers"][spot]
        assert (row["wagers"], row["wagered"], row["paid"], row["taken"]) == (count, wagered, paid, taken), spot
        assert row["hold"] == taken - paid
        assert row["hold_percent"] == pytest.approx(100 * (taken - paid) / wagered, abs=1e-4)
    assert sum(c for _, c, _, _ in sums.values()) > 0 and doc["wagers"]["super6"]["wagers"] > 0
    assert doc["totals"]["wagered"] == sum(s[1] for s in sums.values())
    # the void and the misdeal, at the local time of the journal's record
    (void,) = doc["voids"]
    assert void["round"] == rounds[-1]["id"] and "4 cards" in void["reason"]
    misdeals = [i for i in doc["irregularities"] if i["category"] == "misdeal"]
    assert len(misdeals) == 1 and misdeals[0]["round"] == rounds[-1]["id"]
    assert misdeals[0]["at"] == datetime.fromisoformat(misdeals[0]["utc"]).astimezone(
        __import__("zoneinfo").ZoneInfo("Europe/Madrid")).isoformat(timespec="seconds")
    assert sum(doc["rounds_per_hour"].values()) == len(rounds)


def test_theory_is_the_par_sheets_hold_for_the_wagers_made(capsys, played):
    doc = json.loads(report(capsys, played, "--json"))
    sheet = par_sheet(load_preset("sheet-004"), {"mega": 10000000, "major": 2500000, "minor": 250000})
    rows = doc["wagers"]
    assert rows["pair_plus"]["theoretical_hold_percent"] == pytest.approx(
        100 * sheet["pair_plus"]["house_edge"]["decimal"], abs=1e-4)
    assert rows["six_card_bonus"]["theoretical_hold_percent"] == pytest.approx(
        100 * sheet["six_card_bonus"]["house_edge"]["decimal"], abs=1e-4)
    # Ante (with its bonus) and Play together: the par sheet's edge per Ante when every Ante was played
    # or folded as the sheet's strategy says; the simulated players play that strategy
    ante, play = rows["ante"], rows["play"]
    expected = ante["theoretical_hold"] + play["theoretical_hold"]
    edge = sheet["ante_play"]["house_edge_per_ante"]["decimal"]
    p_play = sheet["ante_play"]["probability_of_play"]["decimal"]
    assert ante["theoretical_hold_percent"] + p_play * play["theoretical_hold_percent"] == \
        pytest.approx(100 * edge, abs=1e-3)
    assert expected == pytest.approx(ante["wagered"] * ante["theoretical_hold_percent"] / 100
                                     + play["wagered"] * play["theoretical_hold_percent"] / 100, abs=1)
    assert all(r["sigma_percent"] > 0 for r in rows.values() if r["wagers"])


def test_text_is_in_dollars_and_local_time_and_csv_in_plain_decimals(capsys, played):
    data, _ = played
    doc = json.loads(report(capsys, played, "--json"))
    text = report(capsys, played)
    ante = doc["wagers"]["ante"]
    dollars = f"${ante['wagered'] // 100:,}.{ante['wagered'] % 100:02d}"
    assert dollars in text and "(Europe/Madrid)" in text and "misdeal" in text
    assert str(ante["wagered"]) + " " not in text            # no bare cents
    rows = list(csv.DictReader(io.StringIO(report(capsys, played, "--csv"))))
    assert [r["wager_type"] for r in rows] == ["ante", "play", "pair_plus", "six_card_bonus", "super6", "total"]
    assert rows[0]["wagered"] == f"{ante['wagered'] // 100}.{ante['wagered'] % 100:02d}"
    shift = json.loads(report(capsys, played, "--json", "--shift", "early", "--day", doc["gaming_day"]))
    assert shift["wagers"] == doc["wagers"] and shift["shift"] == "early"


def test_a_bad_day_or_shift_is_refused_in_words(capsys, played):
    data, config = played
    assert main(["report", "--data-dir", str(data), "--config", str(config), "--day", "7 March"]) == 2
    assert "--day '7 March': a gaming day is a date YYYY-MM-DD" in capsys.readouterr().err
    assert main(["report", "--data-dir", str(data), "--config", str(config), "--shift", "late"]) == 2
    assert "no such shift (gaming_day.shifts: early)" in capsys.readouterr().err
    empty = json.loads(report(capsys, played, "--json", "--day", "2001-01-01"))
    assert empty["rounds"] == {"complete": 0, "void": 0, "open": 0} and empty["wagers"]["ante"]["hold_percent"] is None


def test_the_pdf_is_one_page_with_the_json_reports_totals_and_charts(tmp_path, capsys, played):
    from pypdf import PdfReader
    doc = json.loads(report(capsys, played, "--json"))
    pdf = tmp_path / "day.pdf"
    report(capsys, played, "--pdf", str(pdf))
    reader = PdfReader(pdf)
    assert len(reader.pages) == 1
    box = reader.pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (842, 595)        # A4 landscape, points
    text = reader.pages[0].extract_text()
    t = doc["totals"]
    for cents in (t["wagered"], t["paid"], t["hold"]):
        assert f"${abs(cents) // 100:,}.{abs(cents) % 100:02d}" in text, cents
    assert f"{t['hold_percent']:.2f}%" in text
    for spot in ("ante", "pair_plus", "super6"):                  # each wager type's line, in dollars
        w = doc["wagers"][spot]
        assert f"${w['wagered'] // 100:,}.{w['wagered'] % 100:02d}" in text, spot
    assert f"gaming day {doc['gaming_day']}" in text and "(Europe/Madrid)" in text
    assert f"{doc['rounds']['complete']} complete, 1 void" in text
    # the charts: a hold chart per wager type made, rounds and faults per hour, their words drawn
    assert text.count("hold % against theory ±2 SD") == sum(1 for w in doc["wagers"].values() if w["wagers"])
    assert "Rounds per hour" in text and "Device faults per hour" in text
    assert "misdeal" in text and "4 cards" in text                # the void and the irregularity


def test_a_long_day_still_fits_one_page_and_counts_what_it_left_out(tmp_path):
    from pypdf import PdfReader

    from controller.page.report_pdf import pdf_bytes
    zero = {"wagers": 0, "wagered": 0, "paid": 0, "taken": 0, "hold": 0, "hold_percent": None,
            "theoretical_hold_percent": None, "sigma_percent": None}
    day = {"table": "T-1", "preset": "sheet-004", "gaming_day": "2026-03-07", "shift": None,
           "from": "2026-03-07T06:00:00+01:00", "to": "2026-03-08T06:00:00+01:00",
           "gaming_day_settings": {"time_zone": "Europe/Madrid"}, "rounds": {"complete": 0, "void": 0, "open": 0},
           "wagers": {s: dict(zero) for s in ("ante", "play", "pair_plus", "six_card_bonus", "super6")},
           "totals": {"wagered": 0, "paid": 0, "taken": 0, "hold": 0, "hold_percent": None},
           "cap_reductions": 0, "rounds_per_hour": {}, "jackpot_hits": [], "voids": [],
           "irregularities": [{"at": f"2026-03-07T{10 + i // 60:02d}:{i % 60:02d}:00+01:00", "round": i,
                               "category": "device_fault", "message": f"The shoe is not answering ({i}) — "
                               + "a long explanation of the fault that takes most of a line " * 2}
                              for i in range(300)]}
    day["wagers"]["ante"]["ante_bonus_paid"] = 0
    out = tmp_path / "long.pdf"
    out.write_bytes(pdf_bytes(day, []))
    reader = PdfReader(out)
    assert len(reader.pages) == 1
    text = reader.pages[0].extract_text()
    shown = text.count("The shoe is not answering (")
    assert 5 < shown < 300
    assert f"and {300 - shown} more (table-controller report lists them all)" in text.replace("\n", " ")
    assert "Irregularities (300)" in text and "Jackpot hits (0)" in text


def test_the_report_lists_the_days_jackpot_postings_and_the_journals_head(capsys, played):
    """Who posted which values, when (issue 31 item 14), and the head to keep outside (issue 33 item 9)."""
    import json as _json
    doc = _json.loads(report(capsys, played, "--json"))
    [posting] = doc["jackpot_postings"]             # the opening values, posted by the configuration
    assert posting["by"] == "configuration" and posting["values"] == {"mega": 10_000_000, "major": 2_500_000,
                                                                       "minor": 250_000}
    assert posting["at"].endswith(("+01:00", "+02:00"))                        # the table's local time (Madrid)
    assert doc["journal_head"]["fact"] > 0 and len(doc["journal_head"]["digest"]) == 64
    text = report(capsys, played)
    assert "jackpot postings: 1" in text and "MEGA $100,000.00" in text and "by configuration" in text
    assert f"fact {doc['journal_head']['fact']}, digest {doc['journal_head']['digest']}" in text
