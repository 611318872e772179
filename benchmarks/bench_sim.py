"""The deterministic simulation's speed, beside the whole table on ptys, in one run.

Measures, on this machine, in this order:

- ``sim``: one seed of the simulation (simulators/sim) in this process, six positions, sheet 004 (every
  side bet offered; the seeded players bet them), no faults, the journal ``synchronous=OFF`` in a folder
  under /dev/shm: rounds per second of wall time and CPU milliseconds per round (the check left out; the
  world's start-up, 25 to 40 ms, counted in: about 0.1 ms a round of 300);
- ``sim, durable``: the same with the journal ``synchronous=FULL`` in the system's temporary folder, as a
  table's;
- ``sim --jobs 1`` and ``--jobs 2``: ``--jobs-seeds`` seeds of ``--jobs-rounds`` rounds each (the
  campaign's own code, simulators/sim/campaign.py: each seed played and checked in a process of its
  own), one process at a time and two at once, alternately ``--jobs-repeats`` times: rounds per second,
  the CPU seconds they took (this process and its children), the cores they obtained (CPU over wall
  time) and the cores other work left idle meanwhile (/proc/stat). On a machine other work keeps busy,
  ``--jobs 2`` can only scale as far as a second core is free: the cores obtained say how far it was;
- ``ptys``: ``table-controller run --autoplay`` (benchmarks/bench_table.py ``measure``: real drivers on
  ptys, the journal durable), steady-state rounds per second, and its process's CPU per round (the
  simulated devices, players and dealer run in it too, as in the simulation).

On a machine shared with other work, rounds per second follow the load; CPU per round does not.

``--profile`` also prints where a simulated round's time goes (cProfile, the 30 costliest by own time).

    .venv/bin/python benchmarks/bench_sim.py --rounds 2000 --pty-rounds 400
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.bench_table import measure  # noqa: E402
from simulators.sim.campaign import CampaignOptions, run  # noqa: E402
from simulators.sim.play import play  # noqa: E402
from simulators.sim.world import WorldOptions  # noqa: E402

MEMORY = "/dev/shm" if Path("/dev/shm").is_dir() else None


def one_seed(rounds: int, seed: int, durable: bool) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="bench-sim-", dir=None if durable else MEMORY))
    try:
        began, cpu = time.perf_counter(), time.process_time()
        played, _ = play(WorldOptions(seed=seed, durable=durable), folder, rounds, checked=False)
        wall, cpu = time.perf_counter() - began, time.process_time() - cpu
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {"rounds": played.rounds, "rounds_per_second": round(played.rounds / wall, 1),
            "cpu_ms_per_round": round(cpu * 1000 / played.rounds, 2), "virtual_s_per_round":
            round(played.virtual_s / played.rounds, 2)}


def _cpu_idle() -> tuple[int, int]:
    """The machine's idle and total jiffies so far, over every core (/proc/stat's first line)."""
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:]]
    return ticks[3] + ticks[4], sum(ticks)


def jobs(rounds: int, seeds: int, seed: int, n: int) -> dict:
    """``seeds`` seeds of ``rounds`` rounds on ``n`` processes: rounds per second, and how much CPU they
    had (see the header)."""
    idle0, all0 = _cpu_idle()
    before = os.times()
    with tempfile.TemporaryDirectory(prefix="bench-jobs-", dir=MEMORY) as work:
        doc = run(CampaignOptions(rounds=rounds * seeds, seed=seed, per_seed=rounds, jobs=n, work_dir=work))
    after = os.times()
    idle1, all1 = _cpu_idle()
    cpu = sum(after[i] - before[i] for i in range(4))      # user, system, children's user and system
    cores = os.cpu_count() or 1
    return {"rounds": doc["rounds_closed"], "rounds_per_second": doc["rounds_per_second"],
            "elapsed_s": doc["elapsed_s"], "cpu_s": round(cpu, 2),
            "cpu_ms_per_round": round(cpu * 1000 / max(doc["rounds_closed"], 1), 2),
            "cores_obtained": round(cpu / doc["elapsed_s"], 2) if doc["elapsed_s"] else None,
            "cores_left_idle": round(cores * (idle1 - idle0) / max(all1 - all0, 1), 2),
            "ok": not doc["failed_seeds"]}


def scaling(rounds: int, seeds: int, seed: int, repeats: int) -> dict:
    """``--jobs 1`` and ``--jobs 2`` alternately, ``repeats`` times each: every run and the medians."""
    runs: dict[int, list[dict]] = {1: [], 2: []}
    for _ in range(repeats):
        for n in (1, 2):
            runs[n].append(jobs(rounds, seeds, seed, n))
    med = {n: statistics.median(r["rounds_per_second"] for r in runs[n]) for n in runs}
    return {"seeds": seeds, "rounds_per_seed": rounds, "runs": {f"--jobs {n}": runs[n] for n in runs},
            "median_rounds_per_second": {f"--jobs {n}": med[n] for n in med},
            "scaling": round(med[2] / med[1], 2) if med[1] else None,
            "median_cores_obtained": {f"--jobs {n}": statistics.median(r["cores_obtained"] for r in runs[n])
                                      for n in runs}}


def profile(rounds: int, seed: int) -> str:
    folder = Path(tempfile.mkdtemp(prefix="bench-prof-", dir=MEMORY))
    profiler = cProfile.Profile()
    try:
        profiler.runcall(play, WorldOptions(seed=seed), folder, rounds, checked=False)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(30)
    return out.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2000, help="rounds of each simulated run")
    parser.add_argument("--pty-rounds", type=int, default=400, help="rounds of the whole table on ptys (0: skip)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs-seeds", type=int, default=8, help="seeds of the --jobs runs (0: skip them)")
    parser.add_argument("--jobs-rounds", type=int, default=100, help="rounds of each seed of the --jobs runs")
    parser.add_argument("--jobs-repeats", type=int, default=2, help="alternating --jobs 1 / --jobs 2 runs")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    results = {"sim": one_seed(args.rounds, args.seed, durable=False),
               "sim, durable": one_seed(args.rounds, args.seed, durable=True)}
    scaled = scaling(args.jobs_rounds, args.jobs_seeds, args.seed, args.jobs_repeats) if args.jobs_seeds else None
    if args.pty_rounds:
        before = os.times()
        results["ptys"] = measure(ROOT, args.pty_rounds, args.seed)
        after = os.times()          # the controller's CPU (its process is this one's child): load-independent
        used = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        results["ptys"]["cpu_ms_per_round"] = round(used * 1000 / max(results["ptys"]["rounds"], 1), 2)
    print(json.dumps(results | ({"jobs": scaled} if scaled else {}), indent=1))
    rate = {name: r["rounds_per_second"] for name, r in results.items()}
    print("\n| run | rounds/s |\n| --- | --- |")
    for name, value in rate.items():
        print(f"| {name} | {value} |")
    cpu = {name: r["cpu_ms_per_round"] for name, r in results.items() if "cpu_ms_per_round" in r}
    print("\n| run | CPU ms per round | rounds/s per core from it |\n| --- | --- | --- |")
    for name, value in cpu.items():
        print(f"| {name} | {value} | {1000 / value:.1f} |")
    if scaled:
        what = f"{scaled['seeds']} seeds x {scaled['rounds_per_seed']} rounds"
        print(f"\n| --jobs ({what}) | rounds/s | CPU ms per round | cores obtained | cores idle meanwhile |\n"
              "| --- | --- | --- | --- | --- |")
        for name, runs in scaled["runs"].items():
            for one in runs:
                print(f"| {name} | {one['rounds_per_second']} | {one['cpu_ms_per_round']} | {one['cores_obtained']} "
                      f"| {one['cores_left_idle']} |")
        print(f"\nscaling, --jobs 2 over --jobs 1 (medians): {scaled['scaling']}x; cores obtained (medians): "
              f"{scaled['median_cores_obtained']}")
    if "ptys" in cpu:
        print(f"simulation over ptys, CPU per round: {cpu['ptys'] / cpu['sim']:.1f}x")
    if "ptys" in rate:
        print(f"simulation over ptys: {rate['sim'] / rate['ptys']:.1f}x (durable: "
              f"{rate['sim, durable'] / rate['ptys']:.1f}x)")
    if args.profile:
        print(profile(min(args.rounds, 500), args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
