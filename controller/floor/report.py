"""``table-floor report``: a gaming day of the floor, per table and wager type, from the floor's records.

Owns the floor's daily report. A round belongs to the gaming day on which it completed (its
``complete`` record's time, from ``--day-start`` local time in ``--time-zone`` to the same time the
next day: midnight UTC by default; 23 or 25 hours across a change of summer time);
its figures are those of its last ``settlement`` record, as the table's own meters count them
(controller/store/recall.py): per wager type the wagers, the amount wagered, what was paid to
players (their winning wagers' net) and what was taken, the hold (taken - paid) and the hold
as a percentage of the amount wagered. Beside it stands the theoretical hold percentage: the
par sheet's house edge (controller/rules/parsheet.py) for each round's preset applied to what
was wagered, over what was wagered:

  pair_plus, six_card_bonus   the sheet's house edge
  super6                      per bet size, with the table's MEGA / MAJOR / MINOR values as last
                              posted on the floor by the day's end (without posted values: the
                              edge of the fixed awards alone)
  base_game                   ante, play and ante bonus together: the sheet's house edge per ante
                              times the antes, over what was wagered (ante and play); the sheet
                              has no edge for each of the three alone

Void rounds are counted, never settled. Money is integer cents in JSON, dollars in text and CSV.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from datetime import date, time
from functools import cache
from typing import Any

import psycopg

from controller.floor.schema import FloorError
from controller.rules.cap import paid_after_cap
from controller.rules.gaming import GamingClock, known_zone
from controller.rules.parsheet import par_sheet
from controller.rules.paytable import PayTableError, load_preset
from controller.rules.spots import PAY_ORDER
from controller.rules.words import money

BASE = ("ante", "play", "ante_bonus")

SETTLED = """
WITH done AS (SELECT table_id, round_id FROM floor.records
              WHERE kind = 'complete' AND at >= %(start)s AND at < %(end)s)
