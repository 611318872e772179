"""Two ends of the reliable link joined by a wire the test controls (drop, corrupt, delay)."""

from drivers.wire import shoe_protocol as shoe
from drivers.wire.framing import Frame, FrameDecoder, encode_frame
from drivers.wire.link import (
    ACK,
    NAK,
    NAK_BAD_MESSAGE,
    Delivered,
    Link,
    LinkFault,
    PeerAlive,
    PeerSilent,
    Refused,
    SendFailed,
)


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


def _handshake(host, device, now):
    """The host's Hello and the device's HelloReply; returns the device's HelloReply SEQ."""
    _, ack = device.receive(send(host, shoe.Hello(1), now), now)
    host.receive(ack, now)
    wire = send(device, shoe.HelloReply(1, 1, "FW", "SN"), now)
    events, ack = host.receive(wire, now)
    device.receive(ack, now)
    assert delivered(events) == [shoe.HelloReply(1, 1, "FW", "SN")]
    return _frames(wire)[0].seq


def _frames(data):
    return [f for f in FrameDecoder().feed(data) if isinstance(f, Frame)]


def test_a_rebooted_device_reusing_the_seq_the_host_accepted_last_is_heard():
    """The lab's reboot: the device's HelloReply at SEQ 0 was the last frame the host accepted; the
    device reboots (its link starts again at SEQ 0), the host says Hello again, and the new
    HelloReply, at SEQ 0 again, was ACKed as a repeat and never delivered: offline for good."""
    host, device = pair()
    assert _handshake(host, device, 0.0) == 0 and host.last_seq == 0
    device = Link(shoe.device_decode)                         # rebooted
    assert _handshake(host, device, 5.0) == 0                 # delivered, not taken for a repeat


def test_a_helloreply_is_delivered_whatever_its_seq():
    host, device = pair()
    _handshake(host, device, 0.0)
    events, out = host.receive(encode_frame(0, *shoe.catalog.encode(shoe.HelloReply(1, 2, "B", "C"))), 1.0)
    assert delivered(events) == [shoe.HelloReply(1, 2, "B", "C")]


def test_sending_hello_resets_the_duplicate_filter():
    host, device = pair()
    _handshake(host, device, 0.0)
    wire = encode_frame(0, *shoe.catalog.encode(shoe.Status(1, 52, 1)))   # the rebooted device's first
    assert delivered(host.receive(wire, 1.0)[0]) == []                    # SEQ 0 again: a repeat, for now
    send(host, shoe.Hello(1), 2.0)                                        # our new session
    assert host.last_seq is None
    assert delivered(host.receive(wire, 2.1)[0]) == [shoe.Status(1, 52, 1)]


def test_a_hello_that_does_not_decode_drops_nothing():
    """A garbled or hostile frame of the Hello type must not wipe what we have queued."""
    host, _ = pair()
    send(host, shoe.DeliverHand(1), 0.0)
    send(host, shoe.DeliverHand(2), 0.0)
    events, out = host.receive(encode_frame(9, 0x10, b"\x01"), 0.1)       # a Hello sent to the host
    assert isinstance(events[0], LinkFault) and _frames(out)[0].payload == bytes((9, 3))
    assert not host.idle and host._in_flight[1] == shoe.DeliverHand.TYPE and len(host._queue) == 1


def test_a_decoders_bug_is_refused_and_the_next_frame_still_delivered():
    def decode(type_code, payload):
        if payload == b"\x66":
            raise IndexError("decoder bug")
        return shoe.host_decode(type_code, payload)
    link = Link(decode)
    events, out = link.receive(encode_frame(1, 0x96, b"\x66") + encode_frame(2, 0x96, b"\x01"), 0.0)
    assert isinstance(events[0], LinkFault) and "IndexError: decoder bug" in events[0].reason
    assert delivered(events) == [shoe.Door(1)]
    assert [(f.type, f.payload) for f in _frames(out)] == [(NAK, bytes((1, NAK_BAD_MESSAGE))), (ACK, b"\x02")]
