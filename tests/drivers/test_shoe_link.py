"""The shoe through a reconnect, its fault codes, its deck checks and its shuffle limit: the real
driver against the simulated shoe (docs/protocols/shoe.md)."""

import time

import pytest
from structlog.testing import capture_logs

from drivers.events import (
    DeckChecked,
    DeviceFault,
    DeviceOffline,
    DeviceOnline,
    DeviceTrouble,
    HandDealt,
    ShoeCount,
    ShoeDoor,
    ShoeMiscounted,
    ShuffleDone,
    ShuffleLate,
)
from drivers.wire import shoe_protocol as shoe
from drivers.wire.framing import encode_frame
from simulators.devices.shoe import SimulatedShoe
from tests.support.devices import running

FAST = dict(heartbeat_every=0.2, silence_after=0.8, backoff=(0.05, 0.2))


@pytest.fixture(params=["pty", "tcp"])
def table_shoe(request):
    with running(lambda p: SimulatedShoe(p, seed=5, heartbeat_every=0.2), request.param,
                 "shoe", "shoe-framed", **FAST) as ctx:
        ctx[2].of(DeviceOnline)
        yield ctx


def test_a_hand_formed_while_the_link_was_lost_is_reported_after_it_and_never_formed_twice(table_shoe):
    device, drv, events = table_shoe
    drv.shuffle(1)
    events.of(ShuffleDone)

    def cut_after_forming(direction, message):      # the hand is formed, its report lost on the line
        if direction == "sent" and isinstance(message, shoe.HandDelivered):
            device.listeners.remove(cut_after_forming)
            device.silent = True
    device.listeners.append(cut_after_forming)
    drv.deliver_hand(1)
    events.of(DeviceOffline)
    assert list(device.hands) == [1] and not [e for e in events.seen if isinstance(e, HandDealt)]
    device.silent = False                           # the line is back: the hand, resent, and a Hello
    with capture_logs() as lines:
        events.of(DeviceOnline)
        first = events.of(HandDealt, hand_no=1)     # acted on once the device is online, not before
        drv.deliver_hand(2)
        events.of(HandDealt, hand_no=2)
    # the hand held back through the loss gets an info line (the audit trail keeps it); the next,
    # a few milliseconds late, only a debug one
    said = [line for line in lines if line["event"] == "device.event"]
    assert [(line["message"], line["log_level"]) for line in said] == [("HandDelivered", "info"),
                                                                       ("HandDelivered", "debug")]
    assert said[0]["late"] >= 0.5 > said[1]["late"]
    assert first.cards == device.hands[1]
    drv.deliver_hand(2)                             # the host asks again, as its recovery does
    again = events.of(HandDealt, hand_no=2)
    assert again.cards == device.hands[2] and len(device.dealt) == 6    # two hands formed, one reported twice
    drv.deliver_hand(4)                             # skipping hand 3
    assert events.of(DeviceTrouble).text == "hand out of sequence: hand 4 asked for; next is 3"


def test_a_shoe_fault_code_outside_the_list_is_refused_naming_device_and_field(table_shoe):
    device, drv, events = table_shoe
    device.write_frame(200, shoe.ShoeFault.TYPE, b"\x09\x00")     # authentic, but code 9
    fault = events.of(DeviceFault)
    assert fault.device == "shoe" and "ShoeFault: fault code 9 is not one of 1 (jammed)" in fault.reason
    assert not [e for e in events.seen if isinstance(e, DeviceTrouble)]


def test_a_count_error_is_its_own_event_and_other_faults_are_in_words(table_shoe):
    device, drv, events = table_shoe
    device.emit(shoe.ShoeFault(shoe.FAULT_COUNT, "51 cards"))
    assert events.of(ShoeMiscounted).text == "count error: 51 cards"
    device.set_door(True)
    drv.deliver_hand(1)
    trouble = events.of(DeviceTrouble)
    assert (trouble.code, trouble.text) == (shoe.FAULT_DOOR_OPEN, "door open: no hand delivered")


def test_a_short_or_mixed_deck_is_found_by_the_check(table_shoe):
    device, drv, events = table_shoe
    device.deck_fault = "short"
    drv.shuffle(1)
    assert events.of(ShuffleDone).count == 51
    drv.deck_check()
    check = events.of(DeckChecked)
    assert (check.count, len(check.missing), check.ok) == (51, 1, False)
    device.deck_fault = "foreign"
    drv.shuffle(1)
    assert events.of(ShuffleDone).count == 52                 # the count alone cannot tell
    drv.deck_check()
    check = events.of(DeckChecked)
    assert check.count == 52 and not check.ok and check.missing == (check.foreign[0][0],)
    assert check.foreign[0][1] == 2


def test_a_shuffle_past_its_limit_is_reported_once_with_the_shoes_status():
    with running(lambda p: SimulatedShoe(p, seed=5, heartbeat_every=0.2), "tcp", "shoe", "shoe-framed",
                 shuffle_limit=0.5, **FAST) as (device, drv, events):
        events.of(DeviceOnline)
        device.shuffle_stalls = True
        drv.shuffle(1)
        late = events.of(ShuffleLate)
        assert (late.deck, late.seconds) == (1, 0.5)
        assert events.of(ShoeCount).ready
        drv.shuffle(1)
        events.of(ShuffleDone)
        assert [e for e in events.seen if isinstance(e, ShuffleLate)] == [late]