SELECT DISTINCT ON (r.table_id, r.round_id) r.table_id, r.round_id, r.body::text
FROM floor.records r JOIN done USING (table_id, round_id)
WHERE r.kind = 'settlement'
ORDER BY r.table_id, r.round_id, r.seq DESC
"""
VOIDED = ("SELECT table_id, count(*) FROM floor.records WHERE kind = 'void' AND at >= %(start)s AND at < %(end)s "
          "GROUP BY table_id")
POSTED = """
SELECT DISTINCT ON (table_id) table_id, body::text FROM floor.records
WHERE kind = 'jackpot_posted' AND at < %(end)s ORDER BY table_id, seq DESC
"""


def add_command(sub: Any) -> None:
    p = sub.add_parser("report", help="a gaming day per table and wager type: hold beside the par sheet's edge")
    p.add_argument("--dsn", default="", help="the floor database (default: libpq's environment)")
    p.add_argument("--day", required=True, metavar="YYYY-MM-DD", help="the gaming day")
    p.add_argument("--day-start", default="00:00", metavar="HH:MM", help="when the gaming day starts, local time "
                   "in --time-zone (default 00:00)")
    p.add_argument("--time-zone", default="UTC", metavar="ZONE", help="the casino's time zone, an IANA name such as "
                   "America/Los_Angeles: the tables' gaming_day.time_zone (default UTC)")
    form = p.add_mutually_exclusive_group()
    form.add_argument("--csv", action="store_true", help="CSV (dollars), one row per table and wager type")
    form.add_argument("--json", action="store_true", help="JSON (cents)")
    p.set_defaults(func=cmd_report)


def day_bounds(day: str, day_start: str, time_zone: str = "UTC") -> tuple[str, str]:
    """The gaming day's start and end as the journals write times (ISO, UTC), for text comparison: from
    ``day_start`` local time on ``day`` to the same local time the next day, each turned into UTC by the
    zone's rules (a day that changes to or from summer time is 23 or 25 hours long), as the tables' own
    reports bound it (controller/rules/gaming.py)."""
    try:
        first = date.fromisoformat(day)
    except ValueError:
        raise FloorError(f"--day {day!r} is not a date YYYY-MM-DD") from None
    try:
        begins = time.fromisoformat(day_start)
    except ValueError:
        raise FloorError(f"--day-start {day_start!r} is not a time HH:MM") from None
    if not known_zone(time_zone):
        raise FloorError(f"--time-zone {time_zone!r} is not an IANA time zone name such as "
                         "America/Los_Angeles (zoneinfo; Debian's tzdata)")
    if first >= date.max:
        raise FloorError(f"--day {day!r}: the calendar has no next day to end it")
    bounds = GamingClock(time_zone=time_zone, cutoff=begins).day_bounds(first)
    start, end = (moment.replace(tzinfo=None).isoformat(timespec="milliseconds") for moment in bounds)
    return start, end


def cmd_report(args: argparse.Namespace) -> int:
    start, end = day_bounds(args.day, args.day_start, args.time_zone)
    with psycopg.connect(args.dsn) as conn:
        report = floor_report(conn, start, end)
    report.update(day=args.day, day_start=args.day_start, time_zone=args.time_zone, start=start + "Z", end=end + "Z")
    if args.json:
        print(json.dumps(report, indent=2))
    elif args.csv:
        write_csv(report, sys.stdout)
    else:
        print(text(report))
    return 0


def floor_report(conn: psycopg.Connection, start: str, end: str) -> dict[str, Any]:
    bounds = {"start": start, "end": end}
    posted = {t: doc.get("values") if isinstance(doc := json.loads(body), dict) else None
              for t, body in conn.execute(POSTED, bounds).fetchall()}
    voided: dict[str, int] = dict(conn.execute(VOIDED, bounds).fetchall())
    tables: dict[str, dict[str, Any]] = {}
    unreadable: list[dict[str, Any]] = []
    for table_id, round_id, body in conn.execute(SETTLED, bounds).fetchall():
        t = tables.setdefault(table_id, _new_table())
        settlement = json.loads(body)
        if not _readable(settlement):           # one table's odd record: named, never the report's end
            unreadable.append({"table": table_id, "round": round_id})
            continue
        jackpots = posted.get(table_id)
        _add_round(t, settlement, jackpots if isinstance(jackpots, dict) else None)
    for table_id, n in voided.items():
        tables.setdefault(table_id, _new_table())["rounds_void"] = n
    report: dict[str, Any] = {"tables": {tid: _finish(t) for tid, t in sorted(tables.items())}}
    if unreadable:
        report["unreadable"] = unreadable
    return report


def _readable(settlement: Any) -> bool:
    """Whether a settlement record has the shape the report counts (records are checked on arrival for
    their MAC and chain, not their sense: a table with a bug, or in hostile hands, forwards anything)."""
    if not isinstance(settlement, dict) or not isinstance(settlement.get("seats"), list) \
            or not isinstance(settlement.get("preset"), str | None):
        return False
    for seat in settlement["seats"]:
        if not isinstance(seat, dict) or not isinstance(seat.get("wagers"), dict) \
                or not isinstance(seat.get("results"), dict) or "ante" not in seat["wagers"] or "play" not in seat \
                or not set(seat["results"]) <= set(PAY_ORDER):
            return False
        if not all(isinstance(v, int) and not isinstance(v, bool)
                   for v in (*seat["wagers"].values(), *seat["results"].values(), seat.get("cap_reduction", 0))):
            return False
        if seat.get("cap_reduction", 0) < 0:
            return False
    return True


def _new_table() -> dict[str, Any]:
    rows = {w: {"rounds": 0, "wagers": 0, "wagered": 0, "paid": 0, "taken": 0, "theoretical": 0.0,
                "has_theory": False} for w in (*PAY_ORDER, "base_game")}
    return {"rounds": 0, "rounds_void": 0, "presets": set(), "wagers": rows}


def _add_round(t: dict[str, Any], settlement: dict[str, Any], jackpots: dict[str, int] | None) -> None:
    t["rounds"] += 1
    preset = settlement.get("preset")
    t["presets"].add(preset)
    edges = _edges(preset, json.dumps(jackpots, sort_keys=True) if jackpots else None)
    seen: set[str] = set()
    rows = t["wagers"]
    for seat in settlement["seats"]:
        stakes = dict(seat["wagers"], play=seat["wagers"]["ante"] if seat["play"] else 0)
        # each wager as paid: a cut of the maximum payout off the wager it was reached on (controller/rules/cap.py)
        for spot, result in paid_after_cap(seat["results"], seat.get("cap_reduction", 0)).items():
            stake = stakes.get(spot, 0)
            edge = edges.get(f"super6/{stake}" if spot == "super6" else spot)
            if spot == "ante":              # the base game's edge is per ante, over ante, play and bonus
                edge = edges.get("base_game")
            for name in (spot, "base_game") if spot in BASE else (spot,):
                row = rows[name]
                if stake:
                    row["wagers"] += name == spot
                    row["wagered"] += stake
                    seen.add(name)
                row["paid" if result > 0 else "taken"] += abs(result)
            if stake and edge is not None:
                target = rows["base_game"] if spot == "ante" else rows[spot]
                target["theoretical"] += stake * edge
                target["has_theory"] = True
    for name in seen:
        rows[name]["rounds"] += 1


@cache
def _edges(preset: str | None, jackpots_text: str | None) -> dict[str, float]:
    """The par sheet's house edge per wager type (and per Super 6 bet size) for a preset."""
    if preset is None:
        return {}
    try:
        sheet = par_sheet(load_preset(preset), json.loads(jackpots_text) if jackpots_text else None)
    except (PayTableError, ValueError, KeyError):
        return {}                               # a table's own pay table file: no par sheet on the floor
    edges = {"pair_plus": sheet["pair_plus"]["house_edge"]["decimal"],
             "base_game": sheet["ante_play"]["house_edge_per_ante"]["decimal"]}
    if "six_card_bonus" in sheet:
        edges["six_card_bonus"] = sheet["six_card_bonus"]["house_edge"]["decimal"]
    for bet, row in sheet.get("super6", {}).get("by_bet", {}).items():
        edge = row.get("house_edge") or {"decimal": -row["return_excluding_jackpots"]["decimal"]}
        edges[f"super6/{bet}"] = edge["decimal"]
    return edges


