"""The bet sensors against the host, as sensors.md says (issue 17): what is out of range is refused
whole with NAK 2 and never becomes a wager, a fault holds until the spot reads again, a Hello
clears the sensors' locks and lamps, and the documented refusals are what the host answers."""

import threading

import pytest

from drivers.events import CommandFailed, DeviceFault, DeviceOnline, SpotChanged, SpotFault
from drivers.sensors import SensorDriver
from drivers.wire import sensor_protocol as sp
from drivers.wire.examples import SENSOR_REFUSALS, SEQ
from drivers.wire.framing import encode_frame
from drivers.wire.link_words import NAK, NAK_BAD_MESSAGE
from simulators.devices.sensors import SimulatedSensors
from tests.drivers.fuzz_drivers import Loopback
from tests.support.devices import running

FAST = dict(heartbeat_every=0.2, silence_after=0.8, backoff=(0.05, 0.2))


def heard(device: SimulatedSensors, count: int) -> tuple[threading.Event, list]:
    """An event set once the device has taken ``count`` more Lock or Lamp commands (its listeners
    are told of each after it handled it)."""
    done = threading.Event()
    taken = []

    def listener(direction: str, message: object) -> None:
        if direction == "received" and isinstance(message, (sp.Lock, sp.Lamp)):
            taken.append(message)
            if len(taken) >= count:
                done.set()
    device.listeners.append(listener)
    return done, taken


def test_the_documented_refusals_are_what_the_host_answers():
    """docs/protocols/examples.md, "Sensor frames the host refuses": NAK 2 and nothing delivered."""
    drv = SensorDriver("sensors", Loopback(), lambda e: None, positions=6)
    for label, cls, payload in SENSOR_REFUSALS:
        events, out = drv.link.receive(encode_frame(SEQ, cls.TYPE, payload), 0.0)
        assert out == encode_frame(SEQ, NAK, bytes((SEQ, NAK_BAD_MESSAGE))), label
        assert [type(e).__name__ for e in events] == ["LinkFault"], label


def send_raw(device: SimulatedSensors, type_code: int, payload: bytes) -> None:
    """A frame a faulty sensor controller might send: past the codec's own checks."""
    with device.lock:
        now = device.clock()
        device._send(device.link.send(type_code, payload, now), now)


@pytest.mark.parametrize("transport", ["pty", "tcp"])
def test_out_of_range_positions_and_spots_are_refused_and_never_wagers(transport):
    with running(lambda p: SimulatedSensors(p, positions=6, heartbeat_every=0.2), transport, "sensors",
                 "sensors-framed", positions=6, **FAST) as (device, drv, events):
        events.of(DeviceOnline)
        for payload, why in [(bytes((7, 0, 1, 0, 0, 0x01, 0xF4)), "position 7 is not a position of this table"),
                             (bytes((0, 0, 1, 0, 0, 0x01, 0xF4)), "position 0 is not 1-255"),
                             (bytes((2, 5, 1, 0, 0, 0x01, 0xF4)), "spot 5 is not 0-4"),
                             (bytes((2, 0, 1, 0, 0)), "payload ends inside a u32")]:
            send_raw(device, sp.SpotReading.TYPE, payload)
            assert why in events.of(DeviceFault).reason
        send_raw(device, sp.SensorFault.TYPE, bytes((3, 9, 1)))
        assert "spot 9 is not 0-4" in events.of(DeviceFault).reason
        chips_at_7 = sp.Snapshot.pack({(1, 0): (sp.CHIPS, 500), (7, 1): (sp.CHIPS, 500)}, 7)
        send_raw(device, *sp.catalog.encode(chips_at_7))
        assert "position 7 is not a position of this table" in events.of(DeviceFault).reason
        device.place(2, "ante", 500)                     # the link goes on: the next good reading counts
        assert events.of(SpotChanged) == SpotChanged("sensors", 2, "ante", "placed", 500, None)
        assert not [e for e in events.seen if isinstance(e, (SpotChanged, SpotFault)) and e.position != 2]
        assert set(drv.spots) == {(2, 0)}


def test_the_sensors_refuse_a_command_for_a_position_they_do_not_have():
    with running(lambda p: SimulatedSensors(p, positions=6, heartbeat_every=0.2), "tcp", "sensors",
                 "sensors-framed", positions=6, **FAST) as (device, drv, events):
        events.of(DeviceOnline)
        assert drv.lock(True, position=7)
        failed = events.of(CommandFailed)
        assert (failed.command, failed.reason) == ("Lock", "bad message")
        done, _ = heard(device, 1)
        assert drv.lamp(0, "ante", "flash")              # position 0: every position
        assert done.wait(5.0)
        assert {p: device.lamps.get((p, 0)) for p in range(1, 7)} == {p: sp.LAMP_FLASH for p in range(1, 7)}


