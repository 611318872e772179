"""The report as a one-page PDF for the shift's paperwork (``table-controller report --pdf FILE``).

Owns the PDF's layout of a report (controller/store/report.py): the same figures, notes,
charts and lists as the printable HTML (controller/page/report_page.py), on one A4 page in
landscape. The charts are the very SVG of controller/page/charts.py, drawn by fpdf2 (pure
Python: no browser, no system library). The page is one page whatever the day held: the
lists are cut where the page ends, and what was left out is counted (``table-controller
report`` lists it all).

The text uses the PDF's core Helvetica, which every reader has and which needs no font file
on the table PC; its alphabet is Latin-1, so the few signs outside it are spelled out
("±2σ" is "±2 SD").
"""

from __future__ import annotations

import io
import logging
import re
from typing import Any

from controller.page.report_page import dealer_lines, notes, pct, pictures
from controller.rules.spots import label
from controller.rules.words import money

PAGE_W, PAGE_H, MARGIN = 297.0, 210.0, 10.0          # A4 landscape, millimetres
CHARTS_PER_ROW = 4
CHART_GAP = 3.0
LINE = 3.2                                           # a list line at 7 pt
# the signs the report uses that Latin-1 lacks, as the page spells them
SPELLED = {"σ": " SD", "–": "-", "—": "-", "…": "...", "‘": "'", "’": "'", "“": '"', "”": '"', "−": "-",
           "✓": "v"}
SVG_TITLE = re.compile(r"<title>.*?</title>", re.S)   # tooltips: fpdf2 ignores them, and says so


def latin(text: str) -> str:
    """``text`` in the core font's alphabet: spelled out where it can be, "?" where not."""
    for sign, spelled in SPELLED.items():
        text = text.replace(sign, spelled)
    return text.encode("latin-1", "replace").decode("latin-1")


def pdf_bytes(report: dict[str, Any], timeline: list[dict]) -> bytes:
    """The one-page PDF of ``report`` (its ``timeline`` gives the charts' points)."""
    from fpdf import FPDF  # loaded only for --pdf: nothing else of the table needs it

    pdf = FPDF(orientation="L", unit="mm", format="A4")
    pdf.set_auto_page_break(False)                  # one page: the layout cuts, never adds a page
    pdf.set_margins(MARGIN, MARGIN, MARGIN)
    pdf.set_title(latin(_title(report)))
    pdf.set_creator("table-controller report --pdf")
    pdf.add_page()
    r = report
    pdf.set_font("helvetica", "B", 13)
    pdf.cell(0, 6, latin(_title(r)), new_x="LMARGIN", new_y="NEXT")
    n = r["rounds"]
    pdf.set_font("helvetica", "", 8.5)
    pdf.cell(0, 4.5, latin(f"{r['from'].replace('T', ' ')} to {r['to'].replace('T', ' ')} "
                           f"({r['gaming_day_settings']['time_zone']}) · preset {r['preset']} · rounds: "
                           f"{n['complete']} complete, {n['void']} void, {n['open']} open"),
             new_x="LMARGIN", new_y="NEXT")
    _figures(pdf, r)
    pdf.set_font("helvetica", "", 7)
    pdf.set_text_color(85)
    pdf.multi_cell(0, 3.2, latin(" · ".join(notes(r))), new_x="LMARGIN", new_y="NEXT")
    pdf.set_text_color(0)
    _charts(pdf, pictures(r, timeline))
    _lists(pdf, r)
    return bytes(pdf.output())


def _title(r: dict[str, Any]) -> str:
    what = f"shift {r['shift']} of gaming day {r['gaming_day']}" if r["shift"] else f"gaming day {r['gaming_day']}"
    return f"Table {r['table']} · {what}"


