"""``table-controller jackpot``: the posted Super 6 jackpot values, their changes and the last hits.

Owns the command's options and its presentation; the values and hits come
from the journal through controller/store/jackpot.py. No journal where
``--data-dir`` or the configuration points is a usage error (exit 2), and so,
as before the error tree, is a journal that cannot be trusted.
"""

from __future__ import annotations

import argparse
import json
from contextlib import closing
from typing import TYPE_CHECKING

from controller.cli.common import LEGACY_INTEGRITY_STATUS, add_journal_options, local_time, open_journal, table_config
from controller.rules.words import money

if TYPE_CHECKING:
    from controller.cli.common import Subparsers


def add_commands(sub: Subparsers) -> None:
    p = sub.add_parser("jackpot", help="the posted Super 6 jackpot values, their changes and the last hits")
    p.add_argument("--json", action="store_true")
    add_journal_options(p)
    p.set_defaults(func=cmd_jackpot, integrity_status=LEGACY_INTEGRITY_STATUS)


def cmd_jackpot(args: argparse.Namespace) -> int:
    from controller.store.jackpot import report
    with closing(open_journal(args)) as journal:
        doc = report(journal)
    if args.json:
        print(json.dumps(doc))
        return 0
    config = table_config(args)
    if not doc["posted"]:
        print("no jackpot values posted (this table's rules have no Super 6 jackpot, or it never ran)")
    for name, entry in doc["posted"].items():
        changed = local_time(config, entry.get("changed_at"))
        print(f"{name.upper():<6}{money(entry['value']):>16}   changed {changed} by "
              f"{entry.get('changed_by', '?')} ({entry.get('reason', '')})")
    print(f"last {len(doc['hits'])} hit{'s' if len(doc['hits']) != 1 else ''}:" if doc["hits"] else "no hits")
    for hit in doc["hits"]:
        print(f"  round {hit['round']} position {hit['seat']}: {hit['jackpot'].upper()} {money(hit['amount'])} "
              f"of {money(hit['posted'])} ({hit['share_percent']}% share, {hit['winners']} winner"
              f"{'s' if hit['winners'] != 1 else ''})  {hit['cards']}  "
              f"verified {local_time(config, hit['verified_at'])} by "
              f"{hit['verified_by']}")
    return 0
