"""Real drivers against simulated devices on ptys, TCP sockets and a simulated USB bus (nothing patched)."""

import pytest

from drivers import registry
from drivers.events import (
    CommandFailed,
    DeckChecked,
    DeviceFault,
    DeviceOffline,
    DeviceOnline,
    HandDealt,
    ShoeCount,
    ShoeDoor,
    ShoeJam,
    ShuffleDone,
    SignShowing,
    SpotChanged,
)
from drivers.wire import shoe_protocol as shoe
from simulators.devices.sensors import SimulatedSensors
from simulators.devices.shoe import SimulatedShoe
from simulators.devices.sign import SimulatedSign
from tests.support.devices import driver_alone, running

TRANSPORTS = ["pty", "tcp", "usb"]
FAST = dict(heartbeat_every=0.2, silence_after=0.8, backoff=(0.05, 0.2))


@pytest.fixture(params=TRANSPORTS)
def table_shoe(request):
    with running(lambda p: SimulatedShoe(p, seed=3, heartbeat_every=0.2), request.param,
                 "shoe", "shoe-framed", **FAST) as ctx:
        ctx[2].of(DeviceOnline)
        yield ctx


def test_shoe_shuffles_and_delivers_hands(table_shoe):
    device, drv, events = table_shoe
    assert drv.shuffle(1)
    assert events.of(ShuffleDone).count == 52
    drv.deliver_hand(1)
    hand = events.of(HandDealt, hand_no=1)
    assert len(hand.cards) == 3 and all(deck == 1 for _, deck in hand.cards)
    assert [c for c, _ in hand.cards] == [c for c, _ in device.dealt]
    drv.deck_check()
    assert events.of(DeckChecked).ok


def test_shoe_faults_reach_the_controller(table_shoe):
    device, drv, events = table_shoe
    drv.shuffle(1)
    events.of(ShuffleDone)
    device.next_hand_size = 4
    drv.deliver_hand(1)
    assert len(events.of(HandDealt, hand_no=1).cards) == 4
    device.repeat_next_card = True
    drv.deliver_hand(2)
    cards = events.of(HandDealt, hand_no=2).cards
    assert cards[1] == cards[0]
    device.foreign_next_card = True
    drv.deliver_hand(3)
    assert events.of(HandDealt, hand_no=3).cards[0][1] == 2
    drv.deck_check()
    check = events.of(DeckChecked)
    assert not check.ok
    assert check.duplicates == (cards[0][0],)                       # the card read twice
    assert [d for _, d in check.foreign] == [2]                     # the other deck's card
    device.jam(2)
    jam = events.of(ShoeJam)
    assert jam.jammed and jam.description == shoe.JAM_CODES[2]
    device.set_door(True)
    assert events.of(ShoeDoor).open is True


def test_corrupted_frame_is_reported_with_its_bytes_and_recovered(table_shoe):
    device, drv, events = table_shoe
    device.corrupt_next = 1
    drv.request_status()
    fault = events.of(DeviceFault)
    assert fault.device == "shoe" and fault.raw_hex and fault.url == drv.url
    assert events.of(ShoeCount).ready       # retransmitted after the NAK


def test_reply_delayed_past_the_timeout_is_delivered_once(table_shoe):
    device, drv, events = table_shoe
    drv.shuffle(1)
    events.of(ShuffleDone)
    device.delay = 0.4                                             # past retransmit_after (0.25 s)
    drv.deliver_hand(1)
    events.of(HandDealt, hand_no=1)
    device.delay = 0
    drv.request_status()
    events.of(ShoeCount)
    hands = [e for e in events.seen if isinstance(e, HandDealt)]
    assert len(hands) == 1 and len(device.received) >= 3


def test_silent_device_goes_offline_and_comes_back(table_shoe):
    device, drv, events = table_shoe
    device.silent = True
    offline = events.of(DeviceOffline)
    assert "heartbeat" in offline.reason and offline.device == "shoe"
    device.silent = False
    assert events.of(DeviceOnline).device == "shoe"


SERIAL_ONLY = ["pty", "tcp"]          # sensors and sign attach by serial (a port or a terminal server)


