"""One seed played: a simulated table (simulators/sim/world.py) run for a number of rounds, faults
and crashes on its seeded schedule (simulators/sim/faults.py), then checked (simulators/sim/check.py).

Owns the run's end and its figures: the rounds asked are closed (complete or void), or round
``stop_at`` closed (a failing seed's replay stops there), or nothing is left to happen. A round
that makes no progress for ``stuck_after`` virtual seconds has every fault undone; stuck again, it
is voided by the simulated supervisor, as simulators/soak.py does. Returns what a campaign's report
needs: rounds, virtual and real seconds, faults, crashes, holds and stuck moments, and the check.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simulators.sim.check import check
from simulators.sim.faults import FaultPlan, Faults
from simulators.sim.world import JOURNAL_FILE, World, WorldOptions

VOIDABLE = ("betting", "closed", "dealing", "decisions", "collecting", "held")
GIVE_UP_AFTER = 5           # stuck moments in a row on one round before the seed is given up


@dataclass
class Played:
    seed: int
    rounds: int = 0
    virtual_s: float = 0.0
    wall_s: float = 0.0
    crashes: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    faults_by_state: dict[str, dict[str, int]] = field(default_factory=dict)
    stuck: list[dict[str, Any]] = field(default_factory=list)
    halts: list[str] = field(default_factory=list)
    unexpected_halts: list[str] = field(default_factory=list)   # halts no fault of ours caused: findings
    kept_through: list[int] = field(default_factory=list)       # at each crash, the journal's last fact (chain)
    check: dict[str, Any] = field(default_factory=dict)


def play(options: WorldOptions, folder: Path, rounds: int, *, plan: FaultPlan | None = None,
         stop_at: int | None = None, stuck_after: float = 600.0, checked: bool = True,
         crash_at_commit: int | None = None) -> tuple[Played, World]:
    began = time.perf_counter()
    world = World(options, folder)
    faults = Faults(world, plan or FaultPlan())
    world.dealer.rounds = rounds if stop_at is None else min(rounds, stop_at)
    played = Played(options.seed)
    last_round, progress_at = 0, 0.0
    world.start()
    if crash_at_commit is not None:         # one crash at that commit (a campaign of every commit)
        faults.crash_at_commit(crash_at_commit, state="chosen")
    try:
        while not world.dealer.done.is_set():
            if world.engine is not None and world.engine.halted and not faults.restart_due:
                played.halts.append(world.engine.halted)
                faults.halted()
            if not world.advance():
                break
            if world.dealer.finished > last_round:
                last_round, progress_at = world.dealer.finished, world.clock.now
            elif world.clock.now - progress_at > stuck_after:
                if len(played.stuck) >= GIVE_UP_AFTER and all(s["round"] == played.stuck[-1]["round"]
                                                               for s in played.stuck[-GIVE_UP_AFTER:]):
                    break                       # said in the summary: the seed closed fewer rounds than asked
                _unstick(world, faults, played)
                progress_at = world.clock.now
    finally:
        world.close()
    played.rounds = world.dealer.finished
    played.virtual_s = round(world.clock.now, 3)
    played.crashes = faults.crashes
    played.faults, played.faults_by_state = faults.counts(), faults.by_state()
    played.unexpected_halts = faults.unexpected_halts
    played.kept_through = faults.kept_through
    if checked:
        played.check = check(folder / JOURNAL_FILE)
    played.wall_s = round(time.perf_counter() - began, 3)
    return played, world


def _unstick(world: World, faults: Faults, played: Played) -> None:
    snap = world.engine.snapshot if world.engine is not None else {}
    state, round_id = snap.get("state"), snap.get("round")
    again = bool(played.stuck) and played.stuck[-1]["round"] == round_id and state in VOIDABLE
    played.stuck.append({"at": round(world.clock.now, 3), "state": state, "round": round_id,
                         "prompt": snap.get("prompt"), "voided": again})
    faults.undo_all()
    if state in ("ready", "complete", "void"):
        # players who bet into a round the table never opened (they saw the Antes unlock across a
        # restart) pick their chips up, as a dealer would have them, and the next round opens
        world.sim.players.collect()
    world.dealer.forget()
    if world.engine is not None:                # the dealer looks at the table again, as a person would
        world.dealer.observe(world.engine.snapshot)
    if again and world.engine is not None:
        world.engine.submit("void_round", role="supervisor", who="simulated supervisor",
                            reason=f"simulation: round {round_id} made no progress")
