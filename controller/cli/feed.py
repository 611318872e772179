"""``table-controller feed add|remove|list``: who may read the table's live feed of facts.

Owns the ``feed`` group. ``add NAME`` makes a reader's token and prints it once (it is kept only as a
hash, controller/store/readers.py); ``remove NAME`` ends that reader's access (a feed it has open ends
within a second); ``list`` names the readers. Each change is a ``feed_reader_changed`` table
event when the data folder has a journal, on its keyed chain like a PIN change. The feed itself is
``GET /api/feed`` on the dealer page's address (docs/feed.md).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from controller.cli.common import add_journal_options, refuse, table_config
from controller.cli.pins import changed_and_journaled
from controller.store.private_file import put_back_later
from controller.store.readers import READERS_FILE, FeedReaders

if TYPE_CHECKING:
    from controller.cli.common import Subparsers


def add_commands(sub: Subparsers) -> None:
    p = sub.add_parser("feed", help="add, remove or list the readers of the table's live feed (surveillance)")
    p.set_defaults(group_parser=p)
    actions = p.add_subparsers(metavar="ACTION")
    a = actions.add_parser("add", help="make a token for reader NAME (printed once; a new one replaces the old)")
    a.add_argument("name")
    add_journal_options(a)
    a.set_defaults(func=cmd_feed_add)
    r = actions.add_parser("remove", help="end reader NAME's access")
    r.add_argument("name")
    add_journal_options(r)
    r.set_defaults(func=cmd_feed_remove)
    ls = actions.add_parser("list", help="the feed's readers and when each was added")
    add_journal_options(ls)
    ls.set_defaults(func=cmd_feed_list)


def _readers(args: argparse.Namespace) -> tuple[FeedReaders, Path]:
    config = table_config(args)
    data_dir = Path(args.data_dir) if args.data_dir else config.data_dir
    return FeedReaders(data_dir / READERS_FILE), data_dir


def cmd_feed_add(args: argparse.Namespace) -> int:
    readers, data_dir = _readers(args)
    tokens: list[str] = []

    def add() -> Callable[[], None]:
        undo = put_back_later(readers.path)
        tokens.append(readers.add(args.name))
        return undo
    # a reader the journal does not name must not read: the readers' file is put back when it refuses
    changed_and_journaled(args, data_dir, readers.path, add, "feed_reader_changed",
                          {"action": "added", "name": args.name})
    print(tokens[0])
    return 0


def cmd_feed_remove(args: argparse.Namespace) -> int:
    readers, data_dir = _readers(args)
    def remove() -> Callable[[], None] | None:
        undo = put_back_later(readers.path)
        return undo if readers.remove(args.name) else None
    if not changed_and_journaled(args, data_dir, readers.path, remove, "feed_reader_changed",
                                 {"action": "removed", "name": args.name}):
        refuse(f"no feed reader named {args.name!r} in {readers.path}")
        return 1
    print(f"feed reader {args.name} removed")
    return 0


def cmd_feed_list(args: argparse.Namespace) -> int:
    readers, _ = _readers(args)
    names = readers.names()
    for name, added in names:
        print(f"{name:<40}added {added}")
    if not names:
        print(f"no feed readers ({readers.path})")
    return 0