@pytest.mark.parametrize("transport", SERIAL_ONLY)
def test_sensors_report_placed_changed_removed(transport):
    with running(lambda p: SimulatedSensors(p, heartbeat_every=0.2), transport, "sensors",
                 "sensors-framed", **FAST) as (device, drv, events):
        events.of(DeviceOnline)
        device.place(2, "ante", 500)
        assert events.of(SpotChanged) == SpotChanged("sensors", 2, "ante", "placed", 500, None)
        device.place(2, "ante", 1000)
        assert events.of(SpotChanged).change == "changed"
        device.remove(2, "ante")
        assert events.of(SpotChanged) == SpotChanged("sensors", 2, "ante", "removed", None, 1000)
        drv.lock()
        drv.lamp(3, "pair_plus", "flash")
        deadline_ok = _eventually(lambda: (3, 2) in device.lamps and (1, 0) in device.locked)
        assert deadline_ok


def test_chips_on_the_felt_before_connecting_are_seen_by_the_snapshot():
    def factory(port):
        dev = SimulatedSensors(port, heartbeat_every=0.2, reads_values=False)
        dev.spots[(4, 4)] = 1000                       # already on the felt
        return dev
    with running(factory, "tcp", "sensors", "sensors-framed", **FAST) as (device, drv, events):
        change = events.of(SpotChanged)
        assert (change.position, change.spot, change.change, change.value) == (4, "super6", "placed", None)


def test_port_that_will_not_open_is_reported_and_retried():
    with driver_alone("shoe", "shoe-framed", "/dev/ttyNOSUCHTABLE0", **FAST) as (drv, events):
        offline = events.of(DeviceOffline)
        assert offline.device == "shoe" and "/dev/ttyNOSUCHTABLE0" in offline.reason
        assert not drv.send(shoe.StatusRequest())
        assert events.of(CommandFailed).reason == "device not connected"
    assert sum(isinstance(e, DeviceOffline) for e in events.seen) == 1    # one report per outage


def test_a_looped_back_line_is_not_mistaken_for_a_shoe():
    with driver_alone("shoe", "shoe-framed", "loop://", **FAST) as (drv, events):
        fault = events.of(DeviceFault)
        assert "unknown message type 0x10" in fault.reason
        assert not drv.online


@pytest.mark.parametrize("transport", ["tcp", "usb"])
def test_link_dropped_goes_offline_and_reconnects(transport):
    with running(lambda p: SimulatedShoe(p, heartbeat_every=0.2), transport, "shoe", "shoe-framed",
                 **FAST) as (device, drv, events):
        events.of(DeviceOnline)
        device.port.drop()                                      # the link is cut (socket closed, USB bounced)
        offline = events.of(DeviceOffline)
        assert offline.device == "shoe" and offline.url == device.port.url
        assert events.of(DeviceOnline).device == "shoe"         # reopened with backoff
        drv.request_status()
        events.of(ShoeCount)


def test_unknown_driver_name():
    with pytest.raises(registry.UnknownDriver, match="driver 'shoe-x' unknown; drivers are"):
        registry.driver_class("shoe-x")


# --- the sign -----------------------------------------------------------------------

@pytest.mark.parametrize("transport", SERIAL_ONLY)
def test_sign_shows_values_flicker_free_and_rewrites_after_nak(transport):
    with running(lambda p: SimulatedSign(p, address="07"), transport, "sign", "sign-alpha", address="07",
                 ack_timeout=0.3, backoff=(0.05, 0.2)) as (sign, drv, events):
        events.of(DeviceOnline)
        assert sign.acks                                        # the driver turned its responses on
        drv.show_values(25_000_000, 5_000_000, 1_000_000)
        # (the connection's first layout may report first under load: wait for these values)
        events.of(SignShowing, values={"mega": 25_000_000, "major": 5_000_000, "minor": 1_000_000})
        # one value a page on a one-line sign of 20 characters (the defaults), then the message page
        assert sign.pages() == [["MEGA $250,000.00".ljust(20)], ["MAJOR $50,000.00".ljust(20)],
                                ["MINOR $10,000.00".ljust(20)], [""]]
        assert set(sign.memory) == {"A", "M", "J", "N", "W"}
        assert sign.errors == []
        sign.nak_next = 1
        drv.show_values(25_000_100, 5_000_000, 1_000_000)
        assert "NAK (checksum error)" in events.of(DeviceFault).reason
        events.of(SignShowing)
        assert "$250,001.00" in sign.display()
        drv.show_message("CLOSED")
        events.of(SignShowing)
        assert sign.pages()[-1] == ["CLOSED"]


