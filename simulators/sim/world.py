"""One simulated table: the real engine, journal, audit trail and drivers, in memory, on one thread.

Owns putting a table together as ``table-controller run`` does (controller/app/run.py: the audit
trail checked, the journal opened and checked against it, the drivers built from the
configuration, the engine), but with the drivers on in-memory links (simulators/sim/links.py) to
the simulated devices of simulators/table.py, every clock the virtual one
(simulators/sim/clock.py), and every random choice drawn from one ``random.Random(seed)``: the
keys, the cards, the players and their think times, the devices' timing, the dealer's think time,
the faults. The same seed gives the same journal, fact for fact, time for time.

``run`` takes the next thing due (an engine deadline, a byte arriving, a driver's or a device's
timer, the dealer acting), then lets the engine handle every event that produced, one at a time,
before time moves on.
``crash`` drops the engine, drivers, journal and trail as a SIGKILL would; ``start`` opens them
again on the same folder, as a restarted service does, and the round recovers.

Only a simulation may lower the journal's durability: ``durable=False`` (the default) runs the
journal with ``synchronous=OFF`` and the audit trail without fsync (a simulated crash drops the
process, not the machine's power); the real table's configuration has no such setting.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import structlog

from controller.app.config import TableConfig, parse_config
from controller.engine import Engine
from controller.rules.paytable import load_preset
from controller.store.anchors import check_journal_against_audit, check_trail
from controller.store.audit import AuditTrail
from controller.store.audit_head import AT_COMMIT
from controller.store.chain import KEY_FILE
from controller.store.journal import Journal
from drivers import registry
from drivers.wire.auth import DEVICE, HOST, Authenticator
from simulators.dealer import ScriptedDealer
from simulators.sim.clock import VirtualClock
from simulators.sim.links import DeviceLoop, DriverLoop, MemoryLink
from simulators.table import ROLES, SimOptions, SimulatedTable

JOURNAL_FILE, AUDIT_DIR = "journal.sqlite", "audit"
PLACE = Path("/simulation")     # the folder the configuration names: the same for every run of a seed


@dataclass(frozen=True)
class WorldOptions:
    seed: int = 1
    preset: str = "sheet-004"
    positions: int = 6
    think: tuple[float, float] = (0.3, 2.0)     # the dealer's seconds before each action
    # each player's seconds before its chips go down, and before its Play or fold (simulators/players.py
    # ``pace``): stacks and decisions in varied orders and times; None: every player at once
    players_think: tuple[float, float] | None = (0.1, 1.5)
    durable: bool = False       # the journal's synchronous=FULL and the trail's fsync (the real table's); off otherwise
    strategy: str = "optimal"


class Ports:
    """The engine's device ports (controller/app/devices.py ``Devices``' attributes): the drivers."""

    def __init__(self, drivers: dict[str, Any]):
        self.drivers = drivers
        self.shoe, self.sensors, self.sign = drivers["shoe"], drivers["sensors"], drivers["sign"]


def config_text(o: WorldOptions, folder: Path) -> str:
    jackpots = "[jackpot]\nmega = 10000000\nmajor = 2500000\nminor = 250000\n\n" \
        if load_preset(o.preset).super6 else ""
    return (f'[table]\nid = "SIM-{o.seed}"\npreset = "{o.preset}"\npositions = {o.positions}\n\n{jackpots}'
            f'[data]\ndir = "{folder}"\n\n[log]\nformat = "json"\nlevel = "warning"\n\n'
            f'[devices.shoe]\ndriver = "shoe-framed"\nurl = "loop://sim-shoe"\n\n'
            f'[devices.sensors]\ndriver = "sensors-framed"\nurl = "loop://sim-sensors"\n\n'
            '[devices.sign]\ndriver = "sign-alpha"\nurl = "loop://sim-sign"\naddress = "01"\n')


def _in_folder(config: TableConfig, folder: Path) -> TableConfig:
    """The configuration in ``folder``, its framed devices paired with the keys there (as
    simulators/harness.py pairs them); what it says (its digest, journaled) is the same for every run."""
    def paired(role: str, settings: dict[str, Any]) -> dict[str, Any]:
        return {**settings, "key_file": str(folder / "keys" / f"{role}.key")} if role != "sign" else settings
    return replace(config.with_devices({role: replace(dev, settings=paired(role, dev.settings))
                                        for role, dev in config.devices.items()}), data_dir=folder)


class World:
    def __init__(self, options: WorldOptions, folder: Path):
        self.options = o = options
        self.folder = folder
        self.rng = random.Random(o.seed)
        self.clock = VirtualClock()
        (folder / "keys").mkdir(parents=True, exist_ok=True)
        self.keys = {role: self.rng.randbytes(32) for role in ("journal", "shoe", "sensors")}
        for role in ("shoe", "sensors"):
            path = folder / "keys" / f"{role}.key"
            path.write_text(self.keys[role].hex() + "\n")
            path.chmod(0o600)
        # the chain's key where the table keeps it (controller/store/chain.py): verify reads it as a real table's
        (folder / KEY_FILE).write_bytes(self.keys["journal"])
        (folder / KEY_FILE).chmod(0o600)
        self.config: TableConfig = _in_folder(parse_config(config_text(o, PLACE), "simulation"), folder)
        self.links = {role: MemoryLink(role, self.clock, self._stream()) for role in ROLES}
        clocks = {"clock": self.clock.monotonic, "wall": self.clock.wall}
        self.sim = SimulatedTable(SimOptions(seed=self.rng.getrandbits(31), positions=o.positions, preset=o.preset,
                                             strategy=o.strategy, sign_address="01", heartbeat_every=1.0),
                                  self.config.preset, ports={r: link.device for r, link in self.links.items()},
                                  clocks=clocks)
        self.sim.players.rng = self._stream()
        for role in ("shoe", "sensors"):
            getattr(self.sim, role).link.auth = Authenticator(self.keys[role], DEVICE, nonce=self._nonces())
        self.device_loops = [DeviceLoop(device, self.links[role], self.clock)
                             for role, device in (("shoe", self.sim.shoe), ("sensors", self.sim.sensors),
                                                  ("sign", self.sim.sign))]
        for device_loop in self.device_loops:
            device_loop.start()
        self._think = self._stream()
        if o.players_think is not None:
            self.sim.players.pace(self.clock.after, self._stream(), bet=o.players_think, decide=o.players_think,
                                  noticed=self._players_moved)
        self.inbox: deque[Any] = deque()        # events for the engine, in the order they happened
        self.observers: list[Callable[[dict], None]] = []
        self.dealer = ScriptedDealer(self._submit, self.sim.players)
        self.lives = 0
        self.engine: Engine | None = None

    def _nonces(self) -> Callable[[], int]:
        """A link's nonces (drivers/wire/auth.py), from the seed."""
        stream = self._stream()
        return lambda: stream.getrandbits(32)

    def _stream(self) -> random.Random:
        """A random source of its own for one part, drawn from the seed's: parts never share draws."""
        return random.Random(self.rng.getrandbits(64))

    # --- the table's process -----------------------------------------------------------------

    def start(self) -> None:
        """The controller starting (again) on its folder, as controller/app/run.py ``TableRun`` does."""
        config, trail = self.config, self.folder / AUDIT_DIR
        self.audit = AuditTrail(trail, retention=config.audit_retention, clock=self.clock.wall, background_sync=False,
                                fsync=self.options.durable)
        self.audit.check()
        journal = Journal(self.folder / JOURNAL_FILE)
        journal.now = self.clock.iso
        if not self.options.durable:
            journal.db.execute("PRAGMA synchronous=OFF")
        check_journal_against_audit(journal, trail)
        journal.check_at_start()
        check_trail(journal, trail, last=self.audit.opened_last)
        journal.keep_audit_head(None, AT_COMMIT)
        self._configure_logs()
        journal.audit_head = self.audit.head
        self.journal = journal
        self.lives += 1
        drivers, self.loops = {}, []
        for role, dev in config.devices.items():
            facts = {name: getattr(config, name) for name in registry.DRIVERS[dev.driver].from_table}
            cls = registry.driver_class(dev.driver)
            drivers[role] = driver = cls(role, self.links[role].host, self.inbox.append, **dev.settings, **facts,
                                         clock=self.clock.monotonic, wall=self.clock.wall)
            if role in ("shoe", "sensors"):
                driver.link.auth = Authenticator(self.keys[role], HOST, nonce=self._nonces())
            self.loops.append(DriverLoop(driver, self.links[role], self.clock))
        # the anchors straight to the trail's writer, as controller/app/run.py has them
        self.engine = Engine(config, journal, Ports(drivers), clock=self.clock.monotonic, trail=self.audit.write,
                             trail_stamp=self.clock.iso_z)
        self.engine.observers.append(self._observe)
        for loop in self.loops:
            loop.start()
        self.drain()

    def crash(self) -> None:
        """As a SIGKILL: the engine and drivers gone, nothing sealed; the devices and players stay."""
        for loop in self.loops:
            loop.stop()
        for link in self.links.values():
            link.host.close()
        self.inbox.clear()
        self.engine = None
        self.journal.close()
        self.audit.close()
        structlog.reset_defaults()
        self.dealer.forget()            # what was asked of the dead process may not be done

    def close(self) -> None:
        """A clean stop at the end of a run."""
        if self.engine is not None:
            self.crash()

    def _configure_logs(self) -> None:
        """controller/app/logs.py's processors with the virtual time: every entry into the trail,
        none to a console (a campaign's output is its report)."""
        now = self.clock

        def stamp(_logger: Any, _name: str, event: Any) -> Any:
            event["timestamp"] = now.iso_z()
            return event

        def silent(_logger: Any, _name: str, _event: Any) -> Any:
            raise structlog.DropEvent
        structlog.configure(processors=[structlog.contextvars.merge_contextvars, structlog.processors.add_log_level,
                                        stamp, structlog.processors.format_exc_info, self.audit, silent],
                            wrapper_class=structlog.make_filtering_bound_logger(20),
                            cache_logger_on_first_use=False)

    # --- the dealer ---------------------------------------------------------------------------

    def _submit(self, action: str, role: str = "dealer", who: str = "", **args: Any) -> None:
        """The scripted dealer decided: the action reaches the table after the dealer's think time."""
        def act() -> None:
            if self.engine is not None:
                self.engine.submit(action, role=role, who=who, **args)
        self.clock.after(self._think.uniform(*self.options.think), act)

    def _players_moved(self) -> None:
        """A player folded (no chips move, nothing reaches the table): the dealer looks at it again."""
        if self.engine is not None and self.engine.halted is None:
            self.dealer.observe(self.engine.snapshot)

    def _observe(self, snap: dict) -> None:
        for observer in self.observers:
            observer(snap)
        self.dealer.observe(snap)

    # --- time -----------------------------------------------------------------------------------

    def drain(self) -> None:
        """Every event waiting handled by the engine, one at a time, and every deadline due."""
        engine, inbox = self.engine, self.inbox
        while engine is not None:
            if inbox and engine.queue.empty():          # one at a time: each is drawn before the next
                engine.post(inbox.popleft())
            elif not inbox and engine.idle():
                return
            engine.step(0)
            engine = self.engine

    def advance(self) -> bool:
        """Time jumps to the next thing due, which happens; False when nothing is left to happen. (What
        was due before has been drained: ``start`` and each step end with ``drain``.)"""
        due = self.clock.next_due()
        if self.engine is not None:
            wait = self.engine.timers.until_next()
            if wait is not None and (due is None or self.clock.now + wait < due):
                # a deadline a hair ahead (floating point) is still reached: time moves at least one step
                self.clock.advance(max(self.clock.now + wait, math.nextafter(self.clock.now, math.inf)))
                self.drain()
                return True
        if due is None:
            return False
        self.clock.advance(due)
        action = self.clock.pop_due()
        if action is not None:
            action()
        self.drain()
        return True
