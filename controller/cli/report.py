"""``table-controller report``: a gaming day's or a shift's figures for the pit, from the journal.

Owns the command's options and its presentation: text in dollars and local times (the
default), ``--csv`` (one row per wager type and a total, amounts in dollars as plain
decimals for a spreadsheet), ``--json`` (the whole report, integer cents, local ISO times),
``--html FILE`` (the one-page printable report with its pictures,
controller/page/report_page.py) and ``--pdf FILE`` (the same on one PDF page,
controller/page/report_pdf.py). The figures are controller/store/report.py's; the
gaming day and shifts are the configuration's ``[gaming_day]``. Without ``--day`` the
report is of the gaming day now in progress.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import sys
from contextlib import closing
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.cli.common import add_journal_options, open_journal, table_config
from controller.cli.progress import Progress
from controller.errors import InputError
from controller.rules.spots import label
from controller.rules.words import money

if TYPE_CHECKING:
    from controller.cli.common import Subparsers


def add_commands(sub: Subparsers) -> None:
    p = sub.add_parser("report", help="a gaming day's or shift's rounds, hold per wager type against "
                       "theory, jackpot hits and irregularities")
    p.add_argument("--day", metavar="YYYY-MM-DD", help="the gaming day (default: the one in progress)")
    p.add_argument("--shift", metavar="NAME", help="one shift of that day (gaming_day.shifts)")
    form = p.add_mutually_exclusive_group()
    form.add_argument("--csv", action="store_true", help="CSV: one row per wager type, dollars")
    form.add_argument("--json", action="store_true", help="JSON: the whole report, integer cents")
    p.add_argument("--html", metavar="FILE", help="also write the printable one-page report with its charts")
    p.add_argument("--pdf", metavar="FILE", help="also write the report with its charts as a one-page PDF")
    add_journal_options(p)
    p.set_defaults(func=cmd_report)


def gaming_day(text: str | None, clock: Any) -> date:
    if text is None:
        return clock.day_of(datetime.now(UTC))
    try:
        day = date.fromisoformat(text)
    except ValueError:
        day = date.min
    if not date.min < day < date.max:   # its hours run into the day before or after, which Python cannot hold
        raise InputError(f"--day {text!r}: a gaming day is a date YYYY-MM-DD, such as 2026-03-07")
    return day


def cmd_report(args: argparse.Namespace) -> int:
    from controller.store.report import build_report
    config = table_config(args)
    clock = config.gaming_day
    day = gaming_day(args.day, clock)
    if args.shift is not None and args.shift not in dict(clock.shifts):
        raise InputError(f"--shift {args.shift!r}: no such shift (gaming_day.shifts: "
                         f"{', '.join(n for n, _ in clock.shifts)})")
    progress = Progress("report: checking the journal", "facts")
    with closing(open_journal(args, progress)) as journal:
        report = build_report(journal, clock, day, args.shift, table=config.table_id, preset=config.preset)
    if args.html:
        from controller.page.report_page import printable
        _write(args.html, printable(report).encode("utf-8"))
    if args.pdf:
        from controller.page.report_pdf import pdf_bytes
        _write(args.pdf, pdf_bytes(report, report["timeline"]))
    timeline = report.pop("timeline")
    if args.json:
        print(json.dumps(report))
    elif args.csv:
        write_csv(report)
    else:
        print_text(report)
    for written in (args.html, args.pdf):
        if written:
            print(f"report: {written} written ({len(timeline)} rounds drawn)", file=sys.stderr)
    n = report["rounds"]
    progress.say(f"report: {n['complete']} rounds complete, {n['void']} void, hold "
                 f"{money(report['totals']['hold'])} on {money(report['totals']['wagered'])} wagered")
    return 0


def _write(file: str, data: bytes) -> None:
    """The printable report into ``file``; where it cannot be written, refused in words (it was a
    traceback), before anything is printed."""
    path = Path(file)
    new = not path.exists()
    try:
        path.write_bytes(data)
    except OSError as err:
        if new:                             # not left behind cut short (a full disk)
            with contextlib.suppress(OSError):
                path.unlink()
        raise InputError(f"{file}: cannot write the report there: {err.strerror or err}") from None


def percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}%"


def write_csv(report: dict[str, Any]) -> None:
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["gaming_day", "shift", "wager_type", "wagers", "wagered", "paid", "taken", "hold",
                  "hold_percent", "theoretical_hold_percent", "sigma_percent"])
    shift = report["shift"] or ""
    for spot, w in report["wagers"].items():
        out.writerow([report["gaming_day"], shift, spot, w["wagers"], dollars(w["wagered"]), dollars(w["paid"]),
                      dollars(w["taken"]), dollars(w["hold"]), _num(w["hold_percent"]),
                      _num(w["theoretical_hold_percent"]), _num(w["sigma_percent"])])
    t = report["totals"]
    out.writerow([report["gaming_day"], shift, "total", "", dollars(t["wagered"]), dollars(t["paid"]),
                  dollars(t["taken"]), dollars(t["hold"]), _num(t["hold_percent"]), "", ""])


def dollars(cents: int) -> str:
    """Cents as a plain decimal for a spreadsheet: -1234.50."""
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def print_text(r: dict[str, Any]) -> None:
    what = f"shift {r['shift']} of gaming day {r['gaming_day']}" if r["shift"] else f"gaming day {r['gaming_day']}"
    print(f"table {r['table']}  preset {r['preset']}  {what}")
    print(f"  from {r['from']} to {r['to']} ({r['gaming_day_settings']['time_zone']})")
    n = r["rounds"]
    print(f"rounds: {n['complete']} complete, {n['void']} void, {n['open']} open")
    print(f"{'wager':<14}{'wagers':>7}{'wagered':>14}{'paid':>14}{'hold':>14}{'hold %':>9}{'theory':>9}"
          f"{'±2σ':>9}")
    for spot, w in r["wagers"].items():
        if not w["wagers"] and not w["paid"] and not w["taken"]:
            continue
        band = "-" if w["sigma_percent"] is None else f"±{2 * w['sigma_percent']:.2f}%"
        print(f"{label(spot):<14}{w['wagers']:>7}{money(w['wagered']):>14}{money(w['paid']):>14}"
              f"{money(w['hold']):>14}{percent(w['hold_percent']):>9}"
              f"{percent(w['theoretical_hold_percent']):>9}{band:>9}")
    t = r["totals"]
    print(f"{'total':<14}{'':>7}{money(t['wagered']):>14}{money(t['paid']):>14}{money(t['hold']):>14}"
          f"{percent(t['hold_percent']):>9}")
    if r["cap_reductions"]:
        print(f"maximum payout reductions: {money(r['cap_reductions'])}")
    ante_bonus = r["wagers"]["ante"].get("ante_bonus_paid", 0)
    if ante_bonus:
        print(f"Ante Bonus paid (in the Ante's paid): {money(ante_bonus)}")
    print("theory: the par sheet's hold for the wagers made; ±2σ: how far chance alone may carry the hold %")
    print(f"dealers: {len(r['dealers']) or 'none'}")
    for d in r["dealers"]:
        rounds = f"round {d['first_round']}" if d["rounds"] == 1 else f"rounds {d['first_round']}-{d['last_round']}"
        print(f"  {d['from']} to {d['to']}  {rounds}  {d['dealer'] or 'no dealer recorded'}  "
              f"({d['complete']} complete, {d['void']} void)")
    for s in r["dealer_sign_ins"]:
        print(f"  {s['at']}  {s['dealer']} {s['action']}" + (f", relieving {s['replaces']}" if s["replaces"] else ""))
    print(f"jackpot hits: {len(r['jackpot_hits']) or 'none'}")
    for h in r["jackpot_hits"]:
        print(f"  {h['at']}  round {h['round']}  position {h['seat']}  {h['jackpot'].upper()}  {money(h['amount'])}")
    print(f"voids: {len(r['voids']) or 'none'}")
    for v in r["voids"]:
        print(f"  {v['at']}  round {v['round']}  {v['reason']}" + (f"  by {v['by']}" if v["by"] else ""))
    print(f"jackpot postings: {len(r['jackpot_postings']) or 'none'}")
    for posting in r["jackpot_postings"]:
        old = posting["old"]
        changes = ", ".join(f"{level.upper()} {money(old[level]) + ' -> ' if level in old else ''}{money(value)}"
                            for level, value in posting["values"].items())
        print(f"  {posting['at']}  {changes}  by {posting['by']}: {posting['reason']}")
    head = r.get("journal_head")
    if head:
        print(f"journal head at the end of the period: fact {head['fact']}, digest {head['digest']}")
        print(f"  keep this line with the day's papers: `table-controller verify --anchor {head['fact']}:"
              f"{head['digest']}` proves a journal still holds it")
    print(f"irregularities: {len(r['irregularities']) or 'none'}")
    for i in r["irregularities"]:
        where = f"round {i['round']}" if i["round"] else "between rounds"
        print(f"  {i['at']}  {i['category'].replace('_', ' ')}  {where}  {i['message']}")
