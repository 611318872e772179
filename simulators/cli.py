"""``table-sim``: the simulated shoe, sensors and sign, for a controller in another process.

Owns the command line around simulators/table.py. It starts the three device
models (ptys by default, TCP sockets with ``--transport tcp``, on ports a test
or a lab chooses with ``--base-port N``: shoe N, sensors N+1, sign N+2),
prints one JSON object with each device's URL and a ready-to-use controller
configuration, then reads fault commands, one per line, on standard input
(``help`` lists them) and answers each with one JSON line: ``{"ok": true,
"done": ...}``, or ``{"ok": false, "error": ...}`` saying in words which word
was wrong and what is allowed (nothing is changed then). No command, however
bad, stops the command loop. Ctrl-C or SIGTERM stops it cleanly. The same
seed gives the same cards and the same bets (without ``--seed`` one is taken from the clock,
and the JSON printed at the start names it). A set-up that cannot be made (a
port taken, a bad preset or players file) is refused on standard error with
exit status 2.

The simulated USB shoe is a pyusb backend object and lives in the
controller's process (``table-controller run --simulate --shoe-usb``); it
cannot be reached from another process, so it is not offered here.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time

from controller.rules.paytable import PayTableError, load_preset, preset_names

EPILOG = """\
ports: with --transport tcp each device listens on 127.0.0.1; --base-port N puts the shoe on N,
the sensors on N+1 and the sign on N+2 (default: free ports picked by the system). A port that
is taken is refused (exit 2).

Fault commands, one per line on standard input ('help' lists them), each answered with one JSON
line: {"ok": true, "done": ...} or {"ok": false, "error": "..."} naming the bad word and what is
allowed. 'quit' stops.

table-sim soak [--rounds N] [--seed S] [--faults none|mixed] [--report FILE] ...: the whole table
unattended with faults and SIGKILLs; 'table-sim soak --help' says more.
"""


def _base_port(text: str) -> int:
    from simulators.table import HIGHEST_BASE_PORT
    if not text.isdigit() or not 1 <= int(text) <= HIGHEST_BASE_PORT:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number from 1 to {HIGHEST_BASE_PORT} "
                                         "(the devices take it and the two after it)")
    return int(text)


def _positions(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 9:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of positions from 1 to 9")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="table-sim", description="simulated Three Card Poker table devices",
                                     epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--transport", choices=("pty", "tcp"),
                        help="where the devices sit: ptys (default) or TCP sockets (the default with --base-port)")
    parser.add_argument("--base-port", type=_base_port, metavar="N",
                        help="TCP ports: shoe N, sensors N+1, sign N+2 (default: free ports)")
    parser.add_argument("--seed", type=int, help="seed of the shoe and of the players' wagers (default: taken "
                        "from the clock; the JSON printed at the start names it)")
    parser.add_argument("--positions", type=_positions, default=6, help="positions at the table (1-9, default 6)")
    parser.add_argument("--preset", default="sheet-004", help=f"rules the players bet by ({', '.join(preset_names())})")
    parser.add_argument("--players", metavar="FILE", help="script of wagers and decisions (JSON lines); "
                        "default: seeded random wagers within the limits")
    parser.add_argument("--strategy", choices=("optimal", "always"), default="optimal")
    parser.add_argument("--no-players", action="store_true", help="nobody places chips unless told to")
    parser.add_argument("--data-dir", default="table-data", help="data.dir written into the configuration")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["soak"]:                    # the unattended campaign (simulators/soak_cli.py)
        from simulators.soak_cli import main as soak
        return soak(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.base_port is not None and args.transport == "pty":
        parser.error("--base-port chooses TCP ports: it cannot be given with --transport pty")
    transport = args.transport or ("tcp" if args.base_port is not None else "pty")
    if args.seed is None:                       # a restart must not replay the same rounds
        args.seed = time.time_ns() // 1000 % 2**31

    from simulators.players import ScriptError, load_script
    from simulators.table import SimError, SimOptions, SimulatedTable
    try:
        preset = load_preset(args.preset)
        script = load_script(args.players) if args.players else None
        sim = SimulatedTable(SimOptions(transport=transport, seed=args.seed, positions=args.positions,
                                        preset=args.preset, strategy=args.strategy, script=script,
                                        base_port=args.base_port), preset)
    except (PayTableError, ScriptError, SimError) as err:
        print(f"table-sim: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"table-sim: {getattr(err, 'filename', None) or 'a device port'}: {err.strerror or err}",
              file=sys.stderr)
        return 2
    sim.players.paused = args.no_players
    sim.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    print(json.dumps({"devices": sim.urls(), "config": sim.config_toml(data_dir=args.data_dir),
                      "key_files": sim.key_files, "commands": sim.FAULTS, "seed": args.seed}), flush=True)
    threading.Thread(target=_read_commands, args=(sim, stop), daemon=True).start()
    try:
        stop.wait()
    finally:
        sim.stop()
    return 0


def answer(sim, line: str) -> dict | None:
    """The one JSON answer to one line of standard input (None: nothing to answer)."""
    line = line.strip()
    if not line:
        return None
    if line in ("help", "?"):
        return {"commands": sim.FAULTS}
    try:
        return {"ok": True, "done": sim.command(line)}
    except ValueError as err:                  # SimError: refused in words, nothing changed
        return {"ok": False, "error": str(err)}
    except Exception as err:                   # a device that failed doing it: still one line, in words
        return {"ok": False, "error": f"{line!r} could not be done: {err or type(err).__name__}"}


def _read_commands(sim, stop: threading.Event) -> None:
    for line in sys.stdin:
        if line.strip() in ("quit", "exit"):
            stop.set()
            return
        reply = answer(sim, line)
        if reply is None:
            continue
        try:
            print(json.dumps(reply), flush=True)
        except (BrokenPipeError, ValueError):    # nobody reads the answers any more
            stop.set()
            return


if __name__ == "__main__":
    sys.exit(main())
