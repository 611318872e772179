"""The lab's attacks on a live paired link, through the real driver and a simulated device on a port
(issue 33, items 11 and 12): a Hello replayed off the line, and a flood of frames without the key."""

from drivers.events import DeviceFault, DeviceOffline, DeviceOnline, SpotChanged
from drivers.wire import sensor_protocol as sp
from drivers.wire.framing import Frame, FrameDecoder, encode_frame
from simulators.devices.sensors import SimulatedSensors
from tests.support.devices import running

# quick heartbeats; the product's 3 s of silence before offline: nothing here waits for a device to fall
# silent, and a loaded machine must not take one offline (the replay test counts the host's Hellos)
FAST = dict(heartbeat_every=0.2, silence_after=3.0, backoff=(0.05, 0.2))


def sensors(record=None):
    class Recording(SimulatedSensors):
        def step(self, data, now):
            if record is not None and data:
                record.append(data)
            super().step(data, now)
    return lambda port: Recording(port, positions=6, heartbeat_every=0.2)


def _hellos(heard: list[bytes]) -> int:
    return sum(isinstance(f, Frame) and f.type == sp.Hello.TYPE for data in heard for f in FrameDecoder().feed(data))


def test_a_replayed_hello_leaves_the_sensors_session_and_their_readings_alone():
    heard: list[bytes] = []
    with running(sensors(heard), "tcp", "sensors", "sensors-framed", positions=6, **FAST) as (device, drv, events):
        events.of(DeviceOnline)
        hellos = [data for data in heard for f in FrameDecoder().feed(data)
                  if isinstance(f, Frame) and f.type == sp.Hello.TYPE]
        assert hellos, "the host's Hello was not seen on the line"
        hellos_answered = sum(isinstance(m, sp.Hello) for m in device.received)
        with device.lock:                            # the attacker's copy, as if it came down the line
            device.step(hellos[0], device.clock())
        said_hello = _hellos(heard)                  # the host's, and the replayed copy
        device.place(1, "ante", 2500)
        events.of(SpotChanged, position=1, spot="ante", value=2500)
        assert sum(isinstance(m, sp.Hello) for m in device.received) == hellos_answered
        # read on the same session: the host never had to say Hello again (a session the replay had reset
        # would have been heard only after the host's next Hello). Counted, not timed: a 0.5 s deadline on
        # the reading stood for this, and a loaded machine can take longer to pass one reading on.
        assert _hellos(heard) == said_hello
        assert not [e for e in events.seen if isinstance(e, DeviceOffline)]


def test_a_flood_without_the_key_is_refused_counted_alerted_once_and_never_delays_a_reading():
    flood = 2000
    with running(sensors(), "tcp", "sensors", "sensors-framed", positions=6, **FAST) as (device, drv, events):
        events.of(DeviceOnline)
        forged = encode_frame(7, *sp.catalog.encode(sp.SpotReading(2, 0, sp.CHIPS, 100_000)),
                              seal=lambda body: bytes((0, 0, 0, 9)) + bytes(8))
        device.write_raw(forged * flood)
        device.place(1, "ante", 2500)
        events.of(SpotChanged, position=1, spot="ante", value=2500)
        assert drv.link.stats["refused"] == flood
        alerts = [e for e in events.seen if isinstance(e, DeviceFault)]
        while not events.q.empty():
            alerts += [e for e in [events.q.get()] if isinstance(e, DeviceFault)]
        assert len(alerts) == 1 and alerts[0].security, alerts[:3]
        assert alerts[0].reason == "refused: bad MAC"


def test_refused_frames_after_the_first_alert_are_named_in_one_alert_when_the_window_ends(tmp_path):
    """The throttle's arithmetic on a fake clock: one alert at once, the rest counted into the next."""
    from drivers.framed import REFUSED_ALERT_EVERY
    from drivers.sensors import SensorDriver
    from tests.drivers.fuzz_drivers import Loopback
    key = tmp_path / "sensors.key"
    key.write_text("ab" * 32)
    posted: list = []
    drv = SensorDriver("sensors", Loopback(), posted.append, positions=6, key_file=str(key))
    forged = encode_frame(7, *sp.catalog.encode(sp.SpotReading(2, 0, sp.CHIPS, 100)))     # no trailer
    drv.on_bytes(forged * 50, 1.0)
    drv.on_tick(1.0 + REFUSED_ALERT_EVERY / 2)
    drv.on_bytes(forged * 10, 1.0 + REFUSED_ALERT_EVERY / 2)
    faults = [e for e in posted if isinstance(e, DeviceFault)]
    assert [f.reason for f in faults] == ["refused: unauthenticated frame"]
    drv.on_tick(1.0 + REFUSED_ALERT_EVERY)
    faults = [e for e in posted if isinstance(e, DeviceFault)]
    assert [f.reason for f in faults][1:] == [
        f"refused: unauthenticated frame (59 frames refused within {REFUSED_ALERT_EVERY:.0f} s)"]
    assert drv.link.stats["refused"] == 60