def test_the_session_brings_identity_capabilities_and_the_clock(table_shoe):
    import time

    from drivers.wire.messages import CAP_AUTHENTICATION, CAP_KEEPS_EVENTS, CAP_TIMESTAMPS
    device, drv, events = table_shoe
    online = next(e for e in events.seen if isinstance(e, DeviceOnline))
    identity = online.info["identity"]
    assert (identity["manufacturer"], identity["model"], identity["serial"], identity["firmware_version"]) == \
        ("Table simulators", "SimulatedShoe", "SIM-SimulatedShoe", "1.0")
    assert len(identity["firmware_checksum"]) == 64                 # a SHA-256, in hex
    assert online.info["capabilities_used"] == ["timestamps", "keeps events", "authentication"]
    drv.request_status()
    events.of(ShoeCount)                                            # the device has handled the session
    assert device.capabilities_used == CAP_TIMESTAMPS | CAP_KEEPS_EVENTS | CAP_AUTHENTICATION
    assert device.clock_offset is not None and abs(device.clock_offset) < 1.0
    assert abs(time.time() + device.clock_offset - time.time()) < 1.0


@pytest.mark.parametrize("version", [0, 2])
def test_a_device_of_a_version_the_host_does_not_speak_is_refused_and_stays_offline(version):
    class Future(SimulatedShoe):
        def handle(self, message, now):
            if isinstance(message, shoe.Hello):
                self.emit(shoe.HelloReply(version, 1, "FW", "SN"))
            else:
                super().handle(message, now)
    with running(lambda p: Future(p, heartbeat_every=0.2), "tcp", "shoe", "shoe-framed", **FAST) as (_, drv, events):
        fault = events.of(DeviceFault)
        assert f"protocol version {version} unsupported (this controller speaks 1 to 1)" in fault.reason
        assert not drv.online and not [e for e in events.seen if isinstance(e, DeviceOnline)]


# --- the link's authentication and the shoe's clock (docs/protocols/framing.md) ---------------------

def test_a_hand_carries_the_time_the_shoe_formed_it_by_the_clock_the_host_set(table_shoe):
    from datetime import UTC, datetime
    device, drv, events = table_shoe
    drv.shuffle(1)
    events.of(ShuffleDone)
    drv.deliver_hand(1)
    hand = events.of(HandDealt, hand_no=1)
    stamped = datetime.fromisoformat(hand.device_time)
    assert abs((datetime.now(UTC) - stamped).total_seconds()) < 2.0


def test_a_card_read_injected_on_the_line_is_refused_and_reported(table_shoe):
    device, drv, events = table_shoe
    forged = shoe.catalog.encode(shoe.HandDelivered(1, ((48, 1), (44, 1), (40, 1))))
    device.write_raw(encode_frame(99, *forged))                 # anyone on the line, without the key
    fault = events.of(DeviceFault)
    assert fault.security and fault.reason == "refused: unauthenticated frame"
    authentic = device.write_frame(98, *shoe.catalog.encode(shoe.Door(1)))
    assert events.of(ShoeDoor).open is True
    device.write_raw(authentic)                                 # the same frame, replayed
    deadline = time.monotonic() + 5.0
    while drv.link.stats["refused"] < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert drv.link.stats["refused"] == 2                       # refused and counted
    with pytest.raises(AssertionError, match="no DeviceFault"):  # alerted once per 30 s, not per frame
        events.of(DeviceFault, timeout=0.3)
    assert not [e for e in events.seen if isinstance(e, HandDealt)]


def test_a_device_paired_with_another_key_never_comes_online():
    from drivers.wire.auth import new_key
    with running(lambda p: SimulatedShoe(p, heartbeat_every=0.2, key=new_key()), "tcp", "shoe", "shoe-framed",
                 paired=False, key_file=None, **FAST) as (device, drv, events):
        with pytest.raises(AssertionError, match="no DeviceOnline"):
            events.of(DeviceOnline, timeout=2.0)
        # the host says Hello again while unanswered (every silence_after): each one refused
        assert device.link.stats["refused"] >= 2 and not drv.online


def test_a_key_file_that_cannot_be_used_is_refused_naming_it(tmp_path):
    from drivers import registry
    from drivers.wire.auth import KeyFileError
    bad = tmp_path / "shoe.key"
    bad.write_text("12 34")
    for path, words in ((tmp_path / "none.key", "cannot be read"), (bad, "2 bytes, not 32")):
        with pytest.raises(KeyFileError, match=f"key file {path}: {words}"):
            registry.build("shoe", "shoe-framed", "loop://", print, key_file=str(path))


def test_a_device_that_sends_no_identity_stays_offline_and_is_reported():
    class OldShoe(SimulatedShoe):           # built to the protocol before Identity existed
        def _session(self, message):
            if isinstance(message, shoe.Hello):
                self.handle(message, self.clock())
                return True
            return super()._session(message)
    with running(lambda p: OldShoe(p, heartbeat_every=0.2), "tcp", "shoe", "shoe-framed", **FAST) as (_, drv, events):
        fault = events.of(DeviceFault)
        assert "sent no Identity after its HelloReply" in fault.reason and not drv.online


def test_an_identity_said_again_while_online_is_no_fault(table_shoe):
    """A device that answered two Hellos (the host said Hello again while the device was silent)
    sends its Identity twice: the second reaches a host already online, and was a "call a
    technician" device fault 123 times in a 32,000-round soak. It is logged, not reported."""
    from drivers.wire.messages import Identity
    device, drv, events = table_shoe
    with capture_logs() as logs:
        device.emit(Identity(device.manufacturer, "SimulatedShoe", device.serial, device.firmware_version,
                             tuple(range(32)), device.capabilities))
        drv.request_status()
        events.of(ShoeCount)                         # the Identity, sent before, has been handled
    assert not [e for e in events.seen if isinstance(e, DeviceFault)] and drv.online
    assert any(line["event"] == "device.identity_repeated" for line in logs)
