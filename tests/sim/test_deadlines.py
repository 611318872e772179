"""The simulation's loops tick when a timer is due, never later (simulators/sim/links.py; simulation tier).

The drivers' and devices' loops no longer tick every 0.25 s: each plans one tick at its driver's or
device's ``next_due``. Two things must hold for that to lose nothing, checked after every step of a
campaign with faults and crashes (the seed's own, and more: silences past the link's timeout and in
the handshake, replies held back, corrupted and forged frames, a shuffle that never completes, a
silent sign, a sign refusing new values; and the devices' clocks set every 45 s, not every hour):

- a tick is planned no later than ``next_due``, whatever changed the driver or device (its own run, the
  engine's command, a player's chips, a fault), so no timer is reached later than it is due;
- before ``next_due`` the timers change nothing (tests/support/deadlines.py ``probe_*``) from the states
  the campaign reaches, so ``next_due`` misses no timer;
- right after they ran, the timers are not still due (a loop would tick again at once, forever).

Each timer on its own, brought due and seen to act at its moment: tests/drivers/test_next_due.py. The
campaign (``-m campaign``) plays five seeds of 60 rounds and probes at half its steps.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

import drivers.framed
import simulators.sim.links as links
import simulators.sim.play as play_module
from drivers.events import CommandFailed, DeviceFault, DeviceOffline
from drivers.wire.framing import encode_frame
from drivers.wire.messages import UseCapabilities
from drivers.wire.shoe_protocol import Door
from simulators.sim.check import passed
from simulators.sim.faults import FaultPlan, Faults
from simulators.sim.play import play
from simulators.sim.world import World, WorldOptions
from tests.support.deadlines import probe_device, probe_driver

PLAN = FaultPlan(fault_rate=0.25, crash_rate=0.03, disk_full_rate=0.01)
CLOCK_EVERY = 45.0
# what the seed's faults do not do: (commands, undone by, after seconds), one every 20 to 40 s
EXTRA = {
    "shoe silent past the timeout": (("shoe silent on",), ("shoe silent off",), 7.0),
    "sensors quiet in the handshake": ((), (), 0.0),
    "sign silent": (("sign silent on",), ("sign silent off",), 9.0),
    "sign refuses new values": (("sign nak 6",), (), 0.0),
    "shoe replies held back": (("shoe delay 0.4",), ("shoe delay 0",), 5.0),
    "sensors replies held back": (("sensors delay 1.5",), ("sensors delay 0",), 4.0),
    "sensors frames corrupted": (("sensors corrupt 6",), (), 0.0),
    "shoe frames forged": ((), (), 0.0),
    "shuffle stalls": ((), (), 0.0),
}


class MoreFaults(Faults):
    """The seed's faults, and one of ``EXTRA`` every 20 to 40 s of virtual time, each in turn."""

    def __init__(self, world: World, plan: FaultPlan):
        super().__init__(world, plan)
        self.extra_rng = random.Random(world.options.seed)
        self.extras: Counter[str] = Counter()
        self._order = self.extra_rng.sample(sorted(EXTRA), len(EXTRA))     # each in turn, in a seeded order
        self._quiet_next_session = False
        world.sim.sensors.listeners.append(self._sensors_heard)
        world.clock.after(15.0, self._extra)

    def _extra(self) -> None:
        world = self.world
        if world.engine is None:                    # the table is down: when it is back
            world.clock.after(5.0, self._extra)
            return
        kind = self._order[sum(self.extras.values()) % len(self._order)]
        on, off, hold = EXTRA[kind]
        self.extras[kind] += 1
        for command in on:
            world.sim.command(command)
        if off:
            world.clock.after(hold, lambda: [world.sim.command(command) for command in off])
        if kind == "sensors quiet in the handshake":     # their next session's first messages go unanswered
            self._quiet_next_session = True
            world.sim.command("sensors drop")
        elif kind == "sign refuses new values" and world.engine is not None:
            sign = world.engine.ports.sign            # a jackpot posted anew, as the engine would show it
            sign.show_values(*(sign.values.get(name, 100_000) for name in ("mega", "major", "minor")))
        elif kind == "shoe frames forged":          # sealed with a key that is not the pairing's
            for i in range(4):
                world.clock.after(i * 0.7, lambda i=i: world.sim.shoe.write_raw(
                    encode_frame(200 + i, Door.TYPE, b"\x01", seal=lambda body: bytes(12))))
        elif kind == "shuffle stalls":
            world.sim.shoe.shuffle_stalls = True
        world.clock.after(self.extra_rng.uniform(20.0, 40.0), self._extra)

    def _sensors_heard(self, direction: str, message: object) -> None:
        if self._quiet_next_session and direction == "received" and isinstance(message, UseCapabilities):
            self._quiet_next_session = False
            self.world.sim.sensors.silent = True
            self.world.clock.after(2.5, lambda: setattr(self.world.sim.sensors, "silent", False))