@pytest.mark.parametrize("transport", SERIAL_ONLY)
def test_silent_sign_is_reported_and_rewritten_when_it_returns(transport):
    with running(lambda p: SimulatedSign(p), transport, "sign", "sign-alpha", address="01", ack_timeout=0.2,
                 max_attempts=2, backoff=(0.05, 0.2)) as (sign, drv, events):
        events.of(DeviceOnline)
        drv.show_values(100, 200, 300)
        events.of(SignShowing)
        sign.silent = True
        drv.show_values(101, 200, 300)
        assert "no answer" in events.of(CommandFailed).reason
        assert events.of(DeviceOffline).device == "sign"
        sign.silent = False
        sign.strings.clear()                                     # it lost its memory too
        events.of(DeviceOnline)
        events.of(SignShowing)
        assert "$1.01" in sign.display() and "$3.00" in sign.display()


def test_sign_without_acks_over_loop():
    with driver_alone("sign", "sign-alpha", "loop://", acks=False, backoff=(0.05, 0.2)) as (drv, events):
        events.of(DeviceOnline)
        drv.show_values(1, 2, 3)
        events.of(SignShowing, values={"mega": 1, "major": 2, "minor": 3})


def _eventually(check, timeout=3.0):
    import time
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.01)
    return False


@pytest.mark.parametrize("transport", ["pty", "tcp"])
def test_a_reading_for_a_position_the_table_does_not_have_is_naked_and_never_posted(transport):
    with running(lambda p: SimulatedSensors(p, positions=9, heartbeat_every=0.2), transport, "sensors",
                 "sensors-framed", positions=6, **FAST) as (device, drv, events):
        events.of(DeviceOnline)
        assert events.of(DeviceFault).reason.startswith("the sensors cover 9 positions, the table has 6")
        device.place(7, "ante", 500)
        fault = events.of(DeviceFault)
        assert fault.reason == "position 7 is not a position of this table (1 to 6)"
        device.place(6, "ante", 500)
        assert events.of(SpotChanged) == SpotChanged("sensors", 6, "ante", "placed", 500, None)
        assert not [e for e in events.seen if isinstance(e, SpotChanged) and e.position == 7]
        assert (7, 0) not in drv.spots



def test_a_socket_port_reads_what_has_arrived_and_sends_each_frame_at_once():
    """``socket://`` (a device server on the network): a read returns every byte that has arrived,
    not one byte a call (pyserial's socket port), Nagle's algorithm is off (a frame written while
    the last was unacknowledged waited for the peer's delayed ACK, ~40 ms a hand in the soak), and
    the other end closing is a lost connection naming the device and URL."""
    import select
    import socket

    from drivers.transport import TcpTransport, TransportError, open_transport

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        url = f"socket://127.0.0.1:{server.getsockname()[1]}"
        transport = open_transport("shoe", url, baudrate=9600, bytesize=7)   # line settings mean nothing here
        assert isinstance(transport, TcpTransport)
        transport.open()
        peer, _ = server.accept()
        try:
            assert transport._sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
            peer.sendall(bytes(range(40)))          # one segment on the loopback
            select.select([transport._sock], [], [], 2.0)
            assert transport.read() == bytes(range(40))
            transport.write(b"\x00abc\x00")
            assert peer.recv(16) == b"\x00abc\x00"
            assert transport.read() == b""          # nothing came within the read timeout
            peer.close()
            with pytest.raises(TransportError, match=r"shoe: reading socket://127\.0\.0\.1:\d+ failed: the other"):
                for _ in range(50):
                    transport.read()
        finally:
            transport.close()
    bad = TcpTransport("sensors", "socket://127.0.0.1:1?timeout=3")
    with pytest.raises(TransportError, match="sensors: cannot open .*unknown option 'timeout'"):
        bad.open()
