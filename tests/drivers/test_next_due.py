"""Each timer of the drivers is named by ``next_due`` and acts at that very moment, no later.

The simulation's loops tick only when a driver's or a device's ``next_due`` comes (simulators/sim/
links.py), so every timer of ``on_tick`` must be in it. Here each one is brought due on a driver and its
simulated device, on the simulation's loops and virtual clock (tests/support/deadlines.py ``Rig``, which
also checks after every step that each loop's tick is planned by ``next_due``), and acts when the
documented time has passed, to the microsecond: a frame resent, given up, a silent device, a Hello said
again (and the device that answers it with no Identity), the device's clock set again, frames refused
and alerted, a shuffle past its limit, the sensors' Snapshot asked again and their locks sent again, the
sign's answer waited for, its heartbeat, and the values it refused written again. Then a random walk
of faults and commands probes the timers before ``next_due`` from the states it reaches: they change
nothing.
"""

from __future__ import annotations

import random

import pytest
import structlog
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import drivers.framed
from drivers.events import CommandFailed, DeviceFault, DeviceOffline, DeviceOnline, ShuffleLate, SignShowing
from drivers.wire import alpha
from drivers.wire import sensor_protocol as sp
from drivers.wire import shoe_protocol as shoe
from drivers.wire.framing import encode_frame
from drivers.wire.link_words import NAK, NAK_UNREADABLE
from drivers.wire.messages import SetClock, UseCapabilities
from simulators.devices.shoe import SimulatedShoe
from tests.support.deadlines import Rig

EXACT = 1e-9


@pytest.fixture(autouse=True)
def quiet_logs():
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(50))
    yield
    structlog.reset_defaults()


def online(role: str, **kwargs) -> Rig:
    rig = Rig(role, **kwargs)
    rig.run(2.0)
    assert rig.at(DeviceOnline) and not rig.at(DeviceOffline), rig.events
    return rig


def test_a_frame_unacknowledged_is_resent_every_quarter_second_and_given_up_after_four_sends():
    rig = online("shoe")
    rig.device.silent = True
    rig.driver.request_status()                     # at 2.0
    rig.run(3.5)
    assert rig.sends(shoe.StatusRequest.TYPE) == pytest.approx([2.0, 2.25, 2.5, 2.75], abs=EXACT)
    failed = [at for at, e in rig.events if isinstance(e, CommandFailed) and e.command == "StatusRequest"]
    assert failed == pytest.approx([3.0], abs=EXACT)


def test_a_device_not_heard_for_three_seconds_is_offline_and_said_hello_until_it_answers():
    rig = online("shoe")
    heard: list[float] = []
    host_bytes = rig.link.host_bytes
    rig.link.host_bytes = lambda data: (heard.append(rig.clock.now), host_bytes(data))
    rig.clock.after(0.5, lambda: setattr(rig.device, "silent", True))     # at 2.5
    rig.run(12.0)
    silent_since = max(at for at in heard if at <= 2.5)
    offline = rig.at(DeviceOffline)
    assert offline == pytest.approx([silent_since + 3.0], abs=EXACT)
    hellos = [at for at in rig.sends(shoe.Hello.TYPE) if at > 2.0]
    first = offline[0]                              # said at once, resent, given up after 1 s; again 3 s later
    assert hellos == pytest.approx([first + n * 0.25 for n in range(4)] + [first + 3.0 + n * 0.25 for n in range(4)]
                                   + [first + 6.0 + n * 0.25 for n in range(4)], abs=EXACT)


class ShoeWithoutIdentity(SimulatedShoe):
    """Answers the Hello with a HelloReply and nothing after it (a device built without the session's
    second half)."""

    def _session(self, message: object) -> bool:
        if isinstance(message, shoe.Hello):
            self.handle(message, self.clock())
            return True
        return super()._session(message)


def test_a_hello_answered_without_an_identity_is_reported_and_said_again_three_seconds_later():
    rig = Rig("shoe", device=ShoeWithoutIdentity)
    rig.run(7.0)
    faults = [at for at, e in rig.events if isinstance(e, DeviceFault) and "no Identity" in e.reason]
    assert faults == pytest.approx([3.0, 6.0], abs=EXACT)
    assert rig.sends(shoe.Hello.TYPE) == pytest.approx([0.0, 3.0, 6.0], abs=EXACT)     # each acknowledged at once


