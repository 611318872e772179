"""``table-controller devices``: who each framed device said it was, at its last connect and before.

Owns the command's options and its presentation for a technician: manufacturer,
model, serial, firmware version and checksum, catalog version, capabilities
offered and used (docs/protocols/framing.md, Session), read from the journal's
``device_identity`` events through controller/store/identities.py. No journal
where ``--data-dir`` or the configuration points is a usage error (exit 2); a
journal that does not verify, 3.
"""

from __future__ import annotations

import argparse
import json
from contextlib import closing
from typing import TYPE_CHECKING

from controller.cli.common import add_journal_options, open_journal
from controller.errors import InputError

if TYPE_CHECKING:
    from controller.cli.common import Subparsers


def add_commands(sub: Subparsers) -> None:
    p = sub.add_parser("devices", help="each device's identity (maker, model, serial, firmware) at each connect")
    p.add_argument("--last", type=int, default=10, help="connects listed, newest first (1-1000, default 10)")
    p.add_argument("--json", action="store_true")
    add_journal_options(p)
    p.set_defaults(func=cmd_devices)


def cmd_devices(args: argparse.Namespace) -> int:
    from controller.store.identities import identities
    if not 1 <= args.last <= 1000:
        raise InputError(f"--last {args.last}: give 1 to 1000 connects")
    with closing(open_journal(args)) as journal:
        doc = identities(journal, args.last)
    if args.json:
        print(json.dumps(doc))
        return 0
    if not doc["devices"]:
        print("no device has identified itself yet (the table never ran with framed devices)")
    for role, who in doc["devices"].items():
        print(f"{role}: {who['manufacturer']} {who['model']}, serial {who['serial']}, firmware "
              f"{who['firmware_version']} (checksum {who['firmware_checksum']}), "
              f"protocol {who.get('protocol_version')}")
        print(f"  capabilities {', '.join(who['capabilities']) or 'none'}; used "
              f"{', '.join(who.get('capabilities_used', [])) or 'none'}; last connect {who['at']}")
    if doc["connects"]:
        print(f"last {len(doc['connects'])} connect{'s' if len(doc['connects']) != 1 else ''}:")
    for connect in doc["connects"]:
        print(f"  {connect['at']}  {connect['device']}: {connect['model']} serial {connect['serial']} "
              f"firmware {connect['firmware_version']}")
    return 0
