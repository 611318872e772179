"""The lab's attacks on a paired link (issue 33, items 10 and 11), at the codec: a host frame reflected
back to the host, and a Hello captured off the line and replayed without the key."""

from drivers.wire import sensor_protocol as sp
from drivers.wire import shoe_protocol as shoe
from drivers.wire.auth import DEVICE, HOST, Authenticator, new_key
from drivers.wire.framing import Frame, FrameDecoder
from drivers.wire.link import Link
from drivers.wire.link_words import ACK, Delivered, LinkFault


def pair():
    key = new_key()
    return (Link(shoe.host_decode, auth=Authenticator(key, HOST)),
            Link(shoe.device_decode, auth=Authenticator(key, DEVICE), keep_undelivered=True))


def send(link, message, now):
    return link.send(*shoe.catalog.encode(message), now)


def delivered(events):
    return [e.message for e in events if isinstance(e, Delivered)]


def exchange(host, device, to_device, now):
    """Carry bytes both ways until the line is quiet; what each side had delivered to it."""
    got = {"host": [], "device": []}
    to_host = b""
    while to_device or to_host:
        events, to_host_next = device.receive(to_device, now) if to_device else ([], b"")
        got["device"] += delivered(events)
        events, to_device = host.receive(to_host, now) if to_host else ([], b"")
        got["host"] += delivered(events)
        to_host = to_host_next
        for message in delivered(events):
            assert message is not None
    return got


def up(host, device, now=0.0):
    """Hello, its challenge answered, HelloReply: one live session, both sides idle."""
    hello = send(host, shoe.Hello(1), now)
    got = exchange(host, device, hello, now)
    assert got["device"] == [shoe.Hello(1)], got
    got = exchange(host, device, b"", now)
    _, to_device = host.receive(send(device, shoe.HelloReply(1, 1, "FW", "SN"), now), now)
    device.receive(to_device, now)
    assert host.auth.ready and device.auth.ready and host.idle and device.idle
    return hello


def test_a_host_ack_reflected_back_to_the_host_acknowledges_nothing():
    """The lab's finding: the host ACKs the device's SEQ 1; the attacker drops the host's next command,
    also SEQ 1, and reflects the host's own ACK back to it: taken for the device's ACK, it acknowledged
    a Lock the device never received."""
    host, device = pair()
    up(host, device)
    for _ in range(3):                              # the host's own COUNTER runs ahead of the device's
        host.poll(host._last_tx + 1.0)
    _, host_ack = host.receive(send(device, shoe.Door(1), 5.0), 5.0)
    device.receive(host_ack, 5.0)
    send(host, shoe.DeliverHand(1), 5.1)            # host SEQ 1: dropped on the line
    assert host.pending == 1
    events, out = host.receive(host_ack, 5.2)       # the host's ACK of SEQ 1, reflected
    assert host.pending == 1, "a reflected host frame acknowledged a message the device never got"
    assert [e for e in events if isinstance(e, LinkFault) and e.security]


def test_any_host_frame_reflected_to_the_host_is_refused():
    host, device = pair()
    up(host, device)
    wire = send(host, shoe.DeliverHand(1), 1.0)
    events, out = host.receive(wire, 1.0)
    assert delivered(events) == [] and out == b""
    assert events and all(isinstance(e, LinkFault) and e.security for e in events)


def test_a_device_frame_reflected_to_the_device_is_refused():
    host, device = pair()
    up(host, device)
    wire = send(device, shoe.Door(1), 1.0)
    events, out = device.receive(wire, 1.0)
    assert delivered(events) == [] and out == b""
    assert events and all(isinstance(e, LinkFault) and e.security for e in events)


def test_a_replayed_hello_does_not_restart_a_live_session():
    """A Hello captured off the line and replayed (its MAC holds: it was the host's) must not end the
    device's session: its events after the replay still reach the host at once."""
    host, device = pair()
    captured = up(host, device)
    events, _ = device.receive(captured, 5.0)
    assert delivered(events) == []                  # not acted on: no HelloReply, no parking
    events, ack = host.receive(send(device, shoe.Door(1), 5.1), 5.1)
    assert delivered(events) == [shoe.Door(1)]
    device.receive(ack, 5.1)
    assert device.idle
    events, ack = device.receive(send(host, shoe.DeliverHand(1), 5.2), 5.2)
    assert delivered(events) == [shoe.DeliverHand(1)]


def test_a_genuine_new_hello_still_starts_a_new_session():
    host, device = pair()
    up(host, device)
    kept = send(device, shoe.Door(1), 1.0)          # the host never hears it: kept by the device
    got = exchange(host, device, send(host, shoe.Hello(1), 2.0), 2.0)
    assert got["device"] == [shoe.Hello(1)]
    assert kept and host.auth.ready and device.auth.ready
    events, ack = host.receive(send(device, shoe.HelloReply(1, 1, "FW", "SN"), 2.1), 2.1)
    got = delivered(events)
    for _ in range(3):
        _, wire = device.receive(ack, 2.2)
        events, ack = host.receive(wire, 2.2)
        got += delivered(events)
    assert got == [shoe.HelloReply(1, 1, "FW", "SN"), shoe.Door(1)]


def test_a_hello_replayed_to_a_device_with_no_session_gives_it_none():
    """A device just restarted hears an old Hello: it answers the challenge, but nothing under a key
    the replayer cannot know follows, so it never takes that session."""
    host, device = pair()
    captured = up(host, device)
    fresh = Link(sp.device_decode, auth=Authenticator(device.auth.key, DEVICE))
    events, out = fresh.receive(captured, 0.0)
    assert delivered(events) == [] and not fresh.auth.ready
    assert [f.type for f in FrameDecoder().feed(out) if isinstance(f, Frame)] == [ACK]
