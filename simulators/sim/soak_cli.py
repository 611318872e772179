"""``table-sim soak`` on the simulation (the default): the options read, the campaign run, the summary said.

Owns what the simulation's soak prints: the JSON summary on standard output (``--summary FILE`` too),
the HTML report (simulators/soak_report.py, the process soak's), a line on standard error as each seed
ends (rounds done of rounds asked) and for each failing seed with the command that replays it, and
with ``--stop-at-round N`` the facts of round N of ``--seed``, one JSON line each (chain, round, time,
kind, data), after the round's summary.
Stopped by SIGTERM or SIGINT (Ctrl-C), no seed is begun, those under way finish, and the summary says
what was played, with ``stopped_by``. ``--resume`` goes on with the campaign in ``--work-dir`` after its
process ended (simulators/sim/ledger.py), given the same options. Exit status as simulators/soak_cli.py
says: 0 clean, 1 a finding, 2 options refused.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path

from simulators.sim.campaign import CampaignOptions, replay, run
from simulators.sim.faults import FaultPlan
from simulators.sim.ledger import LedgerError


def options(args: argparse.Namespace) -> CampaignOptions:
    mixed = args.faults == "mixed"
    plan = FaultPlan(fault_rate=args.fault_rate if mixed else 0.0, crash_rate=args.kill_rate if mixed else 0.0,
                     disk_full_rate=args.disk_full_rate if mixed else 0.0)
    return CampaignOptions(rounds=args.rounds, seed=args.seed, per_seed=args.per_seed, jobs=args.jobs, plan=plan,
                           preset=args.preset, work_dir=args.work_dir, keep=args.keep, durable=args.durable,
                           stuck_after=float(args.stuck_after or 600))


def main_sim(args: argparse.Namespace) -> int:
    o = options(args)
    if args.stop_at_round is not None:
        if args.stop_at_round > o.per_seed:
            print(f"table-sim soak: --stop-at-round {args.stop_at_round}: a seed plays {o.per_seed} rounds "
                  "(--per-seed)", file=sys.stderr)
            return 2
        played, facts = replay(o, args.seed, args.stop_at_round)
        print(json.dumps({k: played[k] for k in ("seed", "rounds", "virtual_s", "crashes", "faults", "check")}),
              flush=True)
        for row in facts:
            print(json.dumps(list(row)))
        return 0 if played["rounds"] >= args.stop_at_round else 1

    def progress(done: int, total: int) -> None:     # a line per seed: a long campaign's way so far
        print(f"table-sim soak: {done} of {total} rounds", file=sys.stderr, flush=True)
    stopped: list[str] = []

    def stop(signum: int, _frame: object) -> None:   # a lab ends a long campaign early and keeps its summary
        stopped.append(signal.Signals(signum).name)
        print(f"table-sim soak: {stopped[0]}: the seeds under way finish, then the summary", file=sys.stderr,
              flush=True)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        doc = run(o, progress, stop=lambda: bool(stopped), resume=args.resume)
    except LedgerError as err:
        print(f"table-sim soak: {err}", file=sys.stderr)
        return 2
    doc["stopped_by"] = stopped[0] if stopped else None     # None: the rounds asked for were played
    text = json.dumps(doc, indent=1)
    print(text, flush=True)
    for seed in doc["seeds"]:
        if not seed["ok"]:
            print(f"table-sim soak: seed {seed['seed']} failed; its folder {seed['folder']}; replay: "
                  f"{seed['replay']}", file=sys.stderr)
    if args.summary:
        Path(args.summary).write_text(text + "\n", encoding="utf-8")
    if args.report:
        from simulators.soak_report import html_report
        Path(args.report).write_text(html_report(doc, doc["samples"], []), encoding="utf-8")
    return 0 if not doc["failed_seeds"] and not doc["check"]["coverage_problems"] else 1
