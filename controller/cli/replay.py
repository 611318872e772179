"""``table-controller replay --round N [--json]``: one round step by step, as the journal tells it.

Owns the command's options and its text; the timeline and its check are controller/store/replay.py.
Text: one line per step (local time, the fact's number, what happened), the felt and cards where they
changed, then the independent settlement check. ``--json``: the whole timeline as one JSON object
(integer cents, the journal's UTC times; each step with the round as it stood). Exit 0 when the check
agrees (or the round was never settled), 1 when it does not or there is no such round; 2 and 3 as
the journal commands (docs/cli.md).
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

if TYPE_CHECKING:
    from controller.cli.common import Subparsers


def add_commands(sub: Subparsers) -> None:
    p = sub.add_parser("replay", help="one round step by step: every fact, the felt and cards as they stood, "
                       "and the round settled again from its recalled cards and wagers")
    p.add_argument("--round", type=whole_number, required=True, metavar="ID", help="the round's id")
    p.add_argument("--json", action="store_true", help="the timeline as one JSON object")
    add_journal_options(p)
    p.set_defaults(func=cmd_replay, integrity_status=LEGACY_INTEGRITY_STATUS)


def cmd_replay(args: argparse.Namespace) -> int:
    from controller.store.replay import replay
    with closing(open_journal(args)) as journal:
        try:
            story = replay(journal, args.round)
        except LookupError as err:
            refuse(err)
            return 1
    agrees = story["check"]["settled_again"] is not False
    if args.json:
        print(json.dumps(story))
        return 0 if agrees else 1
    config = table_config(args)
    print(f"round {story['round']}  {story['status']}  {local_time(config, story['opened_at'])} .. "
          f"{local_time(config, story['closed_at'])}  ({len(story['steps'])} steps)")
    shown: dict = {}
    for step in story["steps"]:
        print(f"  {local_time(config, step['at'])}  #{step['fact']:<7} {step['words']}")
        for what in ("felt", "cards", "decisions"):
            if step[what] and step[what] != shown.get(what):
                print(f"  {'':<29}{what}: {json.dumps(step[what], sort_keys=True)}")
                shown[what] = step[what]
    check = story["check"]
    if check["settled_again"] is None:
        print(f"  check: nothing to settle: {check['why']}")
    elif agrees:
        print("  check: settled again by the rules engine from the recalled cards and wagers: every position agrees")
    else:
        print("  check: DOES NOT AGREE:")
        for difference in check["differences"]:
            print(f"    {difference}")
    return 0 if agrees else 1