class Checks:
    def __init__(self, seed: int, probe_share: float):
        self.rng = random.Random(seed)
        self.probe_share = probe_share
        self.steps = 0
        self.probed: Counter[str] = Counter()
        self.stalled: list[str] = []

    def world(self, world: World) -> None:
        """After a step of the world: every loop has a tick planned by its ``next_due``, and (a share of
        the steps: the probes are slow) the timers probed before it change nothing."""
        self.steps += 1
        now, probe = world.clock.now, self.rng.random() < self.probe_share
        for loop in world.loops:
            driver = loop.driver
            if loop.stopped or not driver.connected:
                continue                        # no timers run while the port is closed; it reopens
            due = driver.next_due(now)
            assert loop.ticks.planned <= due, (type(driver).__name__, now, loop.ticks.planned, due)
            if probe:
                self.probed[type(driver).__name__] += probe_driver(driver, now, self.rng)
        for device_loop in world.device_loops:
            device = device_loop.device
            due = device.next_due()
            assert device_loop.ticks.planned <= due, (type(device).__name__, now, device_loop.ticks.planned, due)
            if probe:
                self.probed[type(device).__name__] += probe_device(device, now, self.rng)

    def stalled_check(self, real: Any) -> Any:
        def stalled(part: Any, now: float, due: float) -> float:
            if due <= now:
                self.stalled.append(f"{type(part).__name__} at {now}: still due ({due}) after its timers ran")
            return real(part, now, due)
        return stalled


@pytest.mark.parametrize("seeds, rounds, probe_share", [
    ((41,), 24, 0.1),
    pytest.param(tuple(range(500, 505)), 60, 0.5, marks=pytest.mark.campaign),
], ids=["sample", "campaign"])
def test_no_timer_is_reached_late_and_none_is_missed_in_a_campaign_with_faults(tmp_path, monkeypatch, seeds,
                                                                               rounds, probe_share):
    for seed in seeds:
        campaign_with_checks(tmp_path / str(seed), monkeypatch, seed, rounds, probe_share)


def campaign_with_checks(folder: Any, monkeypatch: pytest.MonkeyPatch, seed: int, rounds: int,
                         probe_share: float) -> None:
    checks = Checks(seed, probe_share)
    advance, start = World.advance, World.start
    made: list[MoreFaults] = []
    events: list[Any] = []

    def checked_advance(world: World) -> bool:
        more = advance(world)
        checks.world(world)
        return more

    def start_listening(world: World) -> None:
        start(world)
        for loop in world.loops:
            post = loop.driver.post
            loop.driver.post = lambda event, post=post: (events.append(event), post(event))

    def more_faults(world: World, plan: FaultPlan) -> MoreFaults:
        made.append(MoreFaults(world, plan))
        return made[-1]
    monkeypatch.setattr(World, "advance", checked_advance)
    monkeypatch.setattr(World, "start", start_listening)
    monkeypatch.setattr(links, "_stalled", checks.stalled_check(links._stalled))
    monkeypatch.setattr(play_module, "Faults", more_faults)
    monkeypatch.setattr(drivers.framed, "CLOCK_EVERY", CLOCK_EVERY)

    played, _ = play(WorldOptions(seed=seed), folder, rounds, plan=PLAN, stuck_after=300.0)
    monkeypatch.undo()

    assert checks.stalled == []
    assert passed(played.check), played.check
    assert played.rounds >= rounds // 2, played
    assert len(made[0].extras) == len(EXTRA) and played.faults, (made[0].extras, played.faults)
    assert checks.steps > 200 * rounds and len(checks.probed) == 6, checks.probed
    assert min(checks.probed.values()) > 50 * rounds * probe_share, checks.probed
    # the timers acted, not only resends and heartbeats: devices silent past the link's timeout, frames
    # never acknowledged, forged frames refused (each timer on its own: tests/drivers/test_next_due.py)
    assert any(isinstance(e, DeviceOffline) and "heartbeat timeout" in e.reason for e in events)
    assert any(isinstance(e, CommandFailed) and "no acknowledgement" in e.reason for e in events)
    assert any(isinstance(e, DeviceFault) and e.reason.startswith("refused") for e in events)