def _finish(t: dict[str, Any]) -> dict[str, Any]:
    out = {"rounds": t["rounds"], "rounds_void": t["rounds_void"], "presets": sorted(p for p in t["presets"] if p),
           "wagers": {}}
    for name, row in t["wagers"].items():
        if not row["wagered"] and not row["paid"] and not row["taken"]:
            continue
        hold = row["taken"] - row["paid"]
        out["wagers"][name] = {
            "rounds": row["rounds"], "wagers": row["wagers"], "wagered": row["wagered"], "paid": row["paid"],
            "hold": hold, "hold_percent": round(100 * hold / row["wagered"], 3) if row["wagered"] else None,
            "theoretical_percent": round(100 * row["theoretical"] / row["wagered"], 3)
            if row["has_theory"] and row["wagered"] else None}
    return out


COLUMNS = ("table", "wager", "rounds", "wagers", "wagered", "paid", "hold", "hold_percent", "theoretical_percent")


def _lines(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"table": tid, "wager": name, **row} for tid, t in report["tables"].items()
            for name, row in t["wagers"].items()]


def write_csv(report: dict[str, Any], out: Any) -> None:
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    for line in _lines(report):
        w.writerow([line["table"], line["wager"], line["rounds"], line["wagers"],
                    *(f"{line[k] / 100:.2f}" for k in ("wagered", "paid", "hold")),
                    "" if line["hold_percent"] is None else line["hold_percent"],
                    "" if line["theoretical_percent"] is None else line["theoretical_percent"]])


def text(report: dict[str, Any]) -> str:
    head = f"Gaming day {report['day']} (from {report['day_start']} {report['time_zone']})"
    if not report["tables"]:
        return head + ": no rounds on the floor"
    rows = [head, f"{'table':<10} {'wager':<15} {'rounds':>6} {'wagered':>13} {'paid':>13} {'hold':>13} "
            f"{'hold %':>8} {'theory %':>8}"]
    for tid, t in report["tables"].items():
        for name, r in t["wagers"].items():
            pct = "" if r["hold_percent"] is None else f"{r['hold_percent']:.2f}"
            theory = "" if r["theoretical_percent"] is None else f"{r['theoretical_percent']:.2f}"
            rows.append(f"{tid:<10} {name:<15} {r['rounds']:>6} {money(r['wagered']):>13} {money(r['paid']):>13} "
                        f"{money(r['hold']):>13} {pct:>8} {theory:>8}")
        if t["rounds_void"]:
            rows.append(f"{tid:<10} {t['rounds']} rounds settled, {t['rounds_void']} void")
    for odd in report.get("unreadable", []):
        rows.append(f"{odd['table']:<10} round {odd['round']}: its settlement record is not one the report can "
                    "read: left out, look at the table's journal")
    return "\n".join(rows)
