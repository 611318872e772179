"""``table-controller``: the command line of the table controller; ``main`` is the console script.

Owns the parser, built from each command group's ``add_commands``, and the one
place where the controller's errors (controller/errors.py) become exit
statuses. Each group module owns its commands' options and their text/JSON
presentation; the work itself lives in the modules each command calls.

    rules.py     presets, settle, par-sheet
    table.py     run
    records.py   recall, meters
    report.py    report: a gaming day's or shift's figures, text, CSV, JSON or printable HTML
    config.py    config check
    jackpot.py   jackpot
    devices.py   devices: each device's identity at each connect
    pins.py      pin set, pin remove, pin list
    behind.py    behind status, behind clear: a journal found behind the floor, kept until cleared
    audit.py     audit verify
    verify.py    verify: the journal, the audit trail and their anchors, all of them
    backup.py    backup: a checked copy of the journal, PIN file and audit trail
    program.py   --version, verify-install: the installed program against its manifest
    common.py    the --config/--data-dir options and the journal they share

Exit status: 0 done; 1 some input could not be processed, each failure
reported (settle's bad lines, recall's unknown round, pin remove's unknown
holder, audit verify's broken chain, verify-install with no manifest to check); 2 usage or configuration error (an
``InputError``, a command or group given without its action, a page that
cannot listen); 3 the journal or audit trail cannot be trusted or written (an
``IntegrityError``), except that ``run``, ``recall``, ``meters`` and
``jackpot`` keep the 2 they exited with for it before the error tree. A
reader that goes away (a closed pipe) ends the command with 0.
"""

from __future__ import annotations

import argparse

from controller.cli import (
    audit,
    backup,
    behind,
    config,
    devices,
    feed,
    jackpot,
    pins,
    program,
    records,
    replay,
    report,
    rules,
    table,
    upgrade,
    verify,
)
from controller.cli.common import STATUS_INPUT, STATUS_INTEGRITY, Command, refuse
from controller.errors import IntegrityError, TableError

# --help's order
GROUPS = (rules, table, records, replay, report, config, jackpot, devices, pins, feed, audit, verify, backup,
          behind, upgrade, program)

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="table-controller",
                                     description="Three Card Poker table controller")
    program.add_version_option(parser)
    sub = parser.add_subparsers(metavar="COMMAND")
    for group in GROUPS:
        group.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command: Command | None = getattr(args, "func", None)
    if command is None:             # no command, or a group (audit, config, pin) without its action
        help_of: argparse.ArgumentParser = getattr(args, "group_parser", parser)
        help_of.print_help()
        return STATUS_INPUT
    try:
        return command(args)
    except TableError as err:
        refuse(err)
        if isinstance(err, IntegrityError):
            status: int = getattr(args, "integrity_status", STATUS_INTEGRITY)
            return status
        return STATUS_INPUT
    except BrokenPipeError:
        return 0
