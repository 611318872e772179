"""``table-controller presets``, ``settle`` and ``par-sheet``: the rules engine from the command line.

Owns these commands' options and their text and JSON output; the rules
themselves are controller/rules/ (pay tables, settlement, the round's JSON
form, par sheets). A bad preset, pay-table file or ``--jackpots`` is a
``PayTableError`` (exit 2); ``settle`` reports each bad line on its own
output line and exits 1. ``settle`` skips blank lines, settles lines that
name no preset by ``--preset`` (default ``DEFAULT_PRESET``, as ``par-sheet``),
and answers a void round (as ``recall --json`` marks it) "void, nothing to
settle", which is not a failure (docs/cli.md).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from functools import cache
from typing import TYPE_CHECKING, Any

from controller.rules import parsheet
from controller.rules.paytable import DEFAULT_PRESET, JACKPOTS, PayTableError, Preset, load, load_preset, preset_names
from controller.rules.roundio import settle_json
from controller.rules.words import money

if TYPE_CHECKING:
    from controller.cli.common import Subparsers


def add_commands(sub: Subparsers) -> None:
    p = sub.add_parser("presets", help="list the shipped presets with their pay tables and limits")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_presets)

    p = sub.add_parser("settle", help="settle rounds given as JSON Lines on standard input")
    p.add_argument("--preset", default=DEFAULT_PRESET,
                   help=f"preset for lines that name none (default {DEFAULT_PRESET})")
    p.set_defaults(func=cmd_settle)

    p = sub.add_parser("par-sheet", help="exact house edge and strategy of a pay table")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--preset", help=f"a shipped preset (default {DEFAULT_PRESET})")
    src.add_argument("--paytable", metavar="FILE", help="a pay-table TOML file")
    p.add_argument("--jackpots", metavar="MEGA,MAJOR,MINOR",
                   help="posted jackpot values in cents, to include them in the Super 6 return")
    p.add_argument("--json", action="store_true", help="machine-readable output with exact fractions")
    p.set_defaults(func=cmd_par_sheet)


# --- presets ---------------------------------------------------------------

def cmd_presets(args: argparse.Namespace) -> int:
    presets = [load_preset(n) for n in preset_names()]
    if args.json:
        print(json.dumps([p.to_dict() for p in presets], indent=2))
        return 0
    for p in presets:
        print(describe_preset(p))
    return 0


def describe_preset(p: Preset) -> str:
    lines = [f"{p.name}: {p.title}", f"  rule sheet: {p.rule_sheet}"]
    lines.append("  limits: " + ", ".join(
        f"{spot} {money(lim.min, short=True)}-{money(lim.max, short=True)}" for spot, lim in p.limits.items()))
    lines.append("  pair plus: " + ", ".join(f"{h.key} {o} to 1" for h, o in p.pair_plus.items()))
    lines.append("  ante bonus: " + ", ".join(f"{h.key} {o} to 1" for h, o in p.ante_bonus.items()))
    if p.six_card_bonus:
        lines.append("  6 card bonus: " + ", ".join(
            f"{h.key} {o} to 1" for h, o in p.six_card_bonus.items()))
    if p.super6:
        for bet, entry in p.super6.items():
            awards = ", ".join(f"{h.key} {a if isinstance(a, str) else money(a, short=True)}"
                               for h, a in entry.awards.items())
            lines.append(f"  super 6 {money(bet, short=True)} bet ({entry.jackpot_share_percent}% of jackpots): "
                         f"{awards}")
    if p.max_aggregate_payout:
        lines.append(f"  maximum aggregate payout: {money(p.max_aggregate_payout, short=True)} per player per hand"
                     " (Super 6 excluded)")
    lines.append(f"  fold loses Pair Plus: {'yes' if p.fold_loses_pair_plus else 'no'}; "
                 f"dealer qualifies with {'23456789TJQKA'[p.dealer_qualifies_with]}-high; decks: {p.decks}")
    return "\n".join(lines) + "\n"


# --- settle ----------------------------------------------------------------

def cmd_settle(args: argparse.Namespace) -> int:
    load_preset(args.preset)              # an unknown --preset is a usage error, before any line

    @cache
    def presets(name: str) -> Preset:
        return load_preset(name)

    failed = False
    out = sys.stdout
    for number, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue                      # a blank line is no round (line numbers still count it)
        try:
            obj: Any = json.loads(line, parse_constant=_not_a_number, parse_float=_finite)
        except json.JSONDecodeError as err:
            result: dict[str, Any] = {"id": None,
                                      "error": f"line {number}: not JSON: {err.msg} at column {err.colno}"}
        except ValueError as err:         # NaN or Infinity: Python's JSON takes them, echoed they were no JSON
            result = {"id": None, "error": f"line {number}: not JSON: {err}"}
        else:
            result = settle_json(obj, presets, args.preset)
            if "error" in result:
                result["error"] = f"line {number}: {result['error']}"
        failed = failed or "error" in result
        out.write(json.dumps(result, separators=(",", ":")) + "\n")
    out.flush()
    return 1 if failed else 0


def _not_a_number(word: str) -> float:
    raise ValueError(f"{word} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large a number")
    return value


# --- par sheet ---------------------------------------------------------------

def parse_jackpots(text: str | None) -> dict[str, int] | None:
    if text is None:
        return None
    parts = text.split(",")
    if len(parts) != 3 or not all(p.strip().isdigit() and int(p) > 0 for p in parts):
        raise PayTableError(f"--jackpots {text!r}: expected three positive cent amounts MEGA,MAJOR,MINOR")
    return dict(zip(JACKPOTS, (int(p) for p in parts), strict=True))


def cmd_par_sheet(args: argparse.Namespace) -> int:
    preset = load(args.preset, args.paytable)
    sheet = parsheet.par_sheet(preset, parse_jackpots(args.jackpots))
    if args.json:
        print(json.dumps(sheet, indent=2))
    else:
        print(format_par_sheet(sheet))
    return 0


def pct(value: dict[str, Any]) -> str:
    return f"{value['decimal'] * 100:.4f}% ({value['fraction']})"


def format_par_sheet(s: dict[str, Any]) -> str:
    out = [f"Par sheet: {s['preset']}: {s['title']}", f"rule sheet {s['rule_sheet']}", "",
           f"Three-card hands (of {s['three_card_hands']:,}):"]
    out += [f"  {k:<16} {n:>7,}" for k, n in s["three_card_counts"].items()]
    pp = s["pair_plus"]
    out += ["", f"Pair Plus house edge: {pct(pp['house_edge'])}"]
    ap = s["ante_play"]
    st = ap["strategy"]
    out += ["", "Ante/Play (strategy derived by comparing EV of play and fold):",
            f"  play {st['weakest_played']['ranks']} ({st['weakest_played']['hand']}) or better"
            f"{'' if st['play_every_hand_at_least_as_strong'] else ' (NOT monotone: see --json)'}; "
            f"plays {st['play_hands']:,}, folds {st['fold_hands']:,}, indifferent {st['indifferent_hands']}",
            f"  probability of play: {pct(ap['probability_of_play'])}",
            f"  house edge per Ante: {pct(ap['house_edge_per_ante'])}",
            f"  element of risk:     {pct(ap['element_of_risk'])}"]
    if "six_card_bonus" in s:
        b = s["six_card_bonus"]
        out += ["", f"6 Card Bonus (of {b['of']:,} six-card combinations):"]
        out += [f"  {k:<16} {n:>10,}" for k, n in b["counts"].items()]
        out += [f"  house edge: {pct(b['house_edge'])}"]
    if "super6" in s:
        sx = s["super6"]
        out += ["", f"Super 6 (of {sx['of']:,}):"]
        out += [f"  {k:<22} {n:>10,}" for k, n in sx["counts"].items()]
        for bet, row in sx["by_bet"].items():
            line = (f"  {money(int(bet), short=True)} bet: return excluding jackpots "
                    f"{pct(row['return_excluding_jackpots'])}")
            if "house_edge" in row:
                line += f"; house edge with the given jackpots {pct(row['house_edge'])}"
            out.append(line)
    return "\n".join(out)