def _figures(pdf: Any, r: dict[str, Any]) -> None:
    widths = (34, 18, 30, 30, 30, 20, 20, 20)
    head = ("wager", "wagers", "wagered", "paid", "hold", "hold %", "theory", "±2σ")
    rows = []
    for spot, w in r["wagers"].items():
        if not (w["wagers"] or w["paid"] or w["taken"]):
            continue
        band = "–" if w["sigma_percent"] is None else f"±{2 * w['sigma_percent']:.2f}"
        rows.append((label(spot), str(w["wagers"]), money(w["wagered"]), money(w["paid"]), money(w["hold"]),
                     pct(w["hold_percent"]), pct(w["theoretical_hold_percent"]), band))
    t = r["totals"]
    total = ("total", "", money(t["wagered"]), money(t["paid"]), money(t["hold"]), pct(t["hold_percent"]), "", "")
    pdf.ln(1)
    for i, row in enumerate([head, *rows, total]):
        pdf.set_font("helvetica", "B" if i == 0 or row is total else "", 8.5)
        for j, (cell, width) in enumerate(zip(row, widths, strict=True)):
            pdf.cell(width, 4.6, latin(cell), border="B", align="L" if j == 0 else "R")
        pdf.ln(4.6)
    pdf.ln(1)


def _charts(pdf: Any, svgs: list[str]) -> None:
    width = (PAGE_W - 2 * MARGIN - (CHARTS_PER_ROW - 1) * CHART_GAP) / CHARTS_PER_ROW
    top = pdf.get_y() + 1
    height = 0.0
    quiet = logging.getLogger("fpdf.svg")
    level = quiet.level
    quiet.setLevel(logging.ERROR)       # fpdf2 notes each SVG feature it ignores; none carries a figure
    try:
        for i, svg in enumerate(svgs):
            x = MARGIN + (i % CHARTS_PER_ROW) * (width + CHART_GAP)
            y = top + (i // CHARTS_PER_ROW) * (height + CHART_GAP)
            drawn = pdf.image(io.BytesIO(latin(SVG_TITLE.sub("", svg)).encode("utf-8")), x=x, y=y, w=width)
            height = drawn.rendered_height
    finally:
        quiet.setLevel(level)
    rows = -(-len(svgs) // CHARTS_PER_ROW)
    pdf.set_y(top + rows * (height + CHART_GAP))


def _lists(pdf: Any, r: dict[str, Any]) -> None:
    columns = [
        ("Dealers", dealer_lines(r), 1),
        ("Jackpot hits", [f"{h['at']} · round {h['round']} · position {h['seat']} · "
                          f"{h['jackpot'].upper()} {money(h['amount'])}" for h in r["jackpot_hits"]], 1),
        ("Voids", [f"{v['at']} · round {v['round']} · {v['reason']}" + (f" · by {v['by']}" if v["by"] else "")
                   for v in r["voids"]], 1),
        ("Irregularities", [f"{i['at']} · {i['category'].replace('_', ' ')} · "
                            f"{'round ' + str(i['round']) if i['round'] else 'between rounds'} · {i['message']}"
                            for i in r["irregularities"]], 2),
    ]
    unit = (PAGE_W - 2 * MARGIN - 3 * 4) / 5
    top = pdf.get_y()
    bottom = PAGE_H - MARGIN
    x = MARGIN
    for title, items, span in columns:
        width = unit * span + 4 * (span - 1)
        pdf.set_xy(x, top)
        pdf.set_font("helvetica", "B", 8.5)
        pdf.cell(width, 4.5, latin(f"{title} ({len(items)})"), new_x="LEFT", new_y="NEXT")
        pdf.set_font("helvetica", "", 7)
        if not items:
            pdf.cell(width, LINE, "none", new_x="LEFT", new_y="NEXT")
        for shown, item in enumerate(items):
            text = latin("- " + item)
            needed = len(pdf.multi_cell(width, LINE, text, align="L", dry_run=True, output="LINES")) * LINE
            room = LINE if shown < len(items) - 1 else 0.0          # for "and N more" under it
            if pdf.get_y() + needed + room > bottom:
                pdf.cell(width, LINE, f"and {len(items) - shown} more (table-controller report lists them all)",
                         new_x="LEFT", new_y="NEXT")
                break
            pdf.multi_cell(width, LINE, text, align="L", new_x="LEFT", new_y="NEXT")
        x += width + 4
