"""``table-sim soak``: the whole table unattended for a long time, faults injected on a seeded schedule.

Owns the campaign. The simulated devices and players live in this process on
TCP sockets; the controller is a real ``table-controller run`` in its own
process, configured to reach them as it reaches hardware; a scripted dealer
works it through its page's HTTP API (simulators/page_client.py). At state
changes, chosen by a seeded random generator, a fault is injected through the
same fault commands ``table-sim`` reads on standard input (devices silent or
dropped, jams, the door, misdeals of each kind, past posting, sign NAKs) and
undone after a while, or the controller is killed with SIGKILL and started
again on the same data folder. Every two seconds a sample is taken: rounds in
the journal, the controller's resident memory, its latency figures. At the
end simulators/soak_check.py settles every round again through the
controller's own commands and reads the journal directly, and
simulators/soak_report.py writes the summary and the HTML report. Every fact
gathered is also written to the work folder as it happens
(simulators/soak_progress.py), so ``--resume`` goes on with a soak whose process
died.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simulators.dealer import ScriptedDealer
from simulators.page_client import PageClient, wait_until
from simulators.soak_progress import FILE, Progress, ProgressError, stop_orphan
from simulators.table import SimOptions, SimulatedTable

PIN = "735911"                  # the simulated supervisor's (verifies jackpot hits)
DEALER_PIN = "246813"           # the simulated dealer's (signs in before betting opens)
SAMPLE_EVERY = 2.0              # seconds between two samples
STUCK_AFTER = 90.0              # default seconds without a finished round before the soak looks into it
VOIDABLE = ("betting", "closed", "dealing", "decisions", "collecting", "held")   # void_round's sources
READY_WITHIN = 60.0             # seconds a restarted controller has to answer


@dataclass(frozen=True)
class Fault:
    kind: str
    states: tuple[str, ...]     # where it is injected
    commands: tuple[str, ...]   # fault commands, at once
    undo: tuple[str, ...] = ()  # fault commands, ``hold`` seconds later
    hold: float = 0.0
    # chips the fault put on the felt go with the round's others (the players collect the table):
    # undone later, its "remove" took a chip of the next round's bets and the round waited for ever
    ends_with_round: bool = False


ANY = ("betting", "closed", "dealing", "decisions", "collecting", "settling", "complete", "ready")
FAULTS = (
    Fault("shoe silent", ANY, ("shoe silent on",), ("shoe silent off",), 3.0),
    Fault("sensors silent", ANY, ("sensors silent on",), ("sensors silent off",), 3.0),
    Fault("shoe dropped", ANY, ("shoe drop",)),
    Fault("sensors dropped", ANY, ("sensors drop",)),
    Fault("sign dropped", ANY, ("sign drop",)),
    Fault("sign nak", ANY, ("sign nak 3",)),
    Fault("shoe jam", ("betting", "dealing"), ("shoe jam 2",), ("shoe clear-jam",), 1.0),
    Fault("shoe door", ("betting", "dealing", "decisions"), ("shoe door open",), ("shoe door closed",), 1.0),
    Fault("misdeal: unreadable card", ("betting", "closed"), ("shoe unreadable-card",)),
    Fault("misdeal: card read twice", ("betting", "closed"), ("shoe repeat-card",)),
    Fault("misdeal: card of the other deck", ("betting", "closed"), ("shoe foreign-card",)),
    Fault("misdeal: four cards", ("betting", "closed"), ("shoe hand-size 4",)),
    Fault("past posting", ("decisions", "collecting", "settling"), ("sensors place {pos} pair_plus 500",),
          ("sensors remove {pos} pair_plus",), 1.0, ends_with_round=True),
)


@dataclass
class SoakOptions:
    rounds: int = 1000
    seed: int = 1
    faults: str = "mixed"               # none | mixed
    fault_rate: float = 0.02            # chance of a fault at each state change (mixed)
    kill_rate: float = 0.0005           # chance of a SIGKILL at each state change (mixed)
    stuck_after: float = STUCK_AFTER    # seconds with no round finished before faults are undone
    positions: int = 6
    preset: str = "sheet-004"
    work_dir: str = "soak-data"
    resume: bool = False                # go on with the soak whose evidence is in work_dir


@dataclass
class Soak:
    options: SoakOptions
    samples: list[dict[str, Any]] = field(default_factory=list)
    injected: list[dict[str, Any]] = field(default_factory=list)
    restarts: list[dict[str, Any]] = field(default_factory=list)
    lives: list[dict[str, Any]] = field(default_factory=list)       # each controller's last latency figures
    stuck: list[dict[str, Any]] = field(default_factory=list)
    starts: list[dict[str, Any]] = field(default_factory=list)     # each segment: the soak's process began

    def __post_init__(self) -> None:
        o = self.options
        self.work = Path(o.work_dir).resolve()
        self.work.mkdir(parents=True, exist_ok=True)
        self.holds = 0
        self.offset = 0.0                   # the campaign's seconds played before this segment
        self.config = self.work / "table.toml"
        self.progress = Progress(self.work)
        try:
            self._gather()
        except ProgressError:
            self.progress.close()           # refused: the work folder's lock goes at once
            raise
        segment = len(self.starts) + 1
        # a resumed segment draws new faults and cards: the same seed again would replay segment 1's
        self.rng = random.Random(o.seed if segment == 1 else f"{o.seed}/{segment}")
        self.sim = SimulatedTable(SimOptions(transport="tcp", seed=o.seed + 7919 * (segment - 1),
                                             positions=o.positions,
                                             preset=o.preset, heartbeat_every=0.5))
        self.config.write_text(self.sim.config_toml(table_id="SOAK-1", data_dir=str(self.work / "data"),
                                                    log_format="json", heartbeat_every=0.5))
        self.port = _free_port()
        self.dealer = ScriptedDealer(self._submit, self.sim.players, rounds=None)
        self.client = PageClient("127.0.0.1", self.port, pin=PIN, on_snapshot=self._snapshot,
                                 dealer_pin=DEALER_PIN)
        self.proc: subprocess.Popen | None = None
        self.last: dict[str, Any] = {}
        self._state: str | None = None
        self._pending_undo: list[tuple[float, tuple[str, ...], bool]] = []   # (due, commands, ends_with_round)
        self._lock = threading.Lock()
        self._kill_due = False
        self.stop_asked: str | None = None      # a signal's name: end now, check and report what was played
        self.starts.append({"segment": segment, "t": round(self.offset, 2),
                            "wall": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "seed": o.seed,
                            "preset": o.preset, "positions": o.positions, "rounds_asked": o.rounds,
                            "faults": o.faults, "fault_rate": o.fault_rate, "kill_rate": o.kill_rate})
        self.progress.write("start", self.starts[-1])

    def _gather(self) -> None:
        """A new soak needs a work folder of its own; ``--resume`` reads back what its soak gathered
        and stops that soak's controller if it outlived the soak's process."""
        o = self.options
        self.progress.hold()
        if not self.progress.exists():
            if o.resume:
                raise ProgressError(f"{self.work} holds no soak to resume ({FILE} not found)")
            if (self.work / "data" / "journal.sqlite").exists():
                raise ProgressError(f"{self.work} already holds a table's journal: choose another --work-dir")
            return
        if not o.resume:
            raise ProgressError(f"{self.work} already holds a soak ({FILE}): --resume goes on with it, or choose "
                                "another --work-dir")
        got = self.progress.load()
        if not got.starts:
            raise ProgressError(f"{self.work / FILE} says nothing of how its soak was started: not a soak's")
        first = got.starts[0]
        # one campaign, one schedule: a segment with other faults would make the summary's rates untrue
        asked = {"seed": o.seed, "preset": o.preset, "positions": o.positions, "faults": o.faults,
                 "fault_rate": o.fault_rate, "kill_rate": o.kill_rate}
        differ = [f"{key} {first.get(key)}" for key, value in asked.items() if first.get(key) != value]
        if differ:
            raise ProgressError(f"the soak in {self.work} was started with {', '.join(differ)}: resume it with "
                                "the options it was started with (only --rounds may change)")
        journal = self.work / "data" / "journal.sqlite"
        if not journal.exists() and any(sample.get("rounds") for sample in got.samples):
            raise ProgressError(f"{journal} is gone, but its soak had played rounds: the journal is the soak's "
                                "evidence; there is nothing to resume")
        self.starts, self.samples, self.injected = got.starts, got.samples, got.injected
        self.restarts, self.stuck, self.lives, self.holds = got.restarts, got.stuck, got.lives, got.holds
        self.offset = got.elapsed
        stop_orphan(got.controller_pid, self.config)

    # --- the controller ------------------------------------------------------------------

    def _command(self, *words: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "controller.cli", *words, "--config", str(self.config)],
                              input=stdin, capture_output=True, text=True, timeout=600)

    def _start_controller(self) -> float:
        """Starts ``run`` and waits until its table has left ``starting``; returns the seconds taken."""
        began = time.monotonic()
        log = open(self.work / "controller.log", "a")
        self.proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config", str(self.config),
                                      "--port", str(self.port)], stdout=log, stderr=log)
        log.close()
        self.progress.write("controller", {"pid": self.proc.pid, "t": round(self._elapsed(), 2)})
        if not wait_until(self._ready, READY_WITHIN, 0.05):
            raise RuntimeError(f"the controller did not become ready within {READY_WITHIN:g} s "
                               f"(see {self.work / 'controller.log'})")
        return time.monotonic() - began

    def _ready(self) -> bool:
        try:
            status, health = self.client.get("/api/health", timeout=1.0)
        except (OSError, ValueError):
            return False
        return status == 200 and health.get("state") != "starting"

    def _kill_and_restart(self, state: str) -> None:
        assert self.proc is not None
        self._keep_latency()
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        seconds = self._start_controller()
        self.dealer.forget()                # what was asked of the dead process may not be done
        self.restarts.append({"state": state, "recovery_s": round(seconds, 3), "at": self._elapsed()})
        self.progress.write("restart", self.restarts[-1])

    def _keep_latency(self) -> None:
        try:
            status, health = self.client.get("/api/health", timeout=2.0)
        except (OSError, ValueError):
            return
        if status == 200:
            self.lives.append(health.get("latency", {}))
            self.progress.write("life", self.lives[-1])

    # --- snapshots (the event thread) and faults ----------------------------------------------

    def _submit(self, action: str, role: str = "dealer", who: str = "", **args: Any) -> None:
        self.client.submit(action, role, who, **args)

    def _snapshot(self, snap: dict) -> None:
        with self._lock:
            self.last = snap
            state = snap["state"]
            if state != self._state:
                if state == "held":
                    self.holds += 1
                    self.progress.write("hold", {"t": round(self._elapsed(), 2), "round": snap["round"]})
                self._state = state
                if state in ("complete", "void"):
                    self._pending_undo = [item for item in self._pending_undo if not item[2]]
                self._maybe_fault(snap)
        self.dealer.observe(snap)

    def _maybe_fault(self, snap: dict) -> None:
        if self.options.faults == "none" or self._pending_undo or self._kill_due:
            return
        state = snap["state"]
        if self.rng.random() < self.options.kill_rate:
            self._kill_due = True           # done by the main thread: it owns the process
            return
        if self.rng.random() >= self.options.fault_rate:
            return
        choices = [f for f in FAULTS if state in f.states]
        if not choices:
            return
        fault = self.rng.choice(choices)
        values = {"pos": self.rng.randint(1, self.options.positions)}
        if "{pos}" in " ".join(fault.commands):
            free = [p["position"] for p in snap["positions"] if "pair_plus" not in p["felt"]]
            if not free:
                return
            values["pos"] = self.rng.choice(free)
        for command in fault.commands:
            self.sim.command(command.format(**values))
        if fault.undo:
            self._pending_undo.append((time.monotonic() + fault.hold, tuple(c.format(**values) for c in fault.undo),
                                       fault.ends_with_round))
        self.injected.append({"fault": fault.kind, "state": state, "round": snap["round"], "at": self._elapsed()})
        self.progress.write("fault", self.injected[-1])

    def _undo_due(self) -> None:
        with self._lock:
            now = time.monotonic()
            due = [item for item in self._pending_undo if item[0] <= now]
            self._pending_undo = [item for item in self._pending_undo if item[0] > now]
        for _, commands, _ in due:
            for command in commands:
                self.sim.command(command)

    # --- the campaign ----------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        for role, pin in (("supervisor", PIN), ("dealer", DEALER_PIN)):
            answer = self._command("pin", "set", role, "soak", stdin=pin + "\n")
            if answer.returncode != 0:
                raise RuntimeError(f"pin set failed: {answer.stderr.strip()}")
        self.sim.start()
        self.began = time.monotonic()
        self._start_controller()
        self.client.start()
        next_sample, last_progress, rounds_seen = 0.0, time.monotonic(), 0
        try:
            while True:
                self._undo_due()
                if self._kill_due:
                    self._kill_and_restart(self._state or "?")
                    self._kill_due = False
                if self.stop_asked:
                    self._sample()
                    break
                if time.monotonic() >= next_sample:
                    sample = self._sample()
                    next_sample = time.monotonic() + SAMPLE_EVERY
                    if sample["rounds"] > rounds_seen:
                        rounds_seen, last_progress = sample["rounds"], time.monotonic()
                    if rounds_seen >= self.options.rounds:
                        break
                    if time.monotonic() - last_progress > self.options.stuck_after:
                        self._unstick()
                        last_progress = time.monotonic()
                time.sleep(0.05)
        finally:
            self._keep_latency()
            self.client.stop()
            if self.proc is not None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(30)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
        return {"elapsed_s": round(self._elapsed(), 1)}

    def close(self) -> None:
        """Stops the simulated devices; after the check: their key files, which the table's
        configuration names, go with them."""
        self.sim.stop()
        self.progress.close()

    def _unstick(self) -> None:
        """No round finished for a long while: say what the table showed, then undo every fault. A
        round still stuck the second time is voided by the simulated supervisor, as a floor person
        ends an irregular round (the simulated players can lose track of a round after a restart and
        leave chips no dealer's script resolves); the summary lists every stuck moment."""
        snap = self.last
        state, round_id = snap.get("state"), snap.get("round")
        again = bool(self.stuck) and self.stuck[-1]["round"] == round_id and state in VOIDABLE
        self.stuck.append({"at": self._elapsed(), "state": state, "round": round_id, "prompt": snap.get("prompt"),
                           "alerts": [a.get("kind") for a in snap.get("alerts", [])], "voided": again})
        self.progress.write("stuck", self.stuck[-1])
        for command in ("shoe silent off", "sensors silent off", "shoe clear-jam", "shoe door closed",
                        "players resume"):
            self.sim.command(command)
        self._pending_undo = []
        self.dealer.forget()
        if again:
            self._submit("void_round", role="supervisor", who="soak supervisor",
                         reason=f"soak: round {round_id} made no progress for {2 * self.options.stuck_after:g} s")

    def _sample(self) -> dict[str, Any]:
        sample = {"t": round(self._elapsed(), 2), "rounds": rounds_closed(self.work / "data" / "journal.sqlite"),
                  "rss_kb": rss_kb(self.proc.pid) if self.proc else 0}
        self.samples.append(sample)
        self.progress.write("sample", sample)
        return sample

    def elapsed(self) -> float:
        return self._elapsed()

    def _elapsed(self) -> float:
        """The campaign's seconds: this segment's and the segments' before it (not the time between)."""
        return time.monotonic() - getattr(self, "began", time.monotonic()) + self.offset


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kb(pid: int) -> int:
    """A process's resident memory (KB, from /proc), 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def rounds_closed(journal: Path) -> int:
    """Rounds closed (complete or void), read straight from the journal file, read-only."""
    import sqlite3
    if not journal.exists():
        return 0
    try:
        db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=1.0)
        try:
            return db.execute("SELECT COUNT(*) FROM rounds WHERE status IN ('complete', 'void')").fetchone()[0]
        finally:
            db.close()
    except sqlite3.DatabaseError:
        return 0


def environment_note() -> str:
    return f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs"
