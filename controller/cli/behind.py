"""``table-controller behind status|clear``: a journal found behind the floor, kept until a technician clears it.

Owns the two commands a technician uses after the table refused to play on a journal behind the
floor's head of its chain (controller/floor/head.py; the finding is kept in the journal,
controller/store/behind.py, and the table starts halted while it stands). ``status`` says whether
a finding stands (exit 0 either way). ``clear --by NAME --reason TEXT`` journals who cleared it and
why, once the cause is dealt with (the right journal put back, or the floor's administrator and the
regulator agreeing to go on from this one); the table plays again after its next start, and the
forwarder holds the journal against the floor again at its first connect. Nothing to clear exits 1;
a journal that does not verify, 3.
"""

from __future__ import annotations

import argparse
import json
from contextlib import closing
from typing import TYPE_CHECKING

from controller.cli.common import add_journal_options, open_journal, refuse, table_config
from controller.errors import InputError
from controller.rules.typed_text import text_problem

if TYPE_CHECKING:
    from controller.cli.common import Subparsers


def add_commands(sub: Subparsers) -> None:
    p = sub.add_parser("behind", help="a journal found behind the floor: whether the finding stands, and "
                       "clearing it (the table starts halted until then)")
    p.set_defaults(group_parser=p)
    actions = p.add_subparsers(metavar="ACTION")
    s = actions.add_parser("status", help="whether a finding stands, in the table's words")
    s.add_argument("--json", action="store_true")
    add_journal_options(s)
    s.set_defaults(func=cmd_status)
    c = actions.add_parser("clear", help="clear the finding (journaled with who and why); the table plays again "
                           "after its next start")
    c.add_argument("--by", required=True, metavar="NAME", help="the technician clearing it")
    c.add_argument("--reason", required=True, metavar="TEXT", help="why the table may play on this journal")
    c.add_argument("--json", action="store_true")
    add_journal_options(c)
    c.set_defaults(func=cmd_clear)


def cmd_status(args: argparse.Namespace) -> int:
    from controller.store.behind import standing
    with closing(open_journal(args)) as journal:
        found = standing(journal)
    if args.json:
        print(json.dumps({"standing": found}))
    elif found is None:
        print("no finding stands: the table plays on this journal")
    else:
        print(f"found {found['at']}: {found['words']}\nthe table starts halted until a technician clears it "
              "(table-controller behind clear --by NAME --reason TEXT)")
    return 0


def cmd_clear(args: argparse.Namespace) -> int:
    from controller.store.behind import clear
    from controller.store.journal import Journal
    by, reason = args.by.strip(), args.reason.strip()
    if not by or not reason:
        raise InputError("--by and --reason must name who clears the finding and why (both are journaled)")
    for name, text in (("--by", by), ("--reason", reason)):
        if (problem := text_problem(name, text)) is not None:      # journaled and shown as the page's are
            raise InputError(problem)
    with closing(open_journal(args)) as checked:        # verified as `verify` checks it, before it is written
        path = checked.path
    with closing(Journal(path, key_file=table_config(args).key_file)) as journal:
        cleared = clear(journal, by, reason)
    if cleared is None:
        refuse("no finding stands: nothing to clear")
        return 1
    if args.json:
        print(json.dumps({"cleared": cleared, "by": by, "reason": reason}))
    else:
        print(f"cleared by {by}: {cleared['words']}\nrestart the table (systemctl restart table-controller); "
              "its forwarder holds the journal against the floor again at its first connect")
    return 0
