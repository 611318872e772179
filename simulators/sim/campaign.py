"""``table-sim soak`` on the simulation: seeds across processes, every round checked, one report.

Owns a campaign of simulated rounds (simulators/sim/play.py). The rounds asked are cut into seeds
of ``per_seed`` rounds (``seed``, ``seed + 1``, ...); each seed is one table in its own folder
under ``work_dir``, played and checked in a process of its own (``jobs`` at once), and its folder
removed once it checked clean (kept when it did not, or with ``keep``). The summary is the soak's
(simulators/soak_report.py ``summary``'s keys, with what a simulation cannot measure left empty)
and more: each seed's figures, and for a seed that failed the command that replays it exactly to
its first failing round (``replay``), which prints that round's facts. Each finished seed is kept in
the work folder's ledger (simulators/sim/ledger.py) as it ends, so ``resume`` goes on with a campaign
a reboot or a kill cut short.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from simulators.sim.check import passed, round_facts
from simulators.sim.faults import FaultPlan
from simulators.sim.ledger import Ledger
from simulators.sim.play import play
from simulators.sim.world import JOURNAL_FILE, WorldOptions


@dataclass(frozen=True)
class CampaignOptions:
    rounds: int = 1000
    seed: int = 1
    per_seed: int = 1000
    jobs: int = 1
    plan: FaultPlan = field(default_factory=FaultPlan)
    preset: str = "sheet-004"
    positions: int = 6
    work_dir: str = "soak-data"
    keep: bool = False
    durable: bool = False
    stuck_after: float = 600.0


def seeds(o: CampaignOptions) -> list[tuple[int, int]]:
    """(seed, rounds) of each table of the campaign."""
    out, left, seed = [], o.rounds, o.seed
    while left > 0:
        out.append((seed, min(left, o.per_seed)))
        left -= o.per_seed
        seed += 1
    return out


def world_options(o: CampaignOptions, seed: int) -> WorldOptions:
    return WorldOptions(seed=seed, preset=o.preset, positions=o.positions, durable=o.durable)


def play_seed(o: CampaignOptions, seed: int, rounds: int) -> dict[str, Any]:
    """One seed played and checked in this process; its figures (a process pool's unit of work)."""
    folder = Path(o.work_dir).resolve() / f"seed-{seed}"
    shutil.rmtree(folder, ignore_errors=True)
    played, _ = play(world_options(o, seed), folder, rounds, plan=o.plan, stuck_after=o.stuck_after)
    ok = passed(played.check) and played.rounds >= rounds and not played.unexpected_halts
    if ok and not o.keep:
        shutil.rmtree(folder, ignore_errors=True)
    doc = asdict(played)
    doc.update(ok=ok, folder=str(folder) if not ok or o.keep else None,
               rss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, pid=os.getpid())
    if not ok:
        failing = played.check.get("first_discrepancy_round") or played.rounds
        doc["replay"] = f"table-sim soak --seed {seed} --stop-at-round {failing} {replay_options(o)}"
    return doc


def replay_options(o: CampaignOptions) -> str:
    p = o.plan
    return (f"--per-seed {o.per_seed} --preset {o.preset} --fault-rate {p.fault_rate} --kill-rate {p.crash_rate} "
            f"--disk-full-rate {p.disk_full_rate}" + (" --durable" if o.durable else ""))


def _ignore_interrupts() -> None:
    """A worker's: Ctrl-C at the terminal reaches the whole process group; the campaign's own process
    decides (the seeds under way finish, the summary is written), not each worker dying mid-seed."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run(o: CampaignOptions, progress: Any = None, stop: Callable[[], bool] = lambda: False, *,
        resume: bool = False) -> dict[str, Any]:
    """Every seed played (``jobs`` processes at once); the campaign's summary. Once ``stop()`` is true
    (a lab ends a long campaign early) no seed is begun and the seeds under way finish: the summary
    tells what was played. ``resume``: the seeds the work folder's ledger holds are not played again
    (a LedgerError when it holds another campaign)."""
    ledger = Ledger(o.work_dir, o, resume=resume)
    began = time.perf_counter() - ledger.elapsed_before
    finished = ledger.finished()
    todo = [(seed, rounds) for seed, rounds in seeds(o) if seed not in finished]
    results: list[dict[str, Any]] = []
    samples: list[dict[str, Any]] = []

    def counted(doc: dict[str, Any]) -> None:
        results.append(doc)
        samples.append({"t": doc["campaign_elapsed_s"], "rounds": sum(r["rounds"] for r in results),
                        "rss_kb": doc["rss_kb"]})

    def done(doc: dict[str, Any]) -> None:
        doc["campaign_elapsed_s"] = round(time.perf_counter() - began, 2)
        ledger.add(doc)
        counted(doc)
        if progress is not None:
            progress(samples[-1]["rounds"], o.rounds)
    resumed = len(ledger.done)
    for doc in list(ledger.done):
        counted(doc)
    if o.jobs <= 1:
        for seed, rounds in todo:
            if stop():
                break
            done(play_seed(o, seed, rounds))
    else:
        with ProcessPoolExecutor(max_workers=o.jobs, initializer=_ignore_interrupts) as pool:
            futures = [pool.submit(play_seed, o, seed, rounds) for seed, rounds in todo]
            for future in futures:
                if stop():
                    for later in futures:
                        later.cancel()          # those begun cannot be: they finish and are counted
                if not future.cancelled():
                    done(future.result())
    doc = summary(o, results, samples, time.perf_counter() - began)
    doc["seeds_resumed"] = resumed          # seeds read back from the ledger, not played by this process
    return doc


def summary(o: CampaignOptions, results: list[dict[str, Any]], samples: list[dict[str, Any]],
            elapsed: float) -> dict[str, Any]:
    rounds = sum(r["rounds"] for r in results)
    checks = [r["check"] for r in results]

    def total(key: str) -> int:
        return sum(c.get(key, 0) for c in checks)
    faults: Counter[str] = Counter()
    by_state: dict[str, dict[str, int]] = {}
    for r in results:
        faults.update(r["faults"])
        for kind, states in r["faults_by_state"].items():
            for state, n in states.items():
                by_state.setdefault(kind, {}).setdefault(state, 0)
                by_state[kind][state] += n
    failed = [r for r in results if not r["ok"]]
    rss = [s["rss_kb"] for s in samples]
    cpu = sum(r["wall_s"] for r in results)
    return {
        "on": "sim", "rounds_asked": o.rounds, "seed": o.seed,
        "faults": "mixed" if o.plan.fault_rate or o.plan.crash_rate or o.plan.disk_full_rate else "none",
        "fault_plan": asdict(o.plan), "jobs": o.jobs, "per_seed": o.per_seed, "elapsed_s": round(elapsed, 1),
        "rounds_closed": rounds, "rounds_per_second": round(rounds / elapsed, 2) if elapsed else 0,
        "rounds_per_second_per_job": round(rounds / cpu, 2) if cpu else 0,
        "virtual_s": round(sum(r["virtual_s"] for r in results), 1),
        "held": None, "stuck": [dict(s, seed=r["seed"]) for r in results for s in r["stuck"]],
        "faults_injected": dict(sorted(faults.items())), "faults_by_state": by_state,
        "restarts": sum(r["crashes"] for r in results),
        "halts_unexpected": [h for r in results for h in r.get("unexpected_halts", [])],
        "recovery_s": {"p50": None, "max": None},
        "memory_kb": {"first": rss[0] if rss else None, "last": rss[-1] if rss else None,
                      "max": max(rss) if rss else None},
        "latency": {}, "latency_by_life": [], "dealer": {},
        "seeds": [{k: r[k] for k in ("seed", "rounds", "virtual_s", "wall_s", "crashes", "ok", "folder")}
                  | ({"replay": r["replay"]} if "replay" in r else {}) for r in results],
        "failed_seeds": [r["seed"] for r in failed],
        "check": {"coverage_problems": [f"seed {r['seed']}: {r['rounds']} rounds closed" for r in results
                                        if r["rounds"] < dict(seeds(o)).get(r["seed"], 0)],
                  "verify": {"ok": all(c["verify"]["ok"] for c in checks),
                             "said": next((c["verify"]["said"] for c in checks if not c["verify"]["ok"]), "")},
                  "rounds_in_journal": total("rounds_in_journal"), "rounds_recalled": total("rounds_in_journal"),
                  "rounds_settled_again": total("rounds_settled_again"),
                  "resettlement_discrepancies": total("resettlement_discrepancies"),
                  "discrepancy_examples": [dict(e, seed=r["seed"]) for r in results
                                           for e in r["check"]["discrepancy_examples"]][:5],
                  "settle_errors": "", "payments_doubled": total("payments_doubled"),
                  "payments_lost": total("payments_lost"), "void_rounds_that_paid": total("void_rounds_that_paid"),
                  "rounds_void": total("rounds_void")},
        "samples": samples,
    }


def replay(o: CampaignOptions, seed: int, stop_at: int) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """The seed played again exactly, up to its round ``stop_at`` closed; that round's facts."""
    folder = Path(o.work_dir).resolve() / f"seed-{seed}-replay"
    shutil.rmtree(folder, ignore_errors=True)
    played, _ = play(world_options(o, seed), folder, o.per_seed, plan=o.plan, stop_at=stop_at,
                     stuck_after=o.stuck_after)
    return asdict(played), round_facts(folder / JOURNAL_FILE, stop_at)
