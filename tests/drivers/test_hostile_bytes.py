"""Hostile device bytes (issue 16): no input may end a driver's I/O thread.

Each driver's byte handler under fuzzing (tests/drivers/hostile.py); the lab's findings replayed:
a Snapshot with a spot state of 2, a handler or callback that raises, a thread that ends anyway,
a rebooted device reusing the SEQ the host accepted last, a sign address of "ZZ".
"""

import queue

import pytest
import structlog
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers import registry
from drivers.events import DeviceFault, DeviceOffline, DeviceOnline, ShoeCount, SpotChanged
from drivers.sensors import SensorDriver
from drivers.sign import SignDriver
from drivers.wire import sensor_protocol as sp
from drivers.wire.framing import encode_frame
from drivers.wire.link_words import ACK
from drivers.wire.messages import Identity
from simulators.devices.shoe import SimulatedShoe
from tests.drivers.fuzz_drivers import Loopback, SensorsTarget, ShoeTarget, SignTarget
from tests.support.devices import Events, running
from tests.wire.fuzzing import run

DRIVER_TARGETS = {"shoe": ShoeTarget, "sensors": lambda: SensorsTarget(None),
                  "sensors-6-positions": lambda: SensorsTarget(6), "sign": SignTarget}


@pytest.mark.parametrize("name", DRIVER_TARGETS)
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(r=st.randoms(use_true_random=False))
def test_every_driver_byte_handler_survives_hostile_bytes(name, r):
    assert run(DRIVER_TARGETS[name](), r, 6, check_every=0.5) == []


def frame(seq, message):
    return encode_frame(seq, *sp.catalog.encode(message))


def bad_snapshot_frame(seq):
    wire = bytearray(sp.catalog.encode(sp.Snapshot.pack({(1, 0): (sp.CHIPS, 500)}, 1))[1])
    wire[1 + 1 + 5 * 2] = 2                         # position 1, spot 2 (pair plus): state 2
    return encode_frame(seq, sp.Snapshot.TYPE, bytes(wire))


HELLO_REPLY = sp.HelloReply(1, 6, 1, "LAB", "SN1")
IDENTITY = Identity("Lab", "scripted", "SN1", "1.0", (1, 2, 3, 4), 0)


class Scripted:
    """A port the test writes the device's bytes into; read() waits at most 20 ms, as a serial read."""

    url = "scripted://sensors"

    def __init__(self):
        self.inbox: queue.Queue = queue.Queue()
        self.written: list[bytes] = []
        self.fail_read: BaseException | None = None

    def open(self):
        pass

    def read(self):
        if self.fail_read is not None:
            err, self.fail_read = self.fail_read, None
            raise err
        try:
            return self.inbox.get(timeout=0.02)
        except queue.Empty:
            return b""

    def write(self, data):
        self.written.append(data)

    def close(self):
        pass


@pytest.fixture
def sensors():
    """A sensor driver's real I/O thread on a scripted port, online (its Hello answered)."""
    events, port = Events(), Scripted()
    drv = SensorDriver("sensors", port, events.post, positions=6)
    with structlog.testing.capture_logs() as logs:
        drv.log = structlog.get_logger("drivers").bind(device="sensors")
        drv.start()
        # the Hello ACKed and answered: HelloReply, then Identity (SEQ 0xFF, so that the tests' own
        # frames can go on from SEQ 1)
        port.inbox.put(encode_frame(0, ACK, b"\0") + frame(0, HELLO_REPLY) + frame(0xFF, IDENTITY))
        events.of(DeviceOnline)
        try:
            yield drv, port, events, logs
        finally:
            drv.stop()


def test_the_lab_snapshot_is_naked_and_the_driver_goes_on(sensors):
    drv, port, events, _ = sensors
    port.inbox.put(bad_snapshot_frame(1))
    fault = events.of(DeviceFault)
    assert "spot state 2 is not 0 or 1" in fault.reason and fault.raw_hex
    port.inbox.put(frame(2, sp.SpotReading(3, 2, sp.CHIPS, 1000)))
    assert events.of(SpotChanged) == SpotChanged("sensors", 3, "pair_plus", "placed", 1000, None)
    assert drv.running and drv.online and drv.caught == 0


