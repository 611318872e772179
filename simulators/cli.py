"""``table-sim``: the simulated shoe, sensors and sign, for a controller in another process.

Owns the command line around simulators/table.py. It starts the three device
models (ptys by default, TCP sockets with ``--transport tcp``), prints one JSON
object with each device's URL and a ready-to-use controller configuration,
then reads fault commands, one per line, on standard input (``help`` lists
them) and answers each with one JSON line. Ctrl-C or SIGTERM stops it
cleanly. The same seed gives the same cards and the same bets.

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

from controller.rules.paytable import PayTableError, load_preset, preset_names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="table-sim", description="simulated Three Card Poker table devices")
    parser.add_argument("--transport", choices=("pty", "tcp"), default="pty")
    parser.add_argument("--seed", type=int, default=1, help="seed of the shoe and of the players' wagers")
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument("--preset", default="sheet-004", help=f"rules the players bet by ({', '.join(preset_names())})")
    parser.add_argument("--players", metavar="FILE", help="script of wagers and decisions (JSON lines); "
                        "default: seeded random wagers within the limits")
    parser.add_argument("--strategy", choices=("optimal", "always"), default="optimal")
    parser.add_argument("--no-players", action="store_true", help="nobody places chips unless told to")
    parser.add_argument("--data-dir", default="table-data", help="data.dir written into the configuration")
    args = parser.parse_args(argv)

    from simulators.players import ScriptError, load_script
    from simulators.table import SimOptions, SimulatedTable
    try:
        preset = load_preset(args.preset)
        script = load_script(args.players) if args.players else None
    except (PayTableError, ScriptError, OSError) as err:
        print(f"table-sim: {err}", file=sys.stderr)
        return 2
    sim = SimulatedTable(SimOptions(transport=args.transport, seed=args.seed, positions=args.positions,
                                    preset=args.preset, strategy=args.strategy, script=script), preset)
    sim.players.paused = args.no_players
    sim.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    print(json.dumps({"devices": sim.urls(), "config": sim.config_toml(data_dir=args.data_dir),
                      "commands": sim.FAULTS}), flush=True)
    threading.Thread(target=_read_commands, args=(sim, stop), daemon=True).start()
    try:
        stop.wait()
    finally:
        sim.stop()
    return 0


def _read_commands(sim, stop: threading.Event) -> None:
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        if line in ("help", "?"):
            print(json.dumps({"commands": sim.FAULTS}), flush=True)
            continue
        if line in ("quit", "exit"):
            stop.set()
            return
        try:
            print(json.dumps({"ok": True, "done": sim.command(line)}), flush=True)
        except ValueError as err:
            print(json.dumps({"ok": False, "error": str(err)}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