def test_a_spot_that_reads_again_after_a_fault_is_posted_even_unchanged():
    """The fault ends with the spot's next reading: the driver posts it though the value is the one
    it knew, else a round held on that spot would stay held."""
    with running(lambda p: SimulatedSensors(p, positions=6, heartbeat_every=0.2), "tcp", "sensors",
                 "sensors-framed", positions=6, **FAST) as (device, drv, events):
        events.of(DeviceOnline)
        device.place(4, "ante", 1000)
        events.of(SpotChanged, position=4)
        device.fault(4, "ante", 3)
        assert events.of(SpotFault) == SpotFault("sensors", 4, "ante", "hardware fault")
        device.place(4, "ante", 1000)
        assert events.of(SpotChanged, position=4) == SpotChanged("sensors", 4, "ante", "changed", 1000, 1000)
        device.place(4, "ante", 1000)                    # no fault now: a repeat changes nothing
        device.fault(3, "play", 1)
        events.of(SpotFault, position=3)
        device.remove(3, "play")                         # it was empty and reads empty: back all the same
        assert events.of(SpotChanged, position=3) == SpotChanged("sensors", 3, "play", "removed", None, None)
        assert [e.change for e in events.seen if isinstance(e, SpotChanged) and e.position == 4] == \
            ["placed", "changed"]


def test_a_hello_clears_the_sensors_locks_and_lamps():
    with running(lambda p: SimulatedSensors(p, positions=6, heartbeat_every=0.2), "tcp", "sensors",
                 "sensors-framed", positions=6, **FAST) as (device, drv, events):
        events.of(DeviceOnline)
        done, _ = heard(device, 2)
        drv.lock(True)
        drv.lamp(2, "ante", "flash")
        assert done.wait(5.0)
        assert len(device.locked) == 30 and device.lamps == {(2, 0): sp.LAMP_FLASH}
        device.handle(sp.Hello(1), 0.0)                  # a new session: the host tells them again
        assert device.locked == set() and device.lamps == {}


def test_table_sim_makes_a_spot_report_a_fault():
    """The fault command the lab uses: `sensors fault POS SPOT [CODE]` (CODE 1 blocked by default)."""
    from simulators.table import SimError, SimOptions, SimulatedTable
    sim = SimulatedTable(SimOptions(transport="tcp"))
    try:
        sent: list = []
        sim.sensors.listeners.append(lambda direction, message: sent.append((direction, message)))
        assert sim.command("sensors fault 2 pair_plus 3") == "sensors fault 2 pair_plus 3"
        assert sim.command("sensors fault 4 ante") == "sensors fault 4 ante"
        assert sent == [("sent", sp.SensorFault(2, 2, 3)), ("sent", sp.SensorFault(4, 0, 1))]
        with pytest.raises(SimError, match="CODE"):
            sim.command("sensors fault 2 ante 0")
        assert len(sent) == 2
    finally:
        sim.stop()


def test_a_snapshot_does_not_clear_a_fault_and_the_sensors_say_it_again_in_a_new_session(tmp_path):
    """sensors.md: a SensorFault is cleared only by a SpotReading. A Snapshot's row for a spot its
    sensor cannot read says empty: taken as a reading, it cleared the fault and a held round went on
    with a spot no one could read (issue 33 item 16). After the Snapshot of a new session the sensors
    report the fault again, so a host that restarted knows it too."""
    from drivers.events import DeviceOffline
    from tests.support.wire_bench import WireBench
    b = WireBench(tmp_path, lambda w, p, **kw: SensorDriver("sensors", w, p, positions=6, **kw),
                  lambda port, **kw: SimulatedSensors(port, **kw))
    b.run(1)
    b.device.place(2, "ante", 500)
    b.device.fault(2, "ante", 2)
    b.run(0.5)
    b.plugged = False                                   # the link drops; a new session follows
    b.run(4)
    b.plugged = True
    b.run(2)
    kinds = [type(e).__name__ for e in b.events]
    assert kinds.count("DeviceOnline") == 2 and DeviceOffline in map(type, b.events)
    faults = [e for e in b.events if isinstance(e, SpotFault)]
    assert [(f.position, f.spot, f.problem) for f in faults] == [(2, "ante", "no reading")] * 2
    after = b.events[b.events.index(faults[0]):]
    assert not [e for e in after if isinstance(e, SpotChanged)]         # the Snapshot's row is not a reading
    b.device.reads_again(2, "ante")
    b.run(0.1)
    assert b.events[-1] == SpotChanged("sensors", 2, "ante", "changed", 500, 500)