def test_an_exception_in_a_message_handler_is_logged_with_the_bytes_posted_and_survived(sensors):
    drv, port, events, logs = sensors
    real = drv.on_message

    def broken_once(message, now):
        drv.on_message = real
        raise RuntimeError("handler bug")
    drv.on_message = broken_once
    bad = frame(1, sp.SpotReading(1, 0, sp.CHIPS, 500))
    port.inbox.put(bad)
    fault = events.of(DeviceFault)
    assert fault.reason == ("internal error handling SpotReading (RuntimeError: handler bug); "
                            "the driver goes on")
    assert fault.raw_hex == bad.hex(" ")
    logged = [entry for entry in logs if entry["event"] == "device.internal_error"]
    assert logged and logged[0]["bytes"] == bad.hex(" ") and logged[0]["exc_info"]
    port.inbox.put(frame(2, sp.SpotReading(1, 0, sp.CHIPS, 700)))
    assert events.of(SpotChanged).value == 700
    assert drv.running and drv.caught == 1


def test_a_callback_that_raises_does_not_end_the_thread(sensors):
    drv, port, events, logs = sensors
    good_post = drv.post
    calls = []

    def failing_post(event):
        calls.append(event)
        if len(calls) == 1:
            raise RuntimeError("queue refused")
        good_post(event)
    drv.post = failing_post
    port.inbox.put(frame(1, sp.SpotReading(2, 0, sp.CHIPS, 500)))
    assert "RuntimeError: queue refused" in events.of(DeviceFault).reason
    port.inbox.put(frame(2, sp.SpotReading(2, 0, sp.CHIPS, 900)))
    assert events.of(SpotChanged).value == 900 and drv.running


def test_a_thread_that_ends_anyway_posts_device_offline_and_is_never_online(sensors):
    drv, port, events, logs = sensors
    port.fail_read = SystemExit("past every guard")
    offline = events.of(DeviceOffline)
    assert offline.reason == "driver thread ended: SystemExit: past every guard"
    drv._thread.join(2)
    assert not drv.running and not drv.online and not drv.connected
    assert any(entry["event"] == "device.thread_ended" for entry in logs)


def test_a_port_failing_in_an_unforeseen_way_is_a_lost_connection(sensors):
    drv, port, events, _ = sensors
    port.fail_read = TypeError("pyserial tripped over itself")
    assert "TypeError: pyserial tripped over itself" in events.of(DeviceOffline).reason
    port.inbox.put(frame(0, HELLO_REPLY) + frame(1, IDENTITY))   # reopened: it answers the Hello again
    events.of(DeviceOnline)
    assert drv.running


def test_stopping_the_driver_posts_nothing():
    """A stop the controller asked for is no outage: it must not hold the round or alert."""
    events = Events()
    drv = SensorDriver("sensors", Scripted(), events.post)
    drv.start()
    drv.stop()
    assert not drv.running and not drv.online
    assert all(not isinstance(e, DeviceOffline) for e in list(events.q.queue))


# --- a rebooted device reusing the SEQ the host accepted last --------------------------------------

def test_a_rebooted_shoe_that_reuses_the_last_seq_comes_back_online():
    fast = dict(heartbeat_every=0.2, silence_after=0.8, backoff=(0.05, 0.2))
    with running(lambda p: SimulatedShoe(p, heartbeat_every=0.2), "pty", "shoe", "shoe-framed",
                 **fast) as (device, drv, events):
        events.of(DeviceOnline)
        # the HelloReply (SEQ 0) and the Identity (SEQ 1), the shoe's only messages so far: after the
        # reboot its Identity is SEQ 1 again, the very SEQ the host accepted last
        assert drv.link.last_seq == 1
        device.silent = True                            # power off ...
        events.of(DeviceOffline)
        with device.lock:                               # ... and on: its link starts again at SEQ 0
            device.link.reset(device.clock())
            device.silent = False
        assert events.of(DeviceOnline, timeout=15.0).device == "shoe"        # a deadline, not a measure
        drv.request_status()
        events.of(ShoeCount)


# --- the sign's address ------------------------------------------------------------------------------

@pytest.mark.parametrize("address", ["ZZ", "0", "123", "", "0x"])
def test_a_sign_driver_refuses_a_bad_address_when_built(address):
    with pytest.raises(ValueError, match=r"sign driver setting 'address': .* two hex digits"):
        SignDriver("sign", Loopback(), print, address=address)
    with pytest.raises(ValueError, match="'address'"):
        registry.build("sign", "sign-alpha", "loop://", print, address=address)


def test_a_good_sign_address_is_sent_in_upper_case():
    drv = SignDriver("sign", Loopback(), print, address="1f")
    assert drv.address == "1F"
