"""Two ends of the reliable link joined by a wire the test controls (drop, corrupt, delay)."""

from drivers.wire import shoe_protocol as shoe
from drivers.wire.framing import encode_frame
from drivers.wire.link import Delivered, Link, LinkFault, PeerAlive, PeerSilent, Refused, SendFailed


def pair():
    host = Link(shoe.host_decode, retransmit_after=0.25, max_attempts=4, heartbeat_every=1.0,
                silence_after=3.0)
    device = Link(shoe.device_decode, heartbeat_every=1.0, silence_after=3.0)
    return host, device


def send(link, message, now):
    type_code, payload = shoe.catalog.encode(message)
    return link.send(type_code, payload, now)


def delivered(events):
    return [e.message for e in events if isinstance(e, Delivered)]


def test_delivery_and_acknowledgement():
    host, device = pair()
    wire = send(host, shoe.DeliverHand(1), 0.0)
    assert not host.idle
    events, ack = device.receive(wire, 0.01)
    assert delivered(events) == [shoe.DeliverHand(1)]
    events, out = host.receive(ack, 0.02)
    assert events == [] and out == b"" and host.idle


def test_stop_and_wait_queues_the_next_message():
    host, device = pair()
    first = send(host, shoe.Shuffle(1), 0.0)
    assert send(host, shoe.DeliverHand(1), 0.0) == b""      # waits for the first ACK
    _, ack = device.receive(first, 0.0)
    _, second = host.receive(ack, 0.0)
    events, _ = device.receive(second, 0.0)
    assert delivered(events) == [shoe.DeliverHand(1)]


def test_lost_frame_is_retransmitted():
    host, device = pair()
    send(host, shoe.DeckCheck(), 0.0)                         # lost on the wire
    events, again = host.poll(0.3)
    assert again and host.stats["retransmits"] == 1
    events, _ = device.receive(again, 0.31)
    assert delivered(events) == [shoe.DeckCheck()]


def test_lost_ack_repeats_are_acked_but_not_delivered_twice():
    host, device = pair()
    wire = send(host, shoe.DeliverHand(4), 0.0)
    events1, _lost_ack = device.receive(wire, 0.0)
    _, again = host.poll(0.3)
    events2, ack = device.receive(again, 0.3)
    assert delivered(events1) == [shoe.DeliverHand(4)] and delivered(events2) == []
    host.receive(ack, 0.31)
    assert host.idle


def test_corrupted_frame_gets_nak_and_is_resent_at_once():
    host, device = pair()
    wire = bytearray(send(host, shoe.DeliverHand(2), 0.0))
    wire[3] ^= 0x21
    events, nak = device.receive(bytes(wire), 0.0)
    assert isinstance(events[0], LinkFault)
    events, resent = host.receive(nak, 0.01)
    assert resent and host.stats["retransmits"] == 1
    events, _ = device.receive(resent, 0.02)
    assert delivered(events) == [shoe.DeliverHand(2)]


def test_unknown_message_is_refused_not_retried():
    host, device = pair()
    host.send(0x7A, b"", 0.0)
    wire = host._in_flight[2]
    events, nak = device.receive(wire, 0.0)
    assert isinstance(events[0], LinkFault) and "unknown message type" in events[0].reason
    events, out = host.receive(nak, 0.0)
    assert events == [Refused(0x7A, "unknown message type")] and out == b"" and host.idle


def test_gives_up_after_max_attempts():
    host, _ = pair()
    send(host, shoe.DeckCheck(), 0.0)
    failures = []
    for step in range(1, 6):
        events, _ = host.poll(step * 0.3)
        failures += [e for e in events if isinstance(e, SendFailed)]
    assert failures == [SendFailed(shoe.DeckCheck.TYPE, 4)] and host.idle


def test_heartbeats_and_silence():
    host, device = pair()
    _, beat = host.poll(1.0)
    assert beat                                               # nothing sent for a second
    events, out = device.receive(beat, 1.0)
    assert events == [] and out == b""                        # heartbeats are not acknowledged
    events, _ = host.poll(3.5)
    assert events == [PeerSilent(3.5)]
    assert host.poll(4.0)[0] == []                            # reported once
    _, beat = device.poll(5.0)
    events, _ = host.receive(beat, 5.0)
    assert events == [PeerAlive()]


def test_hello_resets_duplicate_detection_after_a_device_restart():
    host, device = pair()
    wire = send(host, shoe.Hello(1), 0.0)
    device.receive(wire, 0.0)
    host.reset(1.0)                                           # the host restarted: SEQ 0 again
    wire = send(host, shoe.Hello(1), 1.0)
    events, _ = device.receive(wire, 1.0)
    assert delivered(events) == [shoe.Hello(1)]


def test_reserved_frame_types_are_faults():
    _, device = pair()
    events, _ = device.receive(encode_frame(0, 0x05, b""), 0.0)
    assert isinstance(events[0], LinkFault) and "reserved" in events[0].reason
