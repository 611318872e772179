"""After a (re)connection the host reads the whole felt before betting may close on it (sensors.md:
"Snapshot answers SnapshotRequest with every spot; the host asks after each connection").

Sensors that went quiet during the handshake, for less than the link's silence timeout, let the
host's SnapshotRequest fail after its retransmissions; nothing asked again (no PeerSilent, so no new
session), and the table showed an empty felt while chips lay on it until a supervisor voided. Here:
the real driver and the simulated sensors on the simulation's in-memory link and virtual clock, and
the round with fake ports (tests/round/bench.py)."""

from __future__ import annotations

import random

import structlog

from drivers.events import CommandFailed, DeviceOffline, DeviceOnline, FeltRead, SpotChanged
from drivers.sensors import SNAPSHOT_AGAIN_AFTER, SensorDriver
from drivers.wire import sensor_protocol as proto
from simulators.devices.sensors import SimulatedSensors
from simulators.sim.clock import VirtualClock
from simulators.sim.links import DeviceLoop, DriverLoop, MemoryLink
from tests.round.bench import Bench


def sensors_on_a_line(seed: int) -> tuple[VirtualClock, MemoryLink, SimulatedSensors]:
    """The simulated sensors on the simulation's in-memory line and virtual clock, their loop started
    (the logs quiet until ``play_out`` ends)."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(50))
    clock = VirtualClock()
    link = MemoryLink("sensors", clock, random.Random(seed))
    sensors = SimulatedSensors(link.device, positions=6, clock=clock.monotonic, wall=clock.wall)
    return clock, link, sensors


def play_out(clock: VirtualClock, until: float) -> None:
    """Every timer due, in time order, until ``until`` virtual seconds."""
    try:
        while clock.now < until and (due := clock.next_due()) is not None:
            clock.advance(due)
            action = clock.pop_due()
            if action is not None:
                action()
    finally:
        structlog.reset_defaults()


def quiet_in_the_handshake(after: float, quiet: float, until: float = 20.0) -> tuple[SensorDriver, list]:
    """Chips on position 2's Ante; the sensors go quiet ``after`` seconds after the host took them
    online (its UseCapabilities, SetClock and SnapshotRequest still unacknowledged), for ``quiet``."""
    clock, link, sensors = sensors_on_a_line(1)
    sensors.spots[(2, 0)] = 500
    DeviceLoop(sensors, link, clock).start()
    events: list = []

    def post(event: object) -> None:
        events.append(event)
        if isinstance(event, DeviceOnline) and len([e for e in events if isinstance(e, DeviceOnline)]) == 1:
            clock.after(after, lambda: setattr(sensors, "silent", True))
            clock.after(after + quiet, lambda: setattr(sensors, "silent", False))
    driver = SensorDriver("sensors", link.host, post, positions=6, clock=clock.monotonic, wall=clock.wall)
    DriverLoop(driver, link, clock).start()
    play_out(clock, until)
    return driver, events


def test_a_snapshot_request_lost_while_the_sensors_were_quiet_is_asked_again_until_answered():
    driver, events = quiet_in_the_handshake(0.01, 2.5)
    names = [type(e).__name__ for e in events]
    failed = [e.command for e in events if isinstance(e, CommandFailed)]
    assert "SnapshotRequest" in failed                  # the first request went unacknowledged
    assert not [e for e in events if isinstance(e, DeviceOffline)]     # quiet too briefly for a new session
    assert SpotChanged("sensors", 2, "ante", "placed", 500, None) in events    # asked again: the chips are seen
    assert names[-1] == "FeltRead" and names.index("SpotChanged") < names.index("FeltRead")
    assert driver.felt_read and driver.spots == {(2, 0): 500}


def test_a_snapshot_asked_for_and_never_answered_is_asked_again():
    """Quiet for longer than the silence timeout: a new session, which asks again itself; then
    still read once, and only once the sensors answer."""
    driver, events = quiet_in_the_handshake(0.01, 2 * SNAPSHOT_AGAIN_AFTER)
    assert [type(e).__name__ for e in events].count("FeltRead") == 1 and driver.felt_read
    assert driver.spots == {(2, 0): 500}


def test_betting_does_not_close_on_a_felt_the_sensors_have_not_read_since_they_connected(tmp_path):
    from drivers.events import DeviceOffline as Offline
    bench = Bench(tmp_path)
    bench.devices_up()
    bench.open_and_bet({1: {"ante": 500}})
    bench.post(Offline("sensors", "fake://sensors", "unplugged"), DeviceOnline("sensors", "fake://sensors"))
    assert bench.snap["devices"]["sensors"]["detail"] == "online, reading every spot"
    verdict = bench.act("no_more_bets")
    assert not verdict.ok and bench.state == "betting"
    assert verdict.message == ("the bet-spot sensors have not yet reported every spot since they connected "
                               "(asked again until they do): the felt is not read; if it lasts, call a technician")
    bench.place(3, "ante", 1000)                        # the snapshot: chips put down while the link was down
    bench.post(FeltRead("sensors"))
    assert bench.snap["devices"]["sensors"]["detail"] == "online"
    bench.done("no_more_bets")
    assert bench.records("wagers")[-1].data["positions"] == {
        "1": {"ante": 500, "pair_plus": 0, "six_card_bonus": 0, "super6": 0},
        "3": {"ante": 1000, "pair_plus": 0, "six_card_bonus": 0, "super6": 0}}


def test_an_unlock_lost_while_the_sensors_were_quiet_is_sent_again():
    """The locks are the felt's wanted state: Open betting's unlock, unacknowledged by sensors quiet
    for less than the silence timeout, was never sent again, so the spots stayed locked through the
    betting round (a simulated campaign's round stuck in betting until the supervisor voided it)."""
    clock, link, sensors = sensors_on_a_line(2)
    DeviceLoop(sensors, link, clock).start()
    events: list = []
    driver: SensorDriver

    def quiet_then_unlock() -> None:
        sensors.silent = True
        driver.lock(False)                                      # Open betting, while the sensors are quiet
        clock.after(1.5, lambda: setattr(sensors, "silent", False))

    def post(event: object) -> None:
        events.append(event)
        if isinstance(event, FeltRead) and len([e for e in events if isinstance(e, FeltRead)]) == 1:
            driver.lock(True)                                   # between rounds: the felt locked
            clock.after(1.0, quiet_then_unlock)
    driver = SensorDriver("sensors", link.host, post, positions=6, clock=clock.monotonic, wall=clock.wall)
    DriverLoop(driver, link, clock).start()
    play_out(clock, 20.0)
    assert "Lock" in [e.command for e in events if isinstance(e, CommandFailed)]   # the unlock went unanswered
    assert not [e for e in events if isinstance(e, DeviceOffline)]                  # no new session
    assert sensors.locked == set()                                                  # sent again: unlocked


def apply_locks(locked: set, locks, positions: int = 6) -> set:
    """What sensors hold after ``locks`` (sensors.md: a Lock sets or clears the spots of its mask at its
    position, or at every position for 0)."""
    locked = set(locked)
    for lock in locks:
        for position in range(1, positions + 1) if lock.position == 0 else [lock.position]:
            for spot in range(5):
                if lock.spots >> spot & 1:
                    (locked.add if lock.locked else locked.discard)((position, spot))
    return locked


def test_the_wanted_locks_are_resent_as_a_few_frames_that_make_the_same_felt():
    """Folded, not listed: hours of partial Locks (Super 6 closed, so no whole-table Lock after the first)
    are sent again as a whole-table Lock and each position's exceptions, and make what they made."""
    from drivers.sensors import LockPicture
    from drivers.wire import sensor_protocol as proto
    rng = random.Random(7)
    sent = [proto.Lock(0, proto.ALL_SPOTS, 1)]
    for _ in range(500):
        where = rng.choice([0, 0, 1, 2, 3, 4, 5, 6])
        sent.append(proto.Lock(where, rng.randint(1, proto.ALL_SPOTS), rng.randint(0, 1)))
    picture = LockPicture()
    for n, lock in enumerate(sent, 1):
        picture.apply(lock)
        again = picture.locks()
        assert len(again) <= 2 + 2 * 6
        anything = {(p, s) for p in range(1, 7) for s in range(5) if rng.random() < 0.5}   # sensors in any state
        assert apply_locks(anything, again) == apply_locks(set(), sent[:n])
    assert LockPicture().locks() == []                  # nothing wanted yet: nothing sent again


def test_a_snapshot_the_sensors_kept_through_a_link_loss_does_not_read_the_new_sessions_felt():
    """The sensors form their Snapshot and lose the line before it leaves; silent past the silence
    timeout, a new session. They send what they kept after their HelloReply and before their Identity
    (drivers/wire/link.py): the old Snapshot's chips are taken, but only the new session's answer to its
    own SnapshotRequest says the felt was read since they connected."""
    clock, link, sensors = sensors_on_a_line(1)
    sensors.spots[(2, 0)] = 500
    asked: list[float] = []

    def lose_the_first_snapshot(direction: str, message: object) -> None:
        if direction == "sent" and isinstance(message, proto.Snapshot) and not asked:
            asked.append(clock.now)                 # formed, then the line goes quiet for 5 s
            sensors.silent = True
            clock.after(5.0, lambda: setattr(sensors, "silent", False))
    sensors.listeners.append(lose_the_first_snapshot)
    DeviceLoop(sensors, link, clock).start()
    events: list = []
    driver = SensorDriver("sensors", link.host, events.append, positions=6, clock=clock.monotonic, wall=clock.wall)
    DriverLoop(driver, link, clock).start()
    play_out(clock, 20.0)
    names = [type(e).__name__ for e in events]
    assert asked and names.count("DeviceOffline") == 1 and names.count("DeviceOnline") == 2
    assert names.count("FeltRead") == 1                 # the kept Snapshot read no felt: the new one did
    assert names.index("FeltRead") > len(names) - 1 - names[::-1].index("DeviceOnline")
    assert driver.felt_read and driver.spots == {(2, 0): 500}
