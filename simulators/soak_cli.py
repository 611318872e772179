"""``table-sim soak``: its command line, around the simulation (simulators/sim/campaign.py, the
default) and the whole table in its own process (simulators/soak.py, ``--on process``).

Owns the options a lab gives a soak and what it prints: one JSON summary on
standard output (also written to ``--summary FILE``), the HTML report to
``--report FILE``, and the exit status: 0 when every round settled again as the
journal says, no payment was doubled or lost and the journal verified; 1
otherwise; 2 for options refused in words. ``--seed S --stop-at-round N`` plays
one seed of the simulation again exactly and stops once its round N closed,
printing that round's facts.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path

from controller.rules.paytable import preset_names


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="table-sim soak", description=(
        "the whole table unattended, faults and crashes from a seeded schedule: by default the deterministic "
        "simulation (the real engine, journal, audit trail and drivers wired in memory to the simulated devices, "
        "a virtual clock; one seed per process with --jobs); --on process: the real controller in its own "
        "process, simulated devices and players here, a scripted dealer on its page"))
    p.add_argument("--on", choices=("sim", "process"), default="sim",
                   help="sim: the deterministic simulation (default); process: table-controller run in its own "
                   "process on simulated devices over sockets, killed with SIGKILL")
    p.add_argument("--jobs", type=_at_least(1), default=1, help="sim: seeds played at once, one per process")
    p.add_argument("--per-seed", type=_at_least(1), default=1000, metavar="N",
                   help="sim: rounds of each seed's table (seeds S, S+1, ... until --rounds) (default 1000)")
    p.add_argument("--disk-full-rate", type=_rate, default=0.0002,
                   help="sim: chance of a full disk at each state change (the table halts, then restarts)")
    p.add_argument("--stop-at-round", type=_at_least(1), metavar="N",
                   help="sim: play --seed again exactly, stop once its round N closed and print its facts")
    p.add_argument("--durable", action="store_true", help="sim: the journal synchronous=FULL as on a table "
                   "(default: OFF, which only a simulation may use)")
    p.add_argument("--keep", action="store_true", help="sim: keep every seed's folder (default: only failing ones)")
    p.add_argument("--rounds", type=_at_least(1), default=1000, help="rounds to close (default 1000)")
    p.add_argument("--seed", type=int, default=1, help="seed of the cards, the players and the faults")
    p.add_argument("--faults", choices=("none", "mixed"), default="mixed",
                   help="mixed: device faults, misdeals, past posting, sign NAKs and SIGKILLs (default)")
    p.add_argument("--fault-rate", type=_rate, default=0.02, help="chance of a fault at each state change")
    p.add_argument("--kill-rate", type=_rate, default=0.0005, help="chance of a SIGKILL at each state change "
                   "(sim: a crash, now or at one of the next commits)")
    p.add_argument("--preset", choices=preset_names(), default="sheet-004")
    p.add_argument("--stuck-after", type=_at_least(5), metavar="S",
                   help="seconds with no round finished before the soak undoes its faults (twice: voids the "
                   "round) (default 90; sim: 600 seconds of virtual time)")
    p.add_argument("--work-dir", default="soak-data", help="the configuration, journal, audit and logs")
    p.add_argument("--report", metavar="FILE", help="write the HTML report here")
    p.add_argument("--summary", metavar="FILE", help="write the JSON summary here too")
    p.add_argument("--resume", action="store_true", help=(
        "go on with the soak in --work-dir after its process ended (a reboot, a kill). sim: the seeds its "
        "ledger (seeds.jsonl) holds are not played again, a seed cut short is played again from its start; "
        "give the same options. process: what it gathered is read back from soak-progress.jsonl, the table "
        "recovers from its journal as after a SIGKILL, the simulated devices start afresh as after a power "
        "cut; give the same --seed and --preset"))
    return p


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.on == "sim":
        from simulators.sim.soak_cli import main_sim
        return main_sim(args)
    if args.stop_at_round is not None:
        print("table-sim soak: --stop-at-round replays a seed of the simulation (--on sim)", file=sys.stderr)
        return 2
    from simulators.soak import Soak, SoakOptions
    from simulators.soak_check import check, journal_path
    from simulators.soak_progress import ProgressError
    from simulators.soak_report import html_report, summary
    try:
        soak = Soak(SoakOptions(rounds=args.rounds, seed=args.seed, faults=args.faults, fault_rate=args.fault_rate,
                                kill_rate=args.kill_rate, preset=args.preset, work_dir=args.work_dir,
                                stuck_after=float(args.stuck_after or 90), resume=args.resume))
    except ProgressError as e:
        print(f"table-sim soak: {e}", file=sys.stderr)
        return 2

    def stop(signum: int, _frame: object) -> None:   # a lab ends a long campaign early and keeps its report
        soak.stop_asked = signal.Signals(signum).name
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        soak.run()
        checked = check(soak.config, journal_path(soak.work))
    finally:
        soak.close()
    doc = summary(soak, checked, round(soak.elapsed(), 1))
    doc["stopped_by"] = soak.stop_asked         # None: the rounds asked for were played
    text = json.dumps(doc, indent=1)
    print(text, flush=True)
    if args.summary:
        Path(args.summary).write_text(text + "\n", encoding="utf-8")
    if args.report:
        Path(args.report).write_text(html_report(doc, soak.samples, soak.restarts), encoding="utf-8")
    good = (checked["verify"]["ok"] and not checked["coverage_problems"] and
            checked["resettlement_discrepancies"] == 0 and
            checked["payments_doubled"] == 0 and checked["payments_lost"] == 0 and
            checked["void_rounds_that_paid"] == 0)
    return 0 if good else 1


def _at_least(low: int):
    def convert(text: str) -> int:
        if not text.isdigit() or int(text) < low:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least {low}")
        return int(text)
    return convert


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a chance from 0 to 1")
    return value


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
