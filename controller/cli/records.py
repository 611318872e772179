"""``table-controller recall`` and ``meters``: the journal's rounds and meters, as text or JSON.

Owns these commands' options and their presentation; reading the journal is
controller/store/recall.py. No journal where ``--data-dir`` or the
configuration points is a usage error (exit 2), and so, as before the error
tree, is a journal that cannot be trusted; an unknown ``--round`` exits 1,
``--last`` of 0 or fewer rounds exits 2. Text shows money in dollars
(``controller.rules.words.money``) and times in local time (``gaming_day.time_zone``); JSON
keeps integer cents and the journal's UTC times (a contract).
"""

from __future__ import annotations

import argparse
import json
from contextlib import closing
from typing import TYPE_CHECKING

from controller.cli.common import (
    LEGACY_INTEGRITY_STATUS,
    add_journal_options,
    local_time,
    open_journal,
    refuse,
    table_config,
    whole_number,
)
from controller.errors import InputError
from controller.rules.words import money

if TYPE_CHECKING:
    from controller.cli.common import Subparsers


def add_commands(sub: Subparsers) -> None:
    p = sub.add_parser("recall", help="the last rounds from the journal, settle-ready")
    p.add_argument("--last", type=whole_number, default=10, metavar="N", help="how many rounds, 1 or more (default 10)")
    p.add_argument("--round", type=whole_number, metavar="ID", help="one round by its id")
    p.add_argument("--json", action="store_true", help="JSON Lines: one round per line")
    add_journal_options(p)
    p.set_defaults(func=cmd_recall, integrity_status=LEGACY_INTEGRITY_STATUS)

    p = sub.add_parser("meters", help="meters per wager type, rounds, voids, device events")
    p.add_argument("--json", action="store_true")
    p.add_argument("--lifetime", action="store_true", help="count from the first round, not the last reset")
    add_journal_options(p)
    p.set_defaults(func=cmd_meters, integrity_status=LEGACY_INTEGRITY_STATUS)


def cmd_recall(args: argparse.Namespace) -> int:
    from controller.store.recall import recall
    if args.last < 1:
        raise InputError(f"--last {args.last}: the number of rounds to recall must be 1 or more")
    with closing(open_journal(args)) as journal:
        try:
            rounds = recall(journal, args.last, args.round)
        except LookupError as err:
            refuse(err)
            return 1
    config = table_config(args)
    for doc in rounds:
        if args.json:
            print(json.dumps(doc))
            continue
        t = doc["table"]
        print(f"round {doc['id']}  {t['status']}  {local_time(config, t['opened_at'])} .. "
              f"{local_time(config, t['closed_at'])}  "
              f"preset {doc['preset']}  state {t['state']}"
              + (f"  dealt by {t['dealt_by']}" if t.get("dealt_by") else ""))
        if t["void_reason"]:
            print(f"  void: {t['void_reason']}")
        if "dealer" in doc:
            print(f"  dealer {doc['dealer']}  {t['announcement'] or ''}")
        results = {r["seat"]: r for r in t["results"]}
        for seat in doc["seats"]:
            play = {True: "played", False: "folded"}.get(seat.get("play"), "")
            line = f"  position {seat['seat']}: {seat.get('cards', '(no hand)')}  {play}  wagers " + \
                ", ".join(f"{k} {money(v)}" for k, v in seat["wagers"].items() if v)
            if seat["seat"] in results:
                line += f"  net {money(results[seat['seat']]['net'])}"
                line += "  paid" if str(seat["seat"]) in t["paid"] else "  not yet paid"
            print(line)
        for alert in t["alerts"]:
            print(f"  alert {alert['kind']}: {alert['message']}")
    return 0


def cmd_meters(args: argparse.Namespace) -> int:
    from controller.store.recall import meters
    with closing(open_journal(args)) as journal:
        m = meters(journal, lifetime=args.lifetime)
    if args.json:
        print(json.dumps(m))
        return 0
    since = m["since_reset"]
    print("since the first round" if since is None else
          f"since the reset of {local_time(table_config(args), since['at'])} by {since['by']} "
          f"({since['reason']}), after round "
          f"{since['after_round']}")
    r = m["rounds"]
    print(f"rounds: {r['complete']} complete, {r['void']} void, {r['open']} open")
    amounts = ("wagered", "paid", "taken", "hold")
    print(f"{'wager':<16}{'wagers':>8}" + "".join(f"{k:>16}" for k in amounts))
    for name, w in m["wagers"].items():
        print(f"{name:<16}{w['wagers']:>8}" + "".join(f"{money(w[k]):>16}" for k in amounts))
    print(f"cap reductions {money(m['cap_reductions'])}   jackpot hits {m['jackpot_hits']}")
    print("events: " + (", ".join(f"{k} {v}" for k, v in sorted(m["events"].items())) or "none"))
    return 0
