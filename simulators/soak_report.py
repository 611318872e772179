"""The soak's evidence: a JSON summary and an HTML report with its plots drawn as inline SVG.

Owns the presentation of a soak (simulators/soak.py) and of its check
(simulators/soak_check.py): the summary a lab reads with a tool, and a page a
person reads, with rounds per second over time, memory over time, the
latency histograms (every life's merged) and each life's p99, faults by kind and state, and the
recovery time of each restart. The plots are SVG written here in Python: no
chart library, nothing fetched, the file opens anywhere.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from typing import Any

WIDTH, HEIGHT, PAD = 640, 220, 44


def summary(soak: Any, checked: dict[str, Any], elapsed_s: float) -> dict[str, Any]:
    samples, o = soak.samples, soak.options
    recoveries = sorted(r["recovery_s"] for r in soak.restarts)
    rss = [s["rss_kb"] for s in samples if s["rss_kb"]]
    return {
        "rounds_asked": o.rounds, "seed": o.seed, "faults": o.faults, "elapsed_s": elapsed_s,
        "segments": soak.starts,
        "rounds_closed": samples[-1]["rounds"] if samples else 0,
        "rounds_per_second": round(samples[-1]["rounds"] / samples[-1]["t"], 2) if samples and samples[-1]["t"] else 0,
        "held": soak.holds, "stuck": soak.stuck,
        "faults_injected": dict(Counter(f["fault"] for f in soak.injected)),
        "faults_by_state": _by_state(soak.injected),
        "restarts": len(soak.restarts),
        "recovery_s": {"p50": recoveries[len(recoveries) // 2] if recoveries else None,
                       "max": recoveries[-1] if recoveries else None},
        "memory_kb": {"first": rss[0] if rss else None, "last": rss[-1] if rss else None,
                      "max": max(rss) if rss else None},
        "latency": {key: merged(soak.lives, key) for key in ("frame_to_snapshot", "snapshot_to_page")},
        "latency_by_life": soak.lives,
        "dealer": {"actions_sent": soak.client.sent, "refused": soak.client.refused,
                   "unanswered": soak.client.unanswered},
        "check": checked,
    }


def merged(lives: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """One histogram over every controller life (each life's ``buckets`` from its /api/health):
    counts added edge by edge, the percentiles read from the sum (the upper edge of the bucket
    holding them), the worst the worst of any life."""
    counts: Counter[float] = Counter()
    worst = 0.0
    for life in lives:
        figures = life.get(key) or {}
        for edge, count in figures.get("buckets", []):
            counts[edge] += count
        worst = max(worst, figures.get("max_ms", 0.0))
    n = sum(counts.values())

    def percentile(p: float) -> float:
        rank, seen = -(-n * p // 100), 0
        for edge in sorted(counts):
            seen += counts[edge]
            if seen >= rank:
                return min(edge, worst)
        return worst
    return {"n": n, "p50_ms": percentile(50) if n else 0.0, "p99_ms": percentile(99) if n else 0.0,
            "max_ms": worst, "buckets": sorted([edge, c] for edge, c in counts.items())}


def _by_state(injected: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for f in injected:
        out.setdefault(f["fault"], {}).setdefault(f["state"], 0)
        out[f["fault"]][f["state"]] += 1
    return out


def html_report(doc: dict[str, Any], samples: list[dict[str, Any]], restarts: list[dict[str, Any]]) -> str:
    pairs = zip(samples, samples[1:], strict=False)
    rates = [(b["t"], (b["rounds"] - a["rounds"]) / (b["t"] - a["t"])) for a, b in pairs if b["t"] > a["t"]]
    memory = [(s["t"], s["rss_kb"] / 1024) for s in samples if s["rss_kb"]]
    lives = doc["latency_by_life"]
    latency = [(f"life {i + 1}", life.get(key, {}).get("p99_ms", 0.0))
               for i, life in enumerate(lives) for key in ("frame_to_snapshot",)]
    whole = doc.get("latency", {})
    faults = sorted(doc["faults_injected"].items(), key=lambda kv: -kv[1])
    recovery = [(f"#{i + 1} {r['state']}", r["recovery_s"]) for i, r in enumerate(restarts)]
    check = doc["check"]
    verdict = ("PASS" if not check["coverage_problems"] and check["resettlement_discrepancies"] == 0
               and check["payments_doubled"] == 0
               and check["payments_lost"] == 0 and check["void_rounds_that_paid"] == 0 and check["verify"]["ok"]
               else "FAIL")
    rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>" for k, v in [
        ("verdict", verdict), ("rounds closed", doc["rounds_closed"]), ("rounds per second", doc["rounds_per_second"]),
        ("elapsed", f"{doc['elapsed_s']} s"), ("restarts (SIGKILL)", doc["restarts"]),
        ("recovery p50 / max", f"{doc['recovery_s']['p50']} / {doc['recovery_s']['max']} s"),
        ("memory first / last / max", f"{doc['memory_kb']['first']} / {doc['memory_kb']['last']} / "
                                      f"{doc['memory_kb']['max']} KB"),
        ("re-settlement discrepancies", check["resettlement_discrepancies"]),
        ("payments doubled / lost", f"{check['payments_doubled']} / {check['payments_lost']}"),
        ("chain, trail and anchors", "verified" if check["verify"]["ok"] else check["verify"]["said"]),
    ])
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Soak report</title>"
            "<style>body{font:14px sans-serif;margin:24px;max-width:720px}th{text-align:left;padding-right:12px}"
            "svg{display:block;margin:8px 0 24px}</style></head><body>"
            f"<h1>Soak: {doc['rounds_closed']} rounds, seed {doc['seed']}, faults {html.escape(doc['faults'])}</h1>"
            f"<table>{rows}</table>"
            f"<h2>Rounds per second over time</h2>{line_chart(rates, 's', 'rounds/s')}"
            f"<h2>Controller memory over time</h2>{line_chart(memory, 's', 'MB')}"
            f"{_histogram_section('Frame to snapshot', whole.get('frame_to_snapshot'))}"
            f"{_histogram_section('Snapshot to page', whole.get('snapshot_to_page'))}"
            f"<h2>Frame to snapshot, p99 per controller life</h2>{bar_chart(latency, 'ms')}"
            f"<h2>Faults injected, by kind</h2>{bar_chart(faults, 'faults')}"
            f"<h2>Recovery time per restart</h2>"
            f"{bar_chart(recovery, 's')}"
            "</body></html>\n")


def _histogram_section(title: str, figures: dict[str, Any] | None) -> str:
    if not figures or not figures.get("n"):
        return f"<h2>{html.escape(title)}</h2><p>(no data)</p>"
    said = (f"{figures['n']} events; p50 {figures['p50_ms']:g} ms, p99 {figures['p99_ms']:g} ms, "
            f"max {figures['max_ms']:g} ms")
    bars: list[tuple[str, float]] = []
    previous = None
    for edge, count in figures["buckets"]:     # empty buckets between two drawn as empty bars
        steps = min(round(math.log10(edge / previous) * 24), 48) if previous else 0
        bars += [(f"≤{previous * 10 ** (j / 24):.3g} ms", 0) for j in range(1, steps)] if previous else []
        bars.append((f"≤{edge:.3g} ms", count))
        previous = edge
    return (f"<h2>{html.escape(title)}: histogram over every life</h2><p>{html.escape(said)}</p>"
            f"{bar_chart(bars, 'events')}<p>Buckets are log-spaced (24 a decade); a bar is labelled with "
            "its upper edge.</p>")


def line_chart(points: list[tuple[float, float]], x_unit: str, y_unit: str) -> str:
    if not points:
        return "<p>(no data)</p>"
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    x0, x1, y1 = min(xs), max(xs) or 1.0, max(ys) or 1.0
    span = (x1 - x0) or 1.0

    def at(x: float, y: float) -> str:
        return f"{PAD + (x - x0) / span * (WIDTH - 2 * PAD):.1f},{HEIGHT - PAD - y / y1 * (HEIGHT - 2 * PAD):.1f}"
    path = " ".join(at(x, y) for x, y in points)
    return (f"<svg role='img' width='{WIDTH}' height='{HEIGHT}' viewBox='0 0 {WIDTH} {HEIGHT}'>"
            f"{_axes(f'{x0:g}..{x1:g} {x_unit}', f'0..{y1:.3g} {y_unit}')}"
            f"<polyline fill='none' stroke='#1f5fa8' stroke-width='1.5' points='{path}'/></svg>")


def bar_chart(bars: list[tuple[str, float]], unit: str) -> str:
    if not bars:
        return "<p>(none)</p>"
    top = max(v for _, v in bars) or 1.0
    step = (WIDTH - 2 * PAD) / len(bars)
    parts = []
    for i, (name, value) in enumerate(bars):
        h = value / top * (HEIGHT - 2 * PAD)
        x = PAD + i * step
        parts.append(f"<rect x='{x + 2:.1f}' y='{HEIGHT - PAD - h:.1f}' width='{max(step - 4, 1):.1f}' "
                     f"height='{h:.1f}' fill='#4a8f4a'><title>{html.escape(name)}: {value:g} {unit}</title></rect>")
        if len(bars) <= 16:
            parts.append(f"<text x='{x + step / 2:.1f}' y='{HEIGHT - PAD + 14}' font-size='9' "
                         f"text-anchor='middle'>{html.escape(name[:14])}</text>")
    return (f"<svg role='img' width='{WIDTH}' height='{HEIGHT}' viewBox='0 0 {WIDTH} {HEIGHT}'>"
            f"{_axes('', f'0..{top:.3g} {unit}')}{''.join(parts)}</svg>")


def _axes(x_label: str, y_label: str) -> str:
    return (f"<line x1='{PAD}' y1='{HEIGHT - PAD}' x2='{WIDTH - PAD}' y2='{HEIGHT - PAD}' stroke='#333'/>"
            f"<line x1='{PAD}' y1='{PAD}' x2='{PAD}' y2='{HEIGHT - PAD}' stroke='#333'/>"
            f"<text x='{WIDTH - PAD}' y='{HEIGHT - 8}' font-size='11' text-anchor='end'>{html.escape(x_label)}</text>"
            f"<text x='4' y='{PAD - 8}' font-size='11'>{html.escape(y_label)}</text>")
