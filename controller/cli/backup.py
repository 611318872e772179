"""``table-controller backup DEST``: a checked copy of the table's records, taken while it runs.

Owns the command's options and wording; the copy and its checks are
controller/store/backup.py. Prints where the backup is and what it holds
(``--json``: its BACKUP.json with ``path`` and ``removed``), exit 0. A backup
that does not check out is removed and named on standard error, exit 3; a
missing journal or a destination that cannot be written, exit 2. ``--keep N``
then removes all but this table's N newest backups in DEST.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from controller.cli.common import add_journal_options, table_config
from controller.errors import InputError

if TYPE_CHECKING:
    from controller.cli.common import Subparsers


def add_commands(sub: Subparsers) -> None:
    p = sub.add_parser("backup", help="copy the journal (SQLite's online backup), the PIN file and the audit "
                       "trail into DEST/<table>-<time>, and check the copy")
    p.add_argument("dest", metavar="DEST", help="the folder that holds the backups")
    add_journal_options(p)
    p.add_argument("--include-key", action="store_true",
                   help="copy the journal's key too (a secret: only to a destination kept like the table itself)")
    p.add_argument("--keep", type=int, metavar="N", help="then remove all but this table's N newest backups")
    p.add_argument("--json", action="store_true", help="what was written, as JSON")
    p.set_defaults(func=cmd_backup)


def cmd_backup(args: argparse.Namespace) -> int:
    from controller.app.manifest import version
    from controller.app.run import JOURNAL_FILE, audit_dir
    from controller.store.backup import Sources, backup, prune
    from controller.store.chain import key_path, load_key
    from controller.store.pins import PIN_FILE
    if args.keep is not None and args.keep < 1:
        raise InputError(f"--keep {args.keep}: the number of backups to keep must be 1 or more")
    if not args.dest.strip():          # an unset $DEST: the backup went into the current folder
        raise InputError("DEST is empty: give the folder that holds the backups")
    config = table_config(args)
    data_dir = Path(args.data_dir) if args.data_dir else config.data_dir
    if not (data_dir / JOURNAL_FILE).exists():
        raise InputError(f"{data_dir / JOURNAL_FILE}: no journal here to back up (give --data-dir or --config)")
    try:
        key, _ = load_key(data_dir, config.key_file, create=False)
    except ValueError as err:
        raise InputError(str(err)) from None
    sources = Sources(config.table_id, data_dir / JOURNAL_FILE, key, data_dir / PIN_FILE,
                      audit_dir(config, args.data_dir), key_path(data_dir, config.key_file))
    dest = Path(args.dest)
    written = backup(sources, dest, include_key=args.include_key, version=version())
    removed = [str(p) for p in prune(dest, config.table_id, args.keep)] if args.keep else []
    if args.json:
        print(json.dumps({**written, "removed": removed}, indent=1))
        return 0
    print(f"backup: {written['path']}")
    print(f"  journal: {written['rounds']} rounds, through fact {written['journal_last_fact']}, verified with the key "
          f"{written['key_fingerprint']} ({'copied' if written['key_included'] else 'not copied: keep it apart'})")
    audit = [name for name in written["files"] if name.startswith("audit/")]
    print(f"  audit trail: {len(audit)} file{'s' if len(audit) != 1 else ''}, chain and anchors verified")
    print(f"  PIN file: {'copied' if 'pins.json' in written['files'] else 'none on this table'}")
    for path in removed:
        print(f"removed (older than the {args.keep} kept): {path}")
    return 0