def test_the_devices_clock_is_set_again_every_clock_every_seconds(monkeypatch):
    monkeypatch.setattr(drivers.framed, "CLOCK_EVERY", 30.0)
    rig = online("sensors")
    rig.run(100.0)
    set_at = rig.at(DeviceOnline)[0]                # set with the session (sent behind UseCapabilities)
    assert rig.first_sends(SetClock.TYPE)[1:] == pytest.approx([set_at + 30.0, set_at + 60.0, set_at + 90.0], abs=EXACT)


def test_frames_refused_after_the_first_alert_are_alerted_thirty_seconds_after_it():
    rig = online("shoe", paired=True)
    forged = [encode_frame(100 + i, shoe.Door.TYPE, b"\x01", seal=lambda body: bytes(12)) for i in range(3)]
    for i, frame in enumerate(forged):
        rig.clock.at(5.0 + i, lambda frame=frame: rig.device.write_raw(frame))
    rig.run(40.0)
    alerts = [(at, e.reason) for at, e in rig.events if isinstance(e, DeviceFault) and e.security]
    assert len(alerts) == 2 and alerts[1][0] == pytest.approx(alerts[0][0] + 30.0, abs=EXACT), alerts
    assert alerts[1][1].endswith("(2 frames refused within 30 s)")


def test_a_shuffle_not_complete_within_its_limit_is_reported_when_the_limit_passes():
    rig = online("shoe", shuffle_limit=20.0)
    rig.device.shuffle_stalls = True
    rig.driver.shuffle(1)                           # at 2.0
    rig.run(30.0)
    assert rig.at(ShuffleLate) == pytest.approx([22.0], abs=EXACT)
    assert max(rig.sends(shoe.StatusRequest.TYPE)) == pytest.approx(22.0, abs=EXACT)   # asked why


def test_the_sensors_snapshot_is_asked_again_three_seconds_after_it_was_asked():
    """Quiet just after the handshake: SetClock and the SnapshotRequest go unacknowledged."""
    rig = Rig("sensors")

    def quiet(direction: str, message: object) -> None:
        if direction == "received" and isinstance(message, UseCapabilities):
            rig.device.silent = True
            rig.clock.after(2.5, lambda: setattr(rig.device, "silent", False))
    rig.device.listeners.append(quiet)
    rig.run(8.0)
    came_online = rig.at(DeviceOnline)[0]
    asked = rig.first_sends(sp.SnapshotRequest.TYPE)
    assert asked[-1] == pytest.approx(came_online + 3.0, abs=EXACT), (came_online, asked)
    assert rig.driver.felt_read


def test_a_lock_never_acknowledged_is_sent_again_when_it_is_given_up():
    rig = online("sensors")
    rig.device.silent = True
    rig.clock.after(1.5, lambda: setattr(rig.device, "silent", False))   # back at 3.5
    rig.driver.lock(True)                           # at 2.0
    rig.run(6.0)
    assert rig.first_sends(sp.Lock.TYPE) == pytest.approx([2.0, 3.0], abs=EXACT)
    assert rig.device.locked                        # the second, resent after the sensors came back, took


def test_a_lock_given_up_on_a_nak_is_sent_again_at_once():
    """The fourth send NAKed as unreadable: given up in ``on_bytes``, due again at that very moment."""
    rig = online("sensors")
    rig.device.silent = True
    rig.driver.lock(True)                           # at 2.0, resent until 2.75
    heard: list[float] = []
    host_bytes = rig.link.host_bytes
    rig.link.host_bytes = lambda data: (heard.append(rig.clock.now), host_bytes(data))
    rig.clock.at(2.8, lambda: rig.device.write_raw(encode_frame(0xFF, NAK, bytes((0xFF, NAK_UNREADABLE)))))
    rig.run(2.9)
    assert rig.first_sends(sp.Lock.TYPE) == pytest.approx([2.0, heard[-1]], abs=EXACT)


