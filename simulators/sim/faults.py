"""Faults in the simulation, on the seed's schedule: devices, misdeals, past posting, crashes, a full disk.

Owns when a fault is injected and undone, and the table's process dying and coming back. At each
state the table publishes, one random draw (the world's own stream for faults) may choose one of
simulators/soak.py's ``FAULTS`` (a device silent or dropped in every state, jams, the door, misdeals of
each kind, past posting, sign NAKs), given through the same fault commands ``table-sim`` reads
(simulators/table.py ``command``) and undone ``hold`` seconds later in virtual time; or a crash:

- "crash": the process dies now (simulators/sim/world.py ``crash``), between two events;
- "crash at commit": the failpoint ``journal.commit=N:fail`` (controller/store/failpoints.py) makes one
  of the next commits fail and the engine halt, the journal left exactly as a SIGKILL just before that
  commit leaves it; the process is then dropped;
- "disk full": the same failpoint is the disk saying "database or disk is full"; the table halts and
  says so in words, stays halted until space returns (``space_after`` seconds), and is started again.

Each restart opens the same folder, as systemd restarts the service, and the round recovers.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from controller.store.failpoints import Failpoints
from simulators.soak import FAULTS, Fault

if TYPE_CHECKING:
    from simulators.sim.world import World

RESTART_AFTER = 2.0             # seconds systemd takes to start the service again
DISK_WORDS = "database or disk is full"


@dataclass(frozen=True)
class FaultPlan:
    fault_rate: float = 0.0     # chance of a device fault at each state published
    crash_rate: float = 0.0     # chance of a crash (now, or at one of the next commits) at each state
    disk_full_rate: float = 0.0     # chance of a full disk at one of the next commits
    space_after: float = 30.0   # seconds before a full disk has room again


class Faults:
    def __init__(self, world: World, plan: FaultPlan):
        self.world, self.plan = world, plan
        self.rng = world._stream()
        self.injected: list[tuple[str, str]] = []      # (kind, state)
        self.crashes = 0
        self.restart_due = False
        self.unexpected_halts: list[str] = []
        self.kept_through: list[int] = []               # at each crash, the last fact the journal kept (its chain)
        self._armed: str | None = None                  # the failpoint's kind, until the table halts
        self._pending: list[tuple[tuple[str, ...], bool]] = []     # (undo commands, ends with the round)
        self._state: str | None = None
        world.observers.append(self.on_snapshot)

    def on_snapshot(self, snap: dict[str, Any]) -> None:
        state = snap["state"]
        if state == self._state:
            return
        self._state = state
        if state in ("complete", "void"):
            for commands, _ in [p for p in self._pending if p[1]]:
                self._undo(commands)
            self._pending = [p for p in self._pending if not p[1]]
        plan = self.plan
        if self._armed or self.restart_due or self._pending or not (plan.fault_rate or plan.crash_rate
                                                                   or plan.disk_full_rate):
            return
        draw = self.rng.random()
        if draw < plan.crash_rate:
            self._crash(state)
        elif draw < plan.crash_rate + plan.disk_full_rate:
            self._arm("disk full", state)
        elif draw < plan.crash_rate + plan.disk_full_rate + plan.fault_rate:
            self._device_fault(snap)

    # --- the process ---------------------------------------------------------------------------

    def _crash(self, state: str) -> None:
        if self.rng.random() < 0.5:
            self._arm("crash at commit", state)
            return
        self.injected.append(("crash", state))
        self.restart_due = True         # not while the engine is handing out this snapshot: just after
        self.world.clock.after(0.0, self._now)

    def _now(self) -> None:
        self.kept_through.append(self.world.journal.chain_head[0])
        self.world.crash()
        self.crashes += 1
        self.world.clock.after(RESTART_AFTER, self._restart)

    def _arm(self, kind: str, state: str) -> None:
        self.crash_at_commit(self.world.journal.commits + self.rng.randint(1, 6), kind, state)

    def crash_at_commit(self, at: int, kind: str = "crash at commit", state: str = "") -> None:
        """The process dies at the journal's commit ``at`` (counted since the journal opened, as the
        failpoint counts): that commit is refused, the table halts and is started again."""
        journal = self.world.journal
        failpoints = Failpoints(f"journal.commit={at}:fail")
        failpoints.commits = journal.commits            # the journal's commits, as a process counts them
        journal.failpoints = failpoints
        self._armed = kind
        self.injected.append((kind, state))

    def halted(self) -> None:
        """The engine halted: a failpoint of ours (the process is dropped and started again, after
        the disk has room again for a full one), or a halt nobody asked for (a finding)."""
        engine = self.world.engine
        assert engine is not None and engine.halted is not None
        kind, self._armed = self._armed, None
        if kind is None or DISK_WORDS not in engine.halted:
            self.unexpected_halts.append(engine.halted)
        self.restart_due = True
        self.kept_through.append(self.world.journal.chain_head[0])
        self.world.crash()
        self.crashes += 1
        self.world.clock.after(self.plan.space_after if kind == "disk full" else RESTART_AFTER, self._restart)

    def _restart(self) -> None:
        self.restart_due = False
        self._state = None
        self.world.start()

    # --- devices --------------------------------------------------------------------------------

    def _device_fault(self, snap: dict[str, Any]) -> None:
        state = snap["state"]
        choices = [f for f in FAULTS if state in f.states]
        if not choices:
            return
        fault: Fault = self.rng.choice(choices)
        values = {"pos": self.rng.randint(1, self.world.options.positions)}
        if "{pos}" in " ".join(fault.commands):
            free = [p["position"] for p in snap["positions"] if "pair_plus" not in p["felt"]]
            if not free:
                return
            values["pos"] = self.rng.choice(free)
        for command in fault.commands:
            self.world.sim.command(command.format(**values))
        self.injected.append((fault.kind, state))
        if fault.undo:
            undo = (tuple(c.format(**values) for c in fault.undo), fault.ends_with_round)
            self._pending.append(undo)
            self.world.clock.after(fault.hold, lambda: self._undo_later(undo))

    def _undo_later(self, item: tuple[tuple[str, ...], bool]) -> None:
        if item in self._pending:
            self._pending.remove(item)
            self._undo(item[0])

    def _undo(self, commands: tuple[str, ...]) -> None:
        for command in commands:
            self.world.sim.command(command)

    def undo_all(self) -> None:
        """A round stuck: every fault undone (simulators/soak.py ``_unstick``)."""
        for command in ("shoe silent off", "sensors silent off", "shoe clear-jam", "shoe door closed",
                        "players resume"):
            self.world.sim.command(command)
        self._pending = []

    # --- figures ------------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        return dict(sorted(Counter(kind for kind, _ in self.injected).items()))

    def by_state(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for kind, state in self.injected:
            out.setdefault(kind, {}).setdefault(state, 0)
            out[kind][state] += 1
        return out
