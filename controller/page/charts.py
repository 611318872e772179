"""The report's pictures as inline SVG, drawn here in Python: no chart library, nothing fetched.

Owns three charts of a report (controller/store/report.py):

- ``hold_chart``: one wager type's hold % as the rounds of the period went by (the house's
  net over what was staked, cumulated), the theoretical hold of the same wagers as a dashed
  line (``class="theory"``), and a band of ±2 standard deviations around it
  (``class="band"``) that narrows as wagers add up: the hold of a table playing honestly
  stays inside it about 95 times in 100, so a line outside it is worth a look;
- ``bars``: counts per local hour (rounds per hour, device faults per hour).

The SVG uses presentation attributes only (``fill``, ``stroke``): the page's
Content-Security-Policy forbids inline styles, and a printed page needs no stylesheet for
its pictures. Every text is escaped.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from html import escape

WIDTH, HEIGHT = 460, 190
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 34, 30          # margins for the axes' labels
INK, GRID, HOLD, THEORY, BAND, BAR, FAULT = ("#222", "#ccc", "#1f5fbf", "#b3261e", "#f3c6c2", "#4a7f3a",
                                             "#c77700")


@dataclass(frozen=True)
class HoldPoint:
    at: datetime               # when the round was settled (local)
    hold_percent: float        # cumulative: the house's net over what was staked, since the period began
    theory_percent: float      # cumulative theoretical hold of the same wagers
    sigma_percent: float       # one standard deviation of the cumulative hold %


def hold_points(timeline: Sequence[dict], spot: str, local) -> list[HoldPoint]:
    """The cumulative series of one spot from a report's ``timeline`` (rounds without a wager on
    it add no point)."""
    staked = net = expected = variance = 0.0
    points = []
    for entry in timeline:
        stake, house, hold, var = entry["spots"][spot]
        if not stake:
            continue
        staked, net, expected, variance = staked + stake, net + house, expected + hold, variance + var
        points.append(HoldPoint(local(entry["at"]), 100 * net / staked, 100 * expected / staked,
                                100 * math.sqrt(variance) / staked))
    return points


def _frame(title: str, kind: str) -> list[str]:
    return [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {kind}" viewBox="0 0 {WIDTH} {HEIGHT}" '
            f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{escape(title)}">',
            f'<title>{escape(title)}</title>',
            f'<text x="{LEFT}" y="15" font-size="13" font-family="sans-serif" fill="{INK}">{escape(title)}</text>']


def _time_ticks(start: datetime, end: datetime, x) -> list[str]:
    """Four labelled moments under the x axis; seconds shown when the span is short."""
    span = (end - start).total_seconds()
    fmt = "%H:%M:%S" if span < 600 else "%H:%M"
    out = []
    for i in range(4):
        moment = start + (end - start) * (i / 3)
        anchor = ("start", "middle", "middle", "end")[i]
        out.append(f'<text x="{x(moment):.1f}" y="{HEIGHT - 10}" font-size="10" text-anchor="{anchor}" '
                   f'font-family="sans-serif" fill="{INK}">{moment.strftime(fmt)}</text>')
    return out


def _nice_step(span: float) -> float:
    raw = span / 4
    power = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


# the chart's own words, in English; the report passes them in its reader's language (report_page.py)
CHART_WORDS = {
    "empty": "no wagers in this period", "band": "theoretical hold ±2σ", "theory": "theoretical hold {value}%",
    "hold": "hold {value}%", "verdict": "hold {hold}% · theory {theory}% ±{band}", "outside": "OUTSIDE",
}


def hold_chart(title: str, points: Sequence[HoldPoint], words: Mapping[str, str] = CHART_WORDS) -> str:
    """Hold % against the theoretical line and its ±2σ band; an empty chart says so."""
    svg = _frame(title, "hold")
    if not points:
        svg.append(f'<text x="{WIDTH / 2}" y="{HEIGHT / 2}" text-anchor="middle" font-size="12" '
                   f'font-family="sans-serif" fill="{INK}">{escape(words["empty"])}</text></svg>')
        return "".join(svg)
    start, end = points[0].at, points[-1].at
    if end <= start:                                   # one round: a second's width
        end = start + timedelta(seconds=1)
    highs = [p.theory_percent + 2 * p.sigma_percent for p in points] + [p.hold_percent for p in points]
    lows = [p.theory_percent - 2 * p.sigma_percent for p in points] + [p.hold_percent for p in points]
    # the band of the first wagers is very wide: the scale follows the data, within ±100 points
    top = min(max(highs), max(p.hold_percent for p in points) + 20, 100.0)
    bottom = max(min(lows), min(p.hold_percent for p in points) - 20, -100.0)
    top, bottom = max(top, 0.0), min(bottom, 0.0)
    if top - bottom < 1:
        top, bottom = top + 0.5, bottom - 0.5
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(moment: datetime) -> float:
        return LEFT + inner_w * (moment - start).total_seconds() / (end - start).total_seconds()

    def y(value: float) -> float:
        clipped = min(max(value, bottom), top)
        return TOP + inner_h * (top - clipped) / (top - bottom)

    step = _nice_step(top - bottom)
    tick = math.ceil(bottom / step) * step
    while tick <= top + 1e-9:
        svg.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
                   f'stroke="{GRID}" stroke-width="{1.2 if abs(tick) < 1e-9 else 0.6}"/>')
        svg.append(f'<text x="{LEFT - 4}" y="{y(tick) + 3:.1f}" font-size="10" text-anchor="end" '
                   f'font-family="sans-serif" fill="{INK}">{tick:g}%</text>')
        tick += step
    upper = [f"{x(p.at):.1f},{y(p.theory_percent + 2 * p.sigma_percent):.1f}" for p in points]
    lower = [f"{x(p.at):.1f},{y(p.theory_percent - 2 * p.sigma_percent):.1f}" for p in reversed(points)]
    svg.append(f'<polygon class="band" points="{" ".join(upper + lower)}" fill="{BAND}" fill-opacity="0.7" '
               f'stroke="none"><title>{escape(words["band"])}</title></polygon>')
    theory = " ".join(f"{x(p.at):.1f},{y(p.theory_percent):.1f}" for p in points)
    theory_said = words["theory"].format(value=f"{points[-1].theory_percent:.2f}")
    svg.append(f'<polyline class="theory" points="{theory}" fill="none" stroke="{THEORY}" stroke-width="1.5" '
               f'stroke-dasharray="5 3"><title>{escape(theory_said)}</title></polyline>')
    hold = " ".join(f"{x(p.at):.1f},{y(p.hold_percent):.1f}" for p in points)
    svg.append(f'<polyline class="hold" points="{hold}" fill="none" stroke="{HOLD}" stroke-width="2">'
               f'<title>{escape(words["hold"].format(value=f"{points[-1].hold_percent:.2f}"))}</title></polyline>')
    last = points[-1]
    outside = abs(last.hold_percent - last.theory_percent) > 2 * last.sigma_percent
    verdict = words["verdict"].format(hold=f"{last.hold_percent:.2f}", theory=f"{last.theory_percent:.2f}",
                                      band=f"{2 * last.sigma_percent:.2f}")
    verdict += f' · {words["outside"]}' if outside else ""
    svg.append(f'<text class="verdict" x="{LEFT}" y="28" font-size="11" '
               f'font-family="sans-serif" fill="{THEORY if outside else INK}">{escape(verdict)}</text>')
    svg += _time_ticks(start, end, x)
    svg.append(f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{HEIGHT - BOTTOM}" stroke="{INK}"/></svg>')
    return "".join(svg)


def bars(title: str, counts: Sequence[tuple[str, int]], kind: str) -> str:
    """A count per hour: ``counts`` as (label "14:00", count), in the period's order."""
    svg = _frame(title, kind)
    colour = FAULT if kind == "faults" else BAR
    if not counts:
        counts = [("", 0)]
    most = max(max(c for _, c in counts), 1)
    step = _nice_step(most) if most > 4 else 1
    top = math.ceil(most / step) * step
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    width = inner_w / len(counts)
    tick = 0.0
    while tick <= top:
        ty = TOP + inner_h * (1 - tick / top)
        svg.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{ty:.1f}" y2="{ty:.1f}" stroke="{GRID}" '
                   'stroke-width="0.6"/>')
        svg.append(f'<text x="{LEFT - 4}" y="{ty + 3:.1f}" font-size="10" text-anchor="end" '
                   f'font-family="sans-serif" fill="{INK}">{tick:g}</text>')
        tick += step
    every = max(1, math.ceil(len(counts) / 8))         # at most eight hour labels
    for i, (label, count) in enumerate(counts):
        h = inner_h * count / top
        bx = LEFT + i * width
        svg.append(f'<rect class="bar" x="{bx + width * 0.1:.1f}" y="{TOP + inner_h - h:.1f}" '
                   f'width="{width * 0.8:.1f}" height="{h:.1f}" fill="{colour}">'
                   f'<title>{escape(label)}: {count}</title></rect>')
        if i % every == 0 and label:
            svg.append(f'<text x="{bx + width / 2:.1f}" y="{HEIGHT - 10}" font-size="10" text-anchor="middle" '
                       f'font-family="sans-serif" fill="{INK}">{escape(label)}</text>')
    svg.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{TOP + inner_h}" y2="{TOP + inner_h}" '
               f'stroke="{INK}"/></svg>')
    return "".join(svg)