def test_a_sign_silent_is_given_up_when_its_answer_has_not_come_three_times():
    rig = online("sign")
    rig.device.silent = True
    rig.driver.show_message("X")                    # at 2.0
    rig.run(3.8)
    failed = [at for at, e in rig.events if isinstance(e, CommandFailed) and "no answer" in e.reason]
    assert failed == pytest.approx([3.5], abs=EXACT) and rig.at(DeviceOffline) == pytest.approx([3.5], abs=EXACT)


def test_the_sign_is_written_every_five_seconds_and_values_it_refused_are_written_again():
    rig = online("sign")
    rig.run(12.0)
    quiet = [at for at, _ in rig.sent if at > 1.0]
    assert [b - a for a, b in zip(quiet, quiet[1:], strict=False)] == pytest.approx([5.0] * (len(quiet) - 1), abs=EXACT)
    rig.device.nak_next = 3
    rig.driver.show_values(1_000_00, 500_00, 100_00)      # its first STRING refused three times
    rig.run(20.0)
    assert [at for at, e in rig.events if isinstance(e, CommandFailed)] and rig.driver._owed == set()
    last_write_before = max(at for at, _ in rig.sent if at < 17.0)
    mega = alpha.packet(alpha.write_string("M", "MEGA $1,000.00".ljust(20)), "01")
    assert [at for at, data in rig.sent if data == mega][-1] == pytest.approx(last_write_before + 5.0, abs=EXACT)
    assert isinstance(rig.events[-1][1], SignShowing) and rig.events[-1][1].values["mega"] == 1_000_00


# --- a random walk of faults and commands ------------------------------------------------------------

def intervene(rig: Rig, role: str, r: random.Random) -> None:
    device, driver = rig.device, rig.driver
    choice = r.randrange(8)
    if choice == 0:
        device.silent = not device.silent
    elif choice == 1:
        device.port.drop()
    elif choice == 2 and role != "sign":
        device.delay = r.choice((0.0, 0.0, 0.1, 0.6, 2.0))
    elif choice == 3 and role != "sign":
        device.corrupt_next = r.randint(1, 5)
    elif choice == 3:
        device.nak_next = r.randint(1, 4)
    elif choice == 4 and role != "sign":
        device.write_raw(encode_frame(r.randrange(256), r.choice((0x20, 0x21, 0x90)), r.randbytes(r.randrange(6)),
                                      seal=(lambda body: bytes(12)) if r.random() < 0.5 else None))
    elif role == "shoe":
        device.shuffle_stalls = r.random() < 0.3
        r.choice((lambda: driver.shuffle(1), driver.request_status, driver.deck_check,
                  lambda: driver.deliver_hand(r.randint(1, 3))))()
    elif role == "sensors":
        r.choice((lambda: driver.lock(r.random() < 0.5, position=r.choice((None, 1, 2))),
                  lambda: driver.lamp(r.randint(1, 6), "ante", "flash"),
                  lambda: device.place(r.randint(1, 6), "ante", 500)))()
    else:
        r.choice((lambda: driver.show_values(r.randrange(10 ** 7), r.randrange(10 ** 6), r.randrange(10 ** 5)),
                  lambda: driver.show_message(f"M{r.randrange(100)}")))()


@pytest.mark.parametrize("role, paired", [("shoe", True), ("sensors", False), ("sign", False)])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(r=st.randoms(use_true_random=False))
def test_before_next_due_the_timers_change_nothing_whatever_happened(role, paired, r):
    settings = {"shuffle_limit": 5.0} if role == "shoe" else {}
    rig = Rig(role, paired=paired, probe_share=0.5, seed=r.randrange(1000), **settings)
    rig.run(1.0)
    for _ in range(12):
        intervene(rig, role, r)
        rig.run(rig.clock.now + r.choice((0.01, 0.2, 0.6, 1.5, 4.0, 9.0)))
    # a draw of short waits can leave few steps to probe (the sign's: 18 in one fresh clone's run): the
    # table idles on, its heartbeats and timers stepping, until the check has been made often enough
    idle_until = rig.clock.now + 120.0
    while rig.probed <= 20 and rig.clock.now < idle_until:
        rig.run(rig.clock.now + 5.0)
    assert rig.probed > 20
