"""``table-floor``: the floor's command line; ``main`` is the console script.

Owns the parser of the floor's commands and the one place where their errors become exit
statuses (0 done; 2 a usage error or a request refused with words; 3 the floor database
could not be reached or refused the work). The work lives in the modules each command calls:

    init     schema.py   the floor's schema in an empty database (the administrator's role)
    enroll   schema.py   a table's role, row and floor key (from the table's journal key)
    demo     demo.py     a whole floor on one machine: a throwaway cluster and N simulated tables
    report   report.py   a gaming day per table and wager type, from the floor's records
    pit      pit_page.py the pit's page: every table live, the linked jackpot's postings
    close-claims jackpot.py  a floor supervisor ends a won generation's claims (a table cut off)
    hits     jackpot.py  every linked hit on the floor and what became of it (the floor's debts)

The administrator's connection comes from ``--dsn`` or, when it is not given, from libpq's
environment (PGHOST, PGDATABASE, PGUSER, ~/.pgpass ...): a password never goes on a command line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

STATUS_INPUT, STATUS_DATABASE = 2, 3


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="table-floor", description="The floor: many tables on one PostgreSQL")
    sub = parser.add_subparsers(metavar="COMMAND")

    p = sub.add_parser("init", help="create the floor's schema in an empty database")
    p.add_argument("--dsn", default="", help="the administrator's libpq connection string (default: libpq's "
                   "environment)")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("enroll", help="give a table its role, row and floor key")
    p.add_argument("--dsn", default="", help="the administrator's connection (default: libpq's environment)")
    p.add_argument("--table", required=True, metavar="ID", help="the table's id on the floor ([floor] table)")
    p.add_argument("--data-dir", required=True, metavar="DIR", help="the table's data folder (its journal key)")
    p.add_argument("--key-file", metavar="FILE", help="the journal key, when not DIR/journal.key")
    p.add_argument("--password-file", required=True, metavar="FILE", help="the role's password")
    p.add_argument("--role", help="the role's name (default: table_ and the id in lower case)")
    p.set_defaults(func=cmd_enroll)

    p = sub.add_parser("pit", help="the pit's page: every table live, and the linked jackpot's postings")
    p.add_argument("--dsn", default="", help="the floor database (default: libpq's environment)")
    p.add_argument("--pins", required=True, metavar="FILE", help="the supervisors' PINs (a pins.json that "
                   "`table-controller pin set supervisor NAME --data-dir DIR` writes)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8090)
    p.add_argument("--allow", action="append", metavar="RANGE", help="address ranges that may use the page "
                   "(default: loopback)")
    p.add_argument("--stale", type=float, default=60.0, metavar="SECONDS",
                   help="mark a table stale after SECONDS without a record (default 60)")
    p.add_argument("--readers", metavar="FILE", help="the surveillance feed's readers (a feed-readers.json that "
                   "`table-controller feed add NAME --data-dir DIR` writes); without it /api/feed serves no one")
    p.set_defaults(func=cmd_pit)

    p = sub.add_parser("close-claims", help="make a linked jackpot's split final among the claims received, "
                       "when a table of the group cannot take the lock (cut off, closed)")
    p.add_argument("--dsn", default="", help="the floor database (default: libpq's environment)")
    p.add_argument("--group", required=True, help="the jackpot group")
    p.add_argument("--level", required=True, choices=("mega", "major", "minor"))
    p.add_argument("--generation", required=True, type=int, help="the won generation (the pit's page shows it)")
    p.add_argument("--by", required=True, metavar="NAME", help="the floor supervisor closing them")
    p.add_argument("--reason", required=True, help="why (journaled on the floor)")
    p.add_argument("--confirm", action="store_true", help="close them (without it: say what closing would do, "
                   "which tables have not taken the lock and their hits not yet claimed, and close nothing)")
    p.set_defaults(func=cmd_close_claims)

    p = sub.add_parser("hits", help="every linked hit the tables journaled and what became of it: claimed, "
                       "referred (settled at the table without the award: owed by the floor's decision), "
                       "unclaimed, disputed")
    p.add_argument("--dsn", default="", help="the floor database (default: libpq's environment)")
    p.add_argument("--group", help="one jackpot group (default: all)")
    p.add_argument("--state", choices=("claimed", "referred", "unclaimed", "disputed"))
    p.add_argument("--json", action="store_true", help="a JSON list (money in cents; docs/cli.md)")
    p.set_defaults(func=cmd_hits)

    from controller.floor import demo, report
    demo.add_command(sub)
    report.add_command(sub)
    return parser


def cmd_init(args: argparse.Namespace) -> int:
    import psycopg

    from controller.floor.schema import SCHEMA_VERSION, apply_schema, schema_version
    with psycopg.connect(args.dsn, autocommit=True) as conn:
        before = schema_version(conn)
        made = apply_schema(conn)
    done = "already there" if not made else "created" if before is None else f"upgraded from version {before}"
    print(f"floor schema version {SCHEMA_VERSION} {done}")
    return 0


def cmd_enroll(args: argparse.Namespace) -> int:
    import psycopg

    from controller.floor.link import floor_key
    from controller.floor.schema import FloorError, enroll
    from controller.store.chain import load_key
    try:
        key, _ = load_key(Path(args.data_dir), Path(args.key_file) if args.key_file else None, create=False)
        password = Path(args.password_file).read_text(encoding="utf-8").strip()
    except (OSError, ValueError) as err:
        raise FloorError(str(err)) from None
    if not password:
        raise FloorError(f"{args.password_file}: the password file is empty")
    with psycopg.connect(args.dsn, autocommit=True) as conn:
        role = enroll(conn, args.table, password, floor_key(key, args.table), args.role)
    print(f"table {args.table} enrolled as role {role}")
    return 0


def cmd_close_claims(args: argparse.Namespace) -> int:
    import psycopg

    from controller.floor.jackpot import claims, close_claims, linked_hits, tables_without_ack
    from controller.rules.words import money
    with psycopg.connect(args.dsn, autocommit=True) as conn:
        if not args.confirm:
            return _close_claims_preview(args, claims(conn, args.group, args.level, args.generation),
                                         tables_without_ack(conn, args.group, args.level, args.generation),
                                         linked_hits(conn, args.group, "unclaimed"))
        final = close_claims(conn, args.group, args.level, args.generation, by=args.by, reason=args.reason)
    print(f"{args.level.upper()} generation {args.generation} of group {args.group}: claims closed by {args.by}; "
          f"the split is final among {len(final)} claim(s)")
    for c in final:
        print(f"  {c['claim_order']}. table {c['table_id']}, round {c['round_id']}, position {c['position']}: "
              f"{money(c['amount'])}")
    return 0


def _close_claims_preview(args: argparse.Namespace, received: list[dict], missing: list[str],
                          unclaimed: list[dict]) -> int:
    """What closing would do, for the floor supervisor to read before ``--confirm``: a win at a table
    that has not taken the lock is refused from then on and settled there without the award."""
    name = f"{args.level.upper()} generation {args.generation} of group {args.group}"
    print(f"{name}: closing would make the split final among {len(received)} claim(s) received")
    print("tables that have not taken the lock: " + (", ".join(missing) or "none"))
    waiting = [h for h in unclaimed if h["level"] == args.level and h["generation"] == args.generation]
    for h in waiting:
        print(f"  not claimed yet: table {h['table_id']}, round {h['round_id']}, position {h['position']} "
              f"(hit journaled {h['hit_at']}): it would be refused and held on the floor as owed once referred")
    print("a claim of this generation made after closing is refused; its table settles it without the award and "
          "the floor holds it as owed (table-floor hits --state referred)")
    print("table-floor: nothing closed: add --confirm to close them", file=sys.stderr)
    return STATUS_INPUT


def cmd_hits(args: argparse.Namespace) -> int:
    import json

    import psycopg

    from controller.floor.jackpot import linked_hits
    from controller.rules.words import money
    with psycopg.connect(args.dsn, autocommit=True) as conn:
        hits = linked_hits(conn, args.group, args.state)
    if args.json:
        print(json.dumps([{k: v.isoformat() if hasattr(v, "isoformat") else v for k, v in h.items()} for h in hits],
                         indent=1))
        return 0
    for h in hits:
        print(_hit_line(h, money))
    if not hits:
        print("no linked hits" + (f" {args.state}" if args.state else ""))
    return 0


def _hit_line(h: dict, money: Callable[[int], str]) -> str:
    if h["state"] == "claimed":
        what = f"claimed, {h['claim_order']} of {h['winners']}, {money(h['amount'])}" + \
            (" (final)" if h["final"] else " (not final)")
    elif h["state"] == "referred":
        what = (f"referred by the {h['referred_by']} ({h['referral_reason']}); the floor refused: {h['refused']}: "
                "OWED by the floor's decision")
    elif h["state"] == "disputed":
        what = (f"DISPUTED: claimed on the floor ({money(h['amount'])}) and settled at the table without it by the "
                f"{h['referred_by']}")
    else:
        what = "not claimed yet (the table is cut off, or its claim waits)"
    # a field the table's record does not give as a whole number is NULL on the floor (schema.sql floor.whole)
    level, generation, position = (h["level"] or "unreadable").upper(), h["generation"], h["position"]
    bet = "unreadable" if h["bet"] is None else money(h["bet"])
    return (f"{h['group_id']} {level} generation {'unreadable' if generation is None else generation}: table "
            f"{h['table_id']} round {h['round_id']} position {'unreadable' if position is None else position} "
            f"(bet {bet}): {what}")


def cmd_pit(args: argparse.Namespace) -> int:
    import signal
    import threading

    from controller.floor.pit_page import PitPage
    from controller.store.pins import PinStore
    allow = tuple(args.allow) if args.allow else ("127.0.0.0/8", "::1/128")
    if not args.stale > 0:
        from controller.floor.schema import FloorError
        raise FloorError(f"--stale must be more than 0 seconds, not {args.stale}")
    from controller.store.readers import FeedReaders
    page = PitPage(args.dsn, PinStore(args.pins), host=args.host, port=args.port, allow=allow,
                   stale_after=args.stale, readers=FeedReaders(args.readers) if args.readers else None)
    print(f"The pit: {page.start()}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    page.stop()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)              # --help answers even where psycopg is missing
    if getattr(args, "func", None) is None:
        parser.print_help()
        return STATUS_INPUT
    import psycopg

    from controller.errors import InputError
    from controller.floor.cluster import ClusterError
    try:
        status: int = args.func(args)
        return status
    except InputError as err:
        print(f"table-floor: {err}", file=sys.stderr)
        return STATUS_INPUT
    except (psycopg.Error, ClusterError) as err:
        print(f"table-floor: the floor database: {str(err).strip()}", file=sys.stderr)
        return STATUS_DATABASE
    except BrokenPipeError:
        return 0
