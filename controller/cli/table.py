"""``table-controller run``: the table, on its configured devices or simulated ones.

Owns the options of ``run`` and turning them into ``RunOptions``; the run
itself is controller/app/run.py. With ``--autoplay --rounds N`` and standard error a
terminal, a progress line and a closing summary in dollars go there (standard output
keeps only the JSON summary), and the console logs warnings and above unless
``--log-level`` says. A program whose installed files are not the ones installed
(controller/app/manifest.py), a configuration, PIN file, journal or audit trail that
stops the start, or a page that cannot listen, exits 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING

from controller.cli.common import LEGACY_INTEGRITY_STATUS, given_path
from controller.cli.progress import Progress
from controller.errors import InputError

if TYPE_CHECKING:
    from controller.cli.common import Subparsers


def add_commands(sub: Subparsers) -> None:
    p = sub.add_parser("run", help="run the table (simulated devices when no configuration is given)")
    p.add_argument("--config", metavar="FILE", type=given_path,
                   help="table configuration (TOML); default: the embedded one, on simulated devices")
    p.add_argument("--simulate", action="store_true",
                   help="put simulated devices on ptys in place of the configured ones")
    p.add_argument("--autoplay", action="store_true",
                   help="scripted players and dealer play whole rounds (needs simulated devices)")
    p.add_argument("--rounds", type=int, metavar="N", help="with --autoplay: stop after N rounds")
    p.add_argument("--seed", type=int, help="seed of the simulated shoe and players (default: taken from the "
                   "clock and printed, so a restart does not replay the same rounds)")
    p.add_argument("--strategy", choices=("optimal", "always"), default="optimal",
                   help="how the scripted players decide")
    p.add_argument("--royal-at", type=int, action="append", default=[], metavar="ROUND",
                   help="with --simulate: in the players' round ROUND (from 1) position 1 alone bets Ante $5 "
                   "and Super 6 $10 and is dealt a royal flush (Super 6's MINOR on sheet 004); repeatable")
    p.add_argument("--shoe-usb", action="store_true", help="attach the simulated shoe by USB")
    p.add_argument("--sim-apart", action="store_true",
                   help="with simulated devices: run them, the players and the scripted dealer in a process "
                   "of their own, where hardware would be (benchmarks: the controller's process alone)")
    p.add_argument("--data-dir", metavar="DIR", type=given_path, help="journal and audit files (overrides data.dir)")
    p.add_argument("--log-format", choices=("json", "console"), help="overrides log.format")
    p.add_argument("--log-level", choices=("debug", "info", "warning", "error"),
                   help="overrides log.level on the console (the audit trail keeps info and above); "
                   "--autoplay --rounds N in a terminal shows progress and logs only warnings unless asked")
    p.add_argument("--port", type=int, metavar="N", help="the dealer's page port (overrides page.port; "
                   "0 picks a free one)")
    p.set_defaults(func=cmd_run, integrity_status=LEGACY_INTEGRITY_STATUS)


def cmd_run(args: argparse.Namespace) -> int:
    # The program's self-check comes before the engine, the drivers and the page are imported: a
    # module added beside one of theirs (an extension module wins over a .py) never gets to run.
    from controller.app.manifest import check_at_start
    program = check_at_start()
    # usage errors: exit 2 (docs/cli.md; a SystemExit of words exited 1)
    if any(r < 1 for r in args.royal_at):
        raise InputError(f"--royal-at {min(args.royal_at)}: a round number is 1 or more")
    if args.rounds is not None and args.rounds < 1:     # -1 played no round, 0 played on without end
        raise InputError(f"--rounds {args.rounds}: the number of rounds to play is 1 or more")
    if args.port is not None and not 0 <= args.port <= 65535:  # the page's thread died on it, the table ran on
        raise InputError(f"--port {args.port}: a port number is 1-65535 (0 picks a free one)")
    if args.royal_at and args.config is not None and not args.simulate:
        raise InputError("--royal-at needs simulated devices (--simulate)")
    if args.sim_apart and (args.shoe_usb or (args.config is not None and not args.simulate)):
        raise InputError("--sim-apart needs simulated devices on ptys (--simulate, "
                         "without --shoe-usb: the simulated USB bus lives in the controller's process)")
    seed_from_clock = args.seed is None         # a restart must not replay the same rounds; the seed is said
    seed = time.time_ns() // 1000 % 2**31 if seed_from_clock else args.seed
    # run brings in the engine, the drivers and the page's web server: only when running
    from controller.app.run import RunOptions, run
    watcher = None
    level = args.log_level
    if args.autoplay and args.rounds and sys.stderr.isatty():
        # a progress line on the terminal; info lines would scroll it away, so they stay in the audit trail
        watcher = Progress("run", "rounds", args.rounds)
        level = level or "warning"
    return run(RunOptions(program=program, config=args.config, simulate=args.simulate, autoplay=args.autoplay,
                          rounds=args.rounds, seed=seed, seed_from_clock=seed_from_clock, data_dir=args.data_dir,
                          log_format=args.log_format, shoe_usb=args.shoe_usb,
                          strategy=args.strategy, port=args.port, log_level=level,
                          royal_at=tuple(args.royal_at), sim_apart=args.sim_apart), watcher)
