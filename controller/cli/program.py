"""``table-controller --version`` and ``verify-install``: which program this is, and whether its files are intact.

Owns the wording of both and the verdict's exit status; what is checked and
how is controller/app/manifest.py. ``verify-install`` prints the manifest (one
``SHA256  PATH  STATUS`` line per installed file, the lines a lab compares with
the certified release), the manifest's own digest and the verdict:
0 verified; 3 a file changed, missing or added (an integrity failure, as
``verify``); 1 when there is no manifest to check against (a program run from
a source tree, as developers do): nothing was verified.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from controller.cli.common import STATUS_INTEGRITY, refuse

if TYPE_CHECKING:
    from controller.cli.common import Subparsers

STATUS_UNVERIFIED = 1


class VersionAction(argparse.Action):
    """``--version``: read the manifest only when asked (the parser is built for every command)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit()


def version_text() -> str:
    from controller.app.manifest import ProgramError, inspect, version
    try:
        program = inspect(hash_files=False)
    except ProgramError as err:             # --version still answers, and says why nothing is verified
        return f"table-controller {version()}\n{err}"
    if program.kind == "installed":
        where = (f"installed in {program.location}; manifest sha256 {program.digest} "
                 f"({len(program.entries)} files; `table-controller verify-install` checks them)")
    else:
        where = f"development tree {program.location} (not installed: no manifest)"
    return f"table-controller {program.version}\n{where}"


def add_version_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--version", action=VersionAction,
                        help="the program's version and its manifest's digest, then exit")


def add_commands(sub: Subparsers) -> None:
    p = sub.add_parser("verify-install", help="check every installed file of the program against its SHA-256 "
                       "manifest; print the manifest and the verdict")
    p.add_argument("--json", action="store_true", help="the manifest and verdict as one JSON object")
    p.set_defaults(func=cmd_verify_install)


def cmd_verify_install(args: argparse.Namespace) -> int:
    from controller.app.manifest import inspect
    program = inspect()
    if args.json:
        print(json.dumps(program.as_json(), indent=2))
    else:
        print(f"program: three-card-table {program.version}, {program.kind} ({program.location})")
        if program.kind == "installed":
            for entry in sorted(program.entries, key=lambda e: e.path):
                print(f"{entry.sha256}  {entry.path}  {entry.status}")
            print(f"manifest: {len(program.entries)} files, sha256 {program.digest}")
            print(f"byte-code: {program.bytecode} .pyc files compile from their verified sources")
    for problem in program.problems:
        refuse(problem)
    if program.verdict == "development":
        refuse("not an installed program (a source tree): there is no manifest, nothing was verified")
        return STATUS_UNVERIFIED
    if program.problems:
        if not args.json:
            print(f"changed: {len(program.problems)} file{'s' if len(program.problems) != 1 else ''} "
                  "not as installed")
        return STATUS_INTEGRITY
    if not args.json:
        print("verified")
    return 0
