"""The report as people read it: an HTML section with its pictures, and a printable one-page file.

Owns the presentation of a report (controller/store/report.py) in HTML: the figures per
wager type in dollars beside the theoretical hold, the charts (controller/page/charts.py:
hold % per wager type against theory and its ±2σ band, rounds per hour, device faults per
hour), jackpot hits, voids and irregularities in the table's time zone (gaming_day.time_zone), in
the reader's language when the page asks (``tr``: the page's catalogue, controller/page/languages.py;
English, the ids themselves, for the CLI and the file). ``fragment`` is what the
supervisor's page shows (styled by static/report.css: no inline style, the page's
Content-Security-Policy forbids it); ``printable`` is a whole document for the shift's
paperwork (``table-controller report --html FILE``), its style inside, laid out for one
A4 or Letter page in landscape.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from html import escape
from typing import Any

from controller.page import charts
from controller.rules.spots import label
from controller.rules.words import money

IRREGULARITIES_SHOWN = 25          # one page: the rest are counted (the CLI and JSON list them all)
Translate = Callable[[str], str]


def english(text: str) -> str:
    return text


def when(at: str | None) -> str:
    """A local ISO time of the report ("2026-03-07T14:05:33-05:00") as people read it: the date and
    the time of day in the table's zone, which the report's period line names once."""
    return (at or "")[:19].replace("T", " ")


def pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}%"


def hours(report: dict[str, Any]) -> list[str]:
    """The local hours of the period ("2026-03-07T14:00"), in order (23 or 25 on a day summer
    time begins or ends: the clock's hours as they came)."""
    start = datetime.fromisoformat(report["from"])
    end = datetime.fromisoformat(report["to"])
    zone = start.tzinfo
    out: list[str] = []
    moment = start
    while moment < end:
        label_ = moment.astimezone(zone).strftime("%Y-%m-%dT%H:00")
        if label_ not in out:
            out.append(label_)
        moment += timedelta(hours=1)
    return out


def _local(report: dict[str, Any]):
    zone = datetime.fromisoformat(report["from"]).tzinfo

    def local(at: str) -> datetime:
        return datetime.fromisoformat(at).astimezone(zone)
    return local


def pictures(report: dict[str, Any], timeline: list[dict], tr: Translate = english) -> list[str]:
    """Every chart of the report, as SVG text."""
    local = _local(report)
    chart_words = {"empty": tr("no wagers in this period"), "band": tr("theoretical hold ±2σ"),
                   "theory": tr("theoretical hold {value}%"), "hold": tr("hold {value}%"),
                   "verdict": tr("hold {hold}% · theory {theory}% ±{band}"), "outside": tr("OUTSIDE")}
    out = []
    for spot, row in report["wagers"].items():
        if row["wagers"]:
            out.append(charts.hold_chart(tr("{spot}: hold % against theory ±2σ").format(spot=tr(label(spot))),
                                         charts.hold_points(timeline, spot, local), chart_words))
    slots = hours(report)
    out.append(charts.bars(tr("Rounds per hour"), [(h[-5:], report["rounds_per_hour"].get(h, 0)) for h in slots],
                           "rounds"))
    faults = dict.fromkeys(slots, 0)
    for item in report["irregularities"]:
        if item["category"] == "device_fault":
            hour = datetime.fromisoformat(item["at"]).strftime("%Y-%m-%dT%H:00")
            faults[hour] = faults.get(hour, 0) + 1
    out.append(charts.bars(tr("Device faults per hour"), [(h[-5:], n) for h, n in faults.items()], "faults"))
    return out


def fragment(report: dict[str, Any], timeline: list[dict], tr: Translate = english,
             said: Translate = english) -> str:
    """The report as HTML; ``tr`` gives the report's own words in the reader's language, ``said`` the
    table's messages it quotes (a void's reason, an irregularity)."""
    r = report
    what = (tr("shift {shift} of gaming day {day}").format(shift=r["shift"], day=r["gaming_day"]) if r["shift"]
            else tr("gaming day {day}").format(day=r["gaming_day"]))
    n = r["rounds"]
    period = tr("{start} to {end} ({zone}) · preset {preset} · rounds: {complete} complete, {void} void, "
                "{open} open").format(start=when(r["from"])[:16], end=when(r["to"])[:16],
                                      zone=r["gaming_day_settings"]["time_zone"], preset=r["preset"],
                                      complete=n["complete"], void=n["void"], open=n["open"])
    heads = "".join(f"<th>{escape(h)}</th>" for h in (tr("wager"), tr("wagers"), tr("wagered"), tr("paid"),
                                                     tr("hold"), tr("hold %"), tr("theory"), "±2σ"))
    title = tr("Table {table}").format(table=r["table"])
    out = [f'<section class="report"><h2>{escape(title)} · {escape(what)}</h2>',
           f'<p class="period">{escape(period)}</p>',
           f'<table class="figures"><thead><tr>{heads}</tr></thead><tbody>']
    for spot, w in r["wagers"].items():
        if not (w["wagers"] or w["paid"] or w["taken"]):
            continue
        band = "–" if w["sigma_percent"] is None else f"±{2 * w['sigma_percent']:.2f}"
        out.append(f"<tr><td>{escape(tr(label(spot)))}</td><td>{w['wagers']}</td><td>{money(w['wagered'])}</td>"
                   f"<td>{money(w['paid'])}</td><td>{money(w['hold'])}</td><td>{pct(w['hold_percent'])}</td>"
                   f"<td>{pct(w['theoretical_hold_percent'])}</td><td>{band}</td></tr>")
    t = r["totals"]
    total = tr("total")
    out.append(f'<tr class="total"><td>{escape(total)}</td><td></td><td>{money(t["wagered"])}</td>'
               f'<td>{money(t["paid"])}</td>'
               f'<td>{money(t["hold"])}</td><td>{pct(t["hold_percent"])}</td><td></td><td></td></tr>'
               "</tbody></table>")
    out.append('<p class="notes">' + " · ".join(escape(x) for x in notes(r, tr)) + "</p>")
    out.append('<div class="charts">' + "".join(pictures(r, timeline, tr)) + "</div>")
    out.append('<div class="lists">')
    rnd, seat, between = tr("round {round}"), tr("position {position}"), tr("between rounds")
    out.append(_list(tr("Dealers"), dealer_lines(r, tr), tr))
    out.append(_list(tr("Jackpot hits"), [
        f"{when(h['at'])} · {rnd.format(round=h['round'])} · {seat.format(position=h['seat'])}"
        f" · {h['jackpot'].upper()} {money(h['amount'])}" for h in r["jackpot_hits"]], tr))
    out.append(_list(tr("Jackpot postings"), [
        f"{when(p['at'])} · " + ", ".join(f"{level.upper()} {money(value)}" for level, value in p["values"].items())
        + " · " + tr("by {by}").format(by=p["by"]) + f" · {said(p['reason'] or '')}"
        for p in r.get("jackpot_postings", [])], tr))
    out.append(_list(tr("Voids"), [f"{when(v['at'])} · {rnd.format(round=v['round'])} · {said(v['reason'])}"
                                   + (" · " + tr("by {by}").format(by=v["by"]) if v["by"] else "")
                                   for v in r["voids"]], tr))
    items = [f"{when(i['at'])} · {tr(i['category'].replace('_', ' '))} · "
             f"{rnd.format(round=i['round']) if i['round'] else between} · {said(i['message'])}"
             for i in r["irregularities"]]
    more = len(items) - IRREGULARITIES_SHOWN
    out.append(_list(tr("Irregularities"), items[:IRREGULARITIES_SHOWN] + (
        [tr("and {more} more (table-controller report lists them all)").format(more=more)] if more > 0 else []), tr))
    out.append("</div></section>")
    return "".join(out)


def dealer_lines(r: dict[str, Any], tr: Translate = english) -> list[str]:
    """Who dealt which rounds, then each sign-in and sign-out (the page's, the file's and the PDF's)."""
    out = []
    for d in r.get("dealers", []):
        rounds = (tr("round {round}").format(round=d["first_round"]) if d["rounds"] == 1 else
                  tr("rounds {first} to {last}").format(first=d["first_round"], last=d["last_round"]))
        out.append(f"{when(d['from'])[11:16]}–{when(d['to'])[11:16]} · {rounds} · "
                   + (d["dealer"] or tr("no dealer recorded")) + " · "
                   + tr("{complete} complete, {void} void").format(complete=d["complete"], void=d["void"]))
    for s in r.get("dealer_sign_ins", []):
        did = (tr("{name} signed in, relieving {other}").format(name=s["dealer"], other=s["replaces"])
               if s["replaces"] else tr("{name} signed in").format(name=s["dealer"])
               if s["action"] == "signed in" else tr("{name} signed out").format(name=s["dealer"]))
        out.append(f"{when(s['at'])[11:19]} · {did}")
    return out


def notes(r: dict[str, Any], tr: Translate = english) -> list[str]:
    """The figures' footnotes, for the page and the PDF alike."""
    said = []
    if r["wagers"]["ante"].get("ante_bonus_paid"):
        said.append(tr("Ante Bonus paid (in the Ante's paid): {amount}").format(
            amount=money(r["wagers"]["ante"]["ante_bonus_paid"])))
    if r["cap_reductions"]:
        said.append(tr("maximum payout reductions: {amount}").format(amount=money(r["cap_reductions"])))
    said.append(tr("theory: the par sheet's hold for the wagers made; ±2σ: how far chance alone may carry "
                   "the hold % (about 95 days in 100 stay inside)"))
    return said


def _list(title: str, items: list[str], tr: Translate = english) -> str:
    nothing = tr("none")
    body = "".join(f"<li>{escape(i)}</li>" for i in items) or f"<li>{escape(nothing)}</li>"
    return f'<div class="list"><h3>{escape(title)} ({len(items) if items else 0})</h3><ul>{body}</ul></div>'


PRINT_STYLE = """
@page { size: landscape; margin: 10mm; }
body { font: 10pt sans-serif; color: #222; margin: 0; }
h2 { font-size: 14pt; margin: 0 0 2mm; }
h3 { font-size: 10pt; margin: 2mm 0 1mm; }
p { margin: 1mm 0; }
table.figures { border-collapse: collapse; margin: 2mm 0; }
table.figures th, table.figures td { border-bottom: 1px solid #ccc; padding: 0.5mm 3mm; text-align: right; }
table.figures th:first-child, table.figures td:first-child { text-align: left; }
tr.total td { font-weight: bold; }
.notes { font-size: 8pt; color: #555; }
.charts { display: grid; grid-template-columns: repeat(4, 1fr); gap: 2mm; }
.charts svg { width: 100%; height: auto; }
.lists { display: grid; grid-template-columns: 1fr 1fr 2fr; gap: 4mm; font-size: 8pt; }
ul { margin: 0; padding-left: 4mm; }
"""


def printable(report: dict[str, Any]) -> str:
    """A whole HTML document of the report, for printing on one page."""
    title = f"Table {report['table']} · gaming day {report['gaming_day']}" + \
        (f" · shift {report['shift']}" if report["shift"] else "")
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f"<title>{escape(title)}</title><style>{PRINT_STYLE}</style></head><body>"
            f"{fragment(report, report.get('timeline', []))}</body></html>\n")
