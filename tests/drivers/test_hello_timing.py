"""When the host says Hello (docs/protocols/framing.md, Session): the real drivers against the
simulated devices on one fake clock (tests/support/wire_bench.py), so the times are exact.

The lab saw two Hellos 3 ms apart after a shoe reboot: a paired device answers the Hello with its
challenge, the first frame heard after its silence, and that was taken for the device coming back
(PeerAlive), which said Hello again. Stop and wait allows one message unacknowledged and a resend
only after ``retransmit_after`` (250 ms); an unanswered Hello is said again after ``silence_after``."""

from __future__ import annotations

import pytest

from drivers.events import DeviceOffline, DeviceOnline
from drivers.sensors import SensorDriver
from drivers.shoe import ShoeDriver
from simulators.devices.sensors import SimulatedSensors
from simulators.devices.shoe import SimulatedShoe
from tests.support.wire_bench import WireBench

DEVICES = {"shoe": (ShoeDriver, SimulatedShoe), "sensors": (SensorDriver, SimulatedSensors)}


def bench(tmp_path, role: str, paired: bool) -> WireBench:
    driver, device = DEVICES[role]
    b = WireBench(tmp_path, lambda wire, post, **kw: driver(role, wire, post, **kw),
                  lambda port, **kw: device(port, **kw), paired=paired)
    b.run(1)
    assert link_events(b) == [DeviceOnline]
    return b


def link_events(b: WireBench) -> list[type]:
    """The session's events (the sensors also say when they have read the felt: FeltRead)."""
    return [type(e) for e in b.events if isinstance(e, (DeviceOnline, DeviceOffline))]


def closest(times: list[float]) -> float:
    return min(round(b - a, 3) for a, b in zip(times, times[1:], strict=False))


@pytest.mark.parametrize("paired", [True, False], ids=["paired", "plain"])
@pytest.mark.parametrize("role", ["shoe", "sensors"])
def test_a_rebooted_device_is_said_hello_once_not_twice_in_a_few_milliseconds(tmp_path, role, paired):
    b = bench(tmp_path, role, paired)
    b.plugged = False                   # switched off: silent, then found offline
    b.run(4)
    b.reboot()                          # a new device on the line, numbering from 0
    b.plugged = True
    b.run(6)
    assert link_events(b) == [DeviceOnline, DeviceOffline, DeviceOnline], b.events
    hellos = b.hellos()
    assert closest(hellos) >= 0.25, hellos
    back = [t for t in hellos if t >= 5.0]
    assert len(back) == 1, hellos       # the Hello that brought it back, and no other


def test_the_hello_that_brings_a_paired_shoe_back_is_not_followed_by_another(tmp_path):
    """The case as the lab met it: Hello said by the timer 3 s after the last unanswered one, the
    rebooted shoe's challenge heard 1 ms later; the session it starts is the one that stays."""
    b = bench(tmp_path, "shoe", paired=True)
    b.plugged = False
    b.run(3)                            # silent at 3.0: Hello sent 4 times until 3.75, unanswered
    b.reboot()
    b.plugged = True
    b.run(3.2)                          # the timer's next Hello, 3 s after the first, is answered
    hellos = b.hellos()[1:]
    assert hellos == [pytest.approx(3.005 + 0.25 * n, abs=0.002) for n in range(4)] + [pytest.approx(6.005, abs=0.002)]
    assert isinstance(b.events[-1], DeviceOnline)


def test_a_device_heard_after_its_hello_went_unanswered_is_asked_at_once(tmp_path):
    """A Hello given up after its 4 sends is not awaited: a device heard again is said Hello then,
    not at the timer's next one (up to 3 s later)."""
    b = bench(tmp_path, "shoe", paired=False)
    b.plugged = False
    b.run(3.1)                          # silent at 3.0; its Hello sent until 3.75, given up at 4.0
    b.reboot()                          # a plain device sends heartbeats until the host's Hello
    b.plugged = True
    b.run(1.5)
    after = [t for t in b.hellos() if t > 4.0]
    assert after and after[0] < 5.1, b.hellos()         # at its first heartbeat, not the timer's 6.0
    assert isinstance(b.events[-1], DeviceOnline)
