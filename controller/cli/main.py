"""``table-controller``: the command line of the table controller.

Owns argument parsing and the text/JSON presentation of each command; the
work itself lives in the modules each command calls. Exit status: 0 done,
1 some input could not be processed (each failure reported), 2 usage or
configuration error.
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import lru_cache
from typing import Any

from controller.rules import parsheet
from controller.rules.paytable import DEFAULT_PRESET, JACKPOTS, PayTableError, Preset, load, load_preset, preset_names
from controller.rules.roundio import settle_json
from controller.rules.words import money
from controller.store.pins import ROLES


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except PayTableError as err:
        print(f"table-controller: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="table-controller",
                                     description="Three Card Poker table controller")
    sub = parser.add_subparsers(metavar="COMMAND")

    p = sub.add_parser("presets", help="list the shipped presets with their pay tables and limits")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_presets)

    p = sub.add_parser("settle", help="settle rounds given as JSON Lines on standard input")
    p.add_argument("--preset", help="preset for lines that name none")
    p.set_defaults(func=cmd_settle)

    p = sub.add_parser("par-sheet", help="exact house edge and strategy of a pay table")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--preset", help=f"a shipped preset (default {DEFAULT_PRESET})")
    src.add_argument("--paytable", metavar="FILE", help="a pay-table TOML file")
    p.add_argument("--jackpots", metavar="MEGA,MAJOR,MINOR",
                   help="posted jackpot values in cents, to include them in the Super 6 return")
    p.add_argument("--json", action="store_true", help="machine-readable output with exact fractions")
    p.set_defaults(func=cmd_par_sheet)

    p = sub.add_parser("run", help="run the table (simulated devices when no configuration is given)")
    p.add_argument("--config", metavar="FILE", help="table configuration (TOML); default: the embedded "
                   "one, on simulated devices")
    p.add_argument("--simulate", action="store_true",
                   help="put simulated devices on ptys in place of the configured ones")
    p.add_argument("--autoplay", action="store_true",
                   help="scripted players and dealer play whole rounds (needs simulated devices)")
    p.add_argument("--rounds", type=int, metavar="N", help="with --autoplay: stop after N rounds")
    p.add_argument("--seed", type=int, default=1, help="seed of the simulated shoe and players")
    p.add_argument("--strategy", choices=("optimal", "always"), default="optimal",
                   help="how the scripted players decide")
    p.add_argument("--shoe-usb", action="store_true", help="attach the simulated shoe by USB")
    p.add_argument("--data-dir", metavar="DIR", help="journal and audit files (overrides data.dir)")
    p.add_argument("--log-format", choices=("json", "console"), help="overrides log.format")
    p.add_argument("--port", type=int, metavar="N", help="the dealer's page port (overrides page.port; "
                   "0 picks a free one)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("recall", help="the last rounds from the journal, settle-ready")
    p.add_argument("--last", type=int, default=10, metavar="N", help="how many rounds (default 10)")
    p.add_argument("--round", type=int, metavar="ID", help="one round by its id")
    p.add_argument("--json", action="store_true", help="JSON Lines: one round per line")
    _journal_options(p)
    p.set_defaults(func=cmd_recall)

    p = sub.add_parser("meters", help="meters per wager type, rounds, voids, device events")
    p.add_argument("--json", action="store_true")
    p.add_argument("--lifetime", action="store_true", help="count from the first round, not the last reset")
    _journal_options(p)
    p.set_defaults(func=cmd_meters)

    p = sub.add_parser("config", help="the table configuration")
    config_sub = p.add_subparsers(metavar="ACTION")
    c_ = config_sub.add_parser("check", help="check a configuration file; every problem names its key and line")
    c_.add_argument("file")
    c_.set_defaults(func=cmd_config_check)

    p = sub.add_parser("jackpot", help="the posted Super 6 jackpot values, their changes and the last hits")
    p.add_argument("--json", action="store_true")
    _journal_options(p)
    p.set_defaults(func=cmd_jackpot)

    p = sub.add_parser("pin", help="set, remove or list the PINs of supervisors, technicians and dealers")
    pin_sub = p.add_subparsers(metavar="ACTION")
    s_ = pin_sub.add_parser("set", help="give NAME in ROLE a PIN (read twice from the terminal, or once "
                            "from standard input)")
    s_.add_argument("role", choices=ROLES)
    s_.add_argument("name")
    _journal_options(s_)
    s_.set_defaults(func=cmd_pin_set)
    r_ = pin_sub.add_parser("remove", help="remove NAME's PIN in ROLE")
    r_.add_argument("role", choices=ROLES)
    r_.add_argument("name")
    _journal_options(r_)
    r_.set_defaults(func=cmd_pin_remove)
    l_ = pin_sub.add_parser("list", help="who holds a PIN, and which roles are locked out")
    _journal_options(l_)
    l_.set_defaults(func=cmd_pin_list)

    p = sub.add_parser("audit", help="the audit trail")
    audit_sub = p.add_subparsers(metavar="ACTION")
    v = audit_sub.add_parser("verify", help="check the chain of every audit file; name the first bad line")
    _journal_options(v)
    v.set_defaults(func=cmd_audit_verify)
    return parser


def cmd_audit_verify(args: argparse.Namespace) -> int:

    from controller.store.audit import AuditError, verify
    from controller.app.config import ConfigError, default_config, load_config
    from controller.app.run import audit_dir
    try:
        directory = audit_dir(load_config(args.config) if args.config else default_config(), args.data_dir)
        if not directory.is_dir():
            print(f"table-controller: {directory}: no audit trail here", file=sys.stderr)
            return 2
        lines, files = verify(directory)
    except ConfigError as err:
        print(f"table-controller: {err}", file=sys.stderr)
        return 2
    except AuditError as err:
        print(f"table-controller: audit trail broken: {err}", file=sys.stderr)
        return 1
    print(f"audit trail intact: {lines} lines in {files} file{'s' if files != 1 else ''} ({directory})")
    return 0


def _journal_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", help="table configuration naming data.dir")
    p.add_argument("--data-dir", metavar="DIR", help="journal directory (overrides data.dir)")


def _open_journal(args: argparse.Namespace):
    from pathlib import Path

    from controller.app.config import default_config, load_config
    from controller.store.journal import Journal, JournalError
    from controller.app.run import JOURNAL_FILE
    data_dir = Path(args.data_dir) if args.data_dir else \
        (load_config(args.config) if args.config else default_config()).data_dir
    path = data_dir / JOURNAL_FILE
    if not path.exists():
        raise JournalError(f"{path}: no journal here (give --data-dir or --config)")
    return Journal(path)


def _journal_command(func):
    def wrapped(args: argparse.Namespace) -> int:
        from controller.app.config import ConfigError
        from controller.store.journal import JournalError
        try:
            journal = _open_journal(args)
        except (ConfigError, JournalError) as err:
            print(f"table-controller: {err}", file=sys.stderr)
            return 2
        try:
            return func(args, journal)
        finally:
            journal.close()
    return wrapped


@_journal_command
def cmd_recall(args: argparse.Namespace, journal) -> int:
    from controller.store.recall import recall
    try:
        rounds = recall(journal, args.last, args.round)
    except LookupError as err:
        print(f"table-controller: {err}", file=sys.stderr)
        return 1
    for doc in rounds:
        if args.json:
            print(json.dumps(doc))
            continue
        t = doc["table"]
        print(f"round {doc['id']}  {t['status']}  {t['opened_at']} .. {t['closed_at'] or '(open)'}  "
              f"preset {doc['preset']}  state {t['state']}")
        if t["void_reason"]:
            print(f"  void: {t['void_reason']}")
        if "dealer" in doc:
            print(f"  dealer {doc['dealer']}  {t['announcement'] or ''}")
        results = {r["seat"]: r for r in t["results"]}
        for seat in doc["seats"]:
            play = {True: "played", False: "folded"}.get(seat.get("play"), "")
            line = f"  position {seat['seat']}: {seat.get('cards', '(no hand)')}  {play}  wagers " + \
                ", ".join(f"{k} {v}" for k, v in seat["wagers"].items() if v)
            if seat["seat"] in results:
                line += f"  net {results[seat['seat']]['net']}"
                line += "  paid" if str(seat["seat"]) in t["paid"] else "  not yet paid"
            print(line)
        for alert in t["alerts"]:
            print(f"  alert {alert['kind']}: {alert['message']}")
    return 0


@_journal_command
def cmd_meters(args: argparse.Namespace, journal) -> int:
    from controller.store.recall import meters
    m = meters(journal, lifetime=args.lifetime)
    if args.json:
        print(json.dumps(m))
        return 0
    since = m["since_reset"]
    print("since the first round" if since is None else
          f"since the reset of {since['at']} by {since['by']} ({since['reason']}), after round "
          f"{since['after_round']}")
    r = m["rounds"]
    print(f"rounds: {r['complete']} complete, {r['void']} void, {r['open']} open")
    print(f"{'wager':<16}{'wagers':>8}{'wagered':>14}{'paid':>14}{'taken':>14}{'hold':>14}")
    for name, w in m["wagers"].items():
        print(f"{name:<16}{w['wagers']:>8}{w['wagered']:>14}{w['paid']:>14}{w['taken']:>14}{w['hold']:>14}")
    print(f"cap reductions {m['cap_reductions']}   jackpot hits {m['jackpot_hits']}")
    print("events: " + (", ".join(f"{k} {v}" for k, v in sorted(m["events"].items())) or "none"))
    return 0


def cmd_config_check(args: argparse.Namespace) -> int:
    from controller.app.config import ConfigError, load_config
    try:
        config = load_config(args.file)
    except ConfigError as err:
        print(f"table-controller: {err}", file=sys.stderr)
        return 2
    limits = ", ".join(f"{spot} {lim.min}-{lim.max}" for spot, lim in config.preset.limits.items())
    print(f"{args.file}: OK")
    print(f"  table {config.table_id}, preset {config.preset.name}, {config.positions} positions; "
          f"limits (cents) {limits}")
    for role, dev in config.devices.items():
        print(f"  {role}: {dev.driver} at {dev.url}")
    print(f"  data {config.data_dir}, audit trail {config.audit_dir or config.data_dir / 'audit'}, "
          f"page http://{config.page_host}:{config.page_port}/ for {', '.join(config.page_allow)}")
    print(f"  configuration digest {config.digest}")
    return 0


@_journal_command
def cmd_jackpot(args: argparse.Namespace, journal) -> int:
    from controller.store.jackpot import report
    doc = report(journal)
    if args.json:
        print(json.dumps(doc))
        return 0
    if not doc["posted"]:
        print("no jackpot values posted (this table's rules have no Super 6 jackpot, or it never ran)")
    for name, entry in doc["posted"].items():
        print(f"{name.upper():<6}{money(entry['value']):>16}   changed {entry.get('changed_at', '?')} by "
              f"{entry.get('changed_by', '?')} ({entry.get('reason', '')})")
    print(f"last {len(doc['hits'])} hit{'s' if len(doc['hits']) != 1 else ''}:" if doc["hits"] else "no hits")
    for hit in doc["hits"]:
        print(f"  round {hit['round']} position {hit['seat']}: {hit['jackpot'].upper()} {money(hit['amount'])} "
              f"of {money(hit['posted'])} ({hit['share_percent']}% share, {hit['winners']} winner"
              f"{'s' if hit['winners'] != 1 else ''})  {hit['cards']}  verified {hit['verified_at']} by "
              f"{hit['verified_by']}")
    return 0


# --- PINs ------------------------------------------------------------------------

def _pin_store(args: argparse.Namespace):
    from pathlib import Path

    from controller.app.config import default_config, load_config
    from controller.store.pins import PIN_FILE, PinStore
    config = load_config(args.config) if args.config else default_config()
    data_dir = Path(args.data_dir) if args.data_dir else config.data_dir
    return PinStore(data_dir / PIN_FILE, attempts=config.pin_attempts, lockout=config.pin_lockout), data_dir


def _pin_command(func):
    def wrapped(args: argparse.Namespace) -> int:
        from controller.app.config import ConfigError
        from controller.store.pins import PinError
        try:
            return func(args, *_pin_store(args))
        except (ConfigError, PinError) as err:
            print(f"table-controller: {err}", file=sys.stderr)
            return 2
    return wrapped


def _journal_pin_change(data_dir, what: dict) -> None:
    """PIN changes are table events in the journal (when this data directory has one)."""
    from controller.store.journal import Journal
    from controller.app.run import JOURNAL_FILE
    if (data_dir / JOURNAL_FILE).exists():
        journal = Journal(data_dir / JOURNAL_FILE)
        try:
            journal.table_event("pin_changed", what)
        finally:
            journal.close()


@_pin_command
def cmd_pin_set(args: argparse.Namespace, store, data_dir) -> int:
    import getpass

    from controller.store.pins import PinError
    if sys.stdin.isatty():
        pin = getpass.getpass(f"PIN for {args.role} {args.name}: ")
        if getpass.getpass("The same PIN again: ") != pin:
            raise PinError("the two PINs differ; nothing changed")
    else:
        pin = sys.stdin.readline().strip()
    store.set_pin(args.role, args.name, pin)
    _journal_pin_change(data_dir, {"action": "set", "role": args.role, "name": args.name})
    print(f"PIN set for {args.role} {args.name} ({store.path})")
    return 0


@_pin_command
def cmd_pin_remove(args: argparse.Namespace, store, data_dir) -> int:
    if not store.remove(args.role, args.name):
        print(f"table-controller: no {args.role} named {args.name!r} in {store.path}", file=sys.stderr)
        return 1
    _journal_pin_change(data_dir, {"action": "removed", "role": args.role, "name": args.name})
    print(f"PIN removed for {args.role} {args.name}")
    return 0


@_pin_command
def cmd_pin_list(args: argparse.Namespace, store, data_dir) -> int:
    holders = store.holders()
    for identity in holders:
        print(f"{identity.role:<12}{identity.name}")
    if not holders:
        print(f"no PINs set ({store.path})")
    for role in ROLES:
        wait = store.locked_for(role)
        if wait:
            print(f"{role} PIN locked for {int(wait)} s more")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from controller.store.audit import AuditError
    from controller.app.config import ConfigError
    from controller.page.server import PageError
    from controller.store.journal import JournalError
    from controller.store.pins import PinError
    from controller.app.run import RunOptions, run
    try:
        return run(RunOptions(config=args.config, simulate=args.simulate, autoplay=args.autoplay,
                              rounds=args.rounds, seed=args.seed, data_dir=args.data_dir,
                              log_format=args.log_format, shoe_usb=args.shoe_usb,
                              strategy=args.strategy, port=args.port))
    except (ConfigError, JournalError, AuditError, PageError, PinError) as err:
        print(f"table-controller: {err}", file=sys.stderr)
        return 2


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
        f"{spot} {money(l.min, short=True)}-{money(l.max, short=True)}" for spot, l in p.limits.items()))
    lines.append("  pair plus: " + ", ".join(f"{h.key} {o} to 1" for h, o in p.pair_plus.items()))
    lines.append("  ante bonus: " + ", ".join(f"{h.key} {o} to 1" for h, o in p.ante_bonus.items()))
    if p.six_card_bonus:
        lines.append("  6 card bonus: " + ", ".join(
            f"{h.key} {o} to 1" for h, o in p.six_card_bonus.items()))
    if p.super6:
        for bet, entry in p.super6.items():
            awards = ", ".join(f"{h.key} {a if isinstance(a, str) else money(a, short=True)}"
                               for h, a in entry.awards.items())
            lines.append(f"  super 6 {money(bet, short=True)} bet ({entry.jackpot_share_percent}% of jackpots): {awards}")
    if p.max_aggregate_payout:
        lines.append(f"  maximum aggregate payout: {money(p.max_aggregate_payout, short=True)} per player per hand"
                     " (Super 6 excluded)")
    lines.append(f"  fold loses Pair Plus: {'yes' if p.fold_loses_pair_plus else 'no'}; "
                 f"dealer qualifies with {'23456789TJQKA'[p.dealer_qualifies_with]}-high; decks: {p.decks}")
    return "\n".join(lines) + "\n"


# --- settle ----------------------------------------------------------------

def cmd_settle(args: argparse.Namespace) -> int:
    if args.preset:
        load_preset(args.preset)          # an unknown --preset is a usage error, before any line

    @lru_cache(maxsize=None)
    def presets(name: str) -> Preset:
        return load_preset(name)

    failed = False
    out = sys.stdout
    for number, line in enumerate(sys.stdin, 1):
        try:
            obj: Any = json.loads(line)
        except json.JSONDecodeError as err:
            result = {"id": None, "error": f"line {number}: not JSON: {err.msg} at column {err.colno}"}
        else:
            result = settle_json(obj, presets, args.preset)
            if "error" in result:
                result["error"] = f"line {number}: {result['error']}"
        failed = failed or "error" in result
        out.write(json.dumps(result, separators=(",", ":")) + "\n")
    out.flush()
    return 1 if failed else 0


# --- par sheet ---------------------------------------------------------------

def parse_jackpots(text: str | None) -> dict[str, int] | None:
    if text is None:
        return None
    parts = text.split(",")
    if len(parts) != 3 or not all(p.strip().isdigit() and int(p) > 0 for p in parts):
        raise PayTableError(f"--jackpots {text!r}: expected three positive cent amounts MEGA,MAJOR,MINOR")
    return dict(zip(JACKPOTS, (int(p) for p in parts)))


def cmd_par_sheet(args: argparse.Namespace) -> int:
    preset = load(args.preset, args.paytable)
    sheet = parsheet.par_sheet(preset, parse_jackpots(args.jackpots))
    if args.json:
        print(json.dumps(sheet, indent=2))
    else:
        print(format_par_sheet(sheet))
    return 0


def pct(value: dict) -> str:
    return f"{value['decimal'] * 100:.4f}% ({value['fraction']})"


def format_par_sheet(s: dict) -> str:
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
            line = f"  {money(int(bet), short=True)} bet: return excluding jackpots {pct(row['return_excluding_jackpots'])}"
            if "house_edge" in row:
                line += f"; house edge with the given jackpots {pct(row['house_edge'])}"
            out.append(line)
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
