"""Two ends of the reliable link joined by a wire the test controls (drop, corrupt, delay)."""

from drivers.wire import shoe_protocol as shoe
from drivers.wire.framing import Frame, FrameDecoder, encode_frame
from drivers.wire.link import Link
from drivers.wire.link_words import (
    ACK,
    NAK,
    NAK_BAD_MESSAGE,
    Delivered,
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
    wire = host.send(0x7A, b"", 0.0)
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


# --- framing.md's link rules, one example each ------------------------------------------------------

def test_an_ack_and_a_nak_carry_in_their_header_the_seq_they_answer():
    _, device = pair()
    wire = encode_frame(5, *shoe.catalog.encode(shoe.DeliverHand(3)))
    (ack,) = _frames(device.receive(wire, 0.1)[1])
    assert (ack.seq, ack.type, ack.payload) == (5, ACK, b"\x05")
    bad = encode_frame(6, shoe.Shuffle.TYPE, b"\x03")                       # deck 3: out of range
    (nak,) = _frames(device.receive(bad, 0.2)[1])
    assert (nak.seq, nak.type, nak.payload) == (6, NAK, bytes((6, NAK_BAD_MESSAGE)))
    (nak,) = _frames(device.receive(b"\0\x09\x09\x09\0", 0.3)[1])           # not a frame at all
    assert (nak.seq, nak.type, nak.payload) == (0xFF, NAK, b"\xff\x01")
    (beat,) = _frames(device.poll(5.0)[1])
    assert (beat.seq, beat.type, beat.payload) == (0, 0x02, b"")


def test_hello_and_its_reply_are_seq_0_and_the_next_message_is_seq_1():
    host, device = pair()
    for n in range(3):                                                    # SEQs 0, 1, 2 ACKed
        _, ack = device.receive(send(host, shoe.DeliverHand(n + 1), n), n)
        host.receive(ack, n)
    hello = send(host, shoe.Hello(1), 10.0)
    assert _frames(hello)[0].seq == 0
    _, ack = device.receive(hello, 10.0)
    host.receive(ack, 10.0)
    assert _frames(send(host, shoe.Shuffle(1), 10.0))[0].seq == 1
    send(device, shoe.Door(0), 9.0)                                        # the device had sent SEQ 0..
    device._in_flight = None
    reply = send(device, shoe.HelloReply(1, 1, "FW", "SN"), 10.1)
    assert _frames(reply)[0].seq == 0


def test_an_ack_counts_as_sending_for_the_heartbeat():
    host, device = pair()
    _, ack = device.receive(send(host, shoe.StatusRequest(), 0.6), 0.6)
    assert _frames(ack)[0].type == ACK
    assert device.poll(1.0)[1] == b""                                     # 0.4 s since the ACK
    assert device.poll(1.59)[1] == b""
    (beat,) = _frames(device.poll(1.6)[1])                                # 1 s since the ACK
    assert beat.type == 0x02


def test_a_device_refuses_bad_input_as_the_host_does():
    """A device NAKs what it cannot use, never acts on it, and reads on."""
    _, device = pair()
    reply = encode_frame(3, *shoe.catalog.encode(shoe.HelloReply(1, 1, "FW", "SN")))   # a device's message
    events, out = device.receive(reply, 0.0)
    assert delivered(events) == [] and _frames(out)[0].payload == bytes((3, 3))
    events, out = device.receive(encode_frame(4, 0x12, b"\x00"), 0.1)       # hand number 0
    assert delivered(events) == [] and _frames(out)[0].payload == bytes((4, NAK_BAD_MESSAGE))
    events, out = device.receive(encode_frame(5, 0x12, b"\x01\x02"), 0.2)   # a byte too many
    assert delivered(events) == [] and _frames(out)[0].payload == bytes((5, NAK_BAD_MESSAGE))
    events, _ = device.receive(encode_frame(6, 0x12, b"\x01"), 0.3)
    assert delivered(events) == [shoe.DeliverHand(1)]


def test_a_device_keeps_what_it_had_not_delivered_and_sends_it_after_its_hello_reply():
    host, device = pair()
    device.keep_undelivered = True
    send(device, shoe.HandDelivered(2, ((4, 1), (5, 1), (6, 1))), 0.0)     # lost: the host is away
    send(device, shoe.Door(1), 0.0)                                       # queued behind it
    for t in (0.3, 0.6, 0.9, 2.0, 3.1, 4.2):               # past max_attempts: kept, at 1 s pace
        assert device.poll(t)[1] != b""
    assert device.pending == 2 and device.poll(4.3)[1] == b""
    events, ack = device.receive(send(host, shoe.Hello(1), 4.4), 4.4)     # the host is back
    host.receive(ack, 4.4)
    assert delivered(events) == [shoe.Hello(1)] and device.poll(4.45)[1] == b""   # nothing before the reply
    wire = send(device, shoe.HelloReply(1, 1, "FW", "SN"), 4.5)
    got = []
    for t in (4.5, 4.6, 4.7):
        events, ack = host.receive(wire, t)
        got += delivered(events)
        _, wire = device.receive(ack, t)
    assert got == [shoe.HelloReply(1, 1, "FW", "SN"), shoe.HandDelivered(2, ((4, 1), (5, 1), (6, 1))),
                   shoe.Door(1)]
    assert device.idle


def test_a_host_gives_up_where_a_device_keeps_trying():
    host, _ = pair()
    send(host, shoe.DeckCheck(), 0.0)
    failed = [e for t in (0.3, 0.6, 0.9, 1.2) for e in host.poll(t)[0] if isinstance(e, SendFailed)]
    assert failed == [SendFailed(shoe.DeckCheck.TYPE, 4)] and host.idle


def test_a_hello_repeated_before_the_identity_went_out_draws_one_identity_not_two():
    """A device answers each Hello with HelloReply then Identity; a Hello repeated because its ACK
    was lost comes while the first HelloReply awaits its ACK and the first Identity is queued. The
    old session's Identity is dropped with its HelloReply: one Identity per session (issue 33)."""
    from drivers.wire import messages as session
    identity = session.Identity("Acme Gaming", "HFS-3", "SN42", "1.4.2", (1, 2, 3, 4), 3)
    host, device = pair()
    hello = send(host, shoe.Hello(1), 0.0)
    events, _ack_lost = device.receive(hello, 0.01)
    assert delivered(events) == [shoe.Hello(1)]
    reply = send(device, shoe.HelloReply(1, 1, "F", "S"), 0.01)         # its ACK is lost too
    device.send(*session.SESSION.encode(identity), 0.01)                # queued behind it
    _, again = host.poll(0.3)                                           # the Hello, resent
    events, _ = device.receive(again, 0.31)
    assert delivered(events) == [shoe.Hello(1)]
    out = send(device, shoe.HelloReply(1, 1, "F", "S"), 0.31)
    device.send(*session.SESSION.encode(identity), 0.31)
    heard = []
    now = 0.32
    for _ in range(10):                                                 # the line works from now on
        events, acks = host.receive(out, now)
        heard += [e.message for e in events if isinstance(e, Delivered)]
        _, out = device.receive(acks, now)
        now += 0.01
    assert reply and [type(m).__name__ for m in heard] == ["HelloReply", "Identity"]
