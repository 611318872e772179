"""Authenticated frames (drivers/wire/auth.py) between two ends of the link: the handshake, forged,
replayed and stale frames refused (never NAKed, never delivered), and the TIME a device stamps."""

from drivers.wire import shoe_protocol as shoe
from drivers.wire.auth import DEVICE, HOST, Authenticator, new_key
from drivers.wire.framing import Frame, FrameDecoder, encode_frame
from drivers.wire.link import Link
from drivers.wire.link_words import ACK, HEARTBEAT, Delivered, LinkFault


def pair(key=None, device_key=None):
    key = key or new_key()
    host = Link(shoe.host_decode, auth=Authenticator(key, HOST))
    device = Link(shoe.device_decode, auth=Authenticator(device_key or key, DEVICE), keep_undelivered=True)
    return host, device


def send(link, message, now, **kw):
    return link.send(*shoe.catalog.encode(message), now, **kw)


def delivered(events):
    return [e.message for e in events if isinstance(e, Delivered)]


def frames(data):
    return [f for f in FrameDecoder().feed(data) if isinstance(f, Frame)]


def session(host, device, now=0.0):
    """Hello, the device's challenge (its ACK) and the host's answer (a heartbeat under the new keys):
    both ends hold the session's keys; returns the device's HelloReply bytes."""
    events, ack = device.receive(send(host, shoe.Hello(1), now), now)
    assert delivered(events) == [] and frames(ack)[0].type == ACK and frames(ack)[0].counter != 1
    events, answer = host.receive(ack, now)
    assert events == [] and [f.type for f in frames(answer)] == [HEARTBEAT] and host.auth.ready and host.idle
    events, out = device.receive(answer, now)
    assert delivered(events) == [shoe.Hello(1)] and out == b"" and device.auth.ready
    return send(device, shoe.HelloReply(1, 1, "FW", "SN"), now)


def up(host, device):
    """The whole handshake, the HelloReply acknowledged: both ends idle in one session."""
    events, ack = host.receive(session(host, device), 0.1)
    device.receive(ack, 0.1)
    assert delivered(events) == [shoe.HelloReply(1, 1, "FW", "SN")] and device.idle


def test_every_frame_is_sealed_and_the_session_carries_messages_both_ways():
    host, device = pair()
    reply = session(host, device)
    assert all(f.authenticated for f in frames(reply))
    events, ack = host.receive(reply, 0.1)
    assert delivered(events) == [shoe.HelloReply(1, 1, "FW", "SN")]
    device.receive(ack, 0.1)
    events, ack = device.receive(send(host, shoe.DeliverHand(1), 0.2), 0.2)
    assert delivered(events) == [shoe.DeliverHand(1)]
    host.receive(ack, 0.2)
    assert host.idle and host.stats["refused"] == device.stats["refused"] == 0


def test_a_forged_card_read_is_refused_never_nakked_never_delivered():
    host, device = pair()
    up(host, device)
    hand = shoe.catalog.encode(shoe.HandDelivered(1, ((48, 1), (44, 1), (40, 1))))
    expected = {encode_frame(7, *hand): "refused: unauthenticated frame",
                encode_frame(7, *hand, seal=lambda body: bytes((0, 0, 0, 9)) + bytes(8)): "refused: bad MAC"}
    for forged, reason in expected.items():
        events, out = host.receive(forged, 1.0)
        assert out == b"" and delivered(events) == []
        (fault,) = events
        assert isinstance(fault, LinkFault) and fault.security and not fault.quiet and fault.reason == reason
    assert host.stats["refused"] == 2


def test_a_replayed_frame_is_refused():
    host, device = pair()
    up(host, device)
    wire = send(device, shoe.Door(1), 0.2)
    events, ack = host.receive(wire, 0.2)
    assert delivered(events) == [shoe.Door(1)]
    device.receive(ack, 0.2)
    events, out = host.receive(wire, 5.0)                                   # the same bytes again
    assert delivered(events) == [] and out == b""
    assert events[0].reason.startswith("refused: replayed frame")


def test_a_frame_of_an_old_session_is_refused_after_a_new_hello():
    host, device = pair()
    up(host, device)
    old = send(device, shoe.Door(0), 0.2)                                    # captured, not yet seen
    device.receive(send(host, shoe.Hello(1), 1.0), 1.0)                     # a new session (ACK lost)
    events, _ = host.receive(old, 1.1)
    assert delivered(events) == [] and events[0].security and events[0].quiet   # between Hello and its ACK


def test_a_restarted_host_hearing_the_old_session_before_its_hello_is_not_alarmed():
    """A controller killed and started again, or a reconnect whose Hello went unanswered: the device
    still seals frames in the session that ended. Refused and counted, but quiet: it is not an
    attack (nothing is accepted without a session), and "call a technician" at every restart
    taught staff to ignore the alarm (106 of them in a 32,000-round soak)."""
    key = new_key()
    host, device = pair(key)
    up(host, device)
    restarted = Link(shoe.host_decode, auth=Authenticator(key, HOST))        # no session, no Hello yet
    events, out = restarted.receive(send(device, shoe.Door(1), 0.2), 0.2)
    assert delivered(events) == [] and out == b""
    assert events[0].security and events[0].quiet and events[0].reason == "refused: no session yet"


def test_sessionless_frames_past_a_few_are_alerted():
    """Quiet is for the few frames a device sends before it hears the new Hello: a stream of them
    (a device that never takes the new session, or frames made to look like it) is alerted."""
    from drivers.wire.link import STALE_QUIET
    key = new_key()
    host, device = pair(key)
    up(host, device)
    restarted = Link(shoe.host_decode, auth=Authenticator(key, HOST))
    wire = send(device, shoe.Door(1), 0.2)          # resent by the device: each copy refused
    quiet = [restarted.receive(wire, 0.2 + n)[0][0].quiet for n in range(STALE_QUIET + 3)]
    assert quiet == [True] * STALE_QUIET + [False] * 3
    assert restarted.stats["refused"] == STALE_QUIET + 3


def test_a_device_with_another_key_never_gets_a_session():
    host, device = pair(device_key=new_key())
    events, out = device.receive(send(host, shoe.Hello(1), 0.0), 0.0)
    assert delivered(events) == [] and out == b""
    assert events[0].reason == "refused: Hello with a bad MAC" and not device.auth.ready
    assert device.poll(5.0)[1] == b""                                       # no session: it sends nothing


def test_a_device_stamps_its_events_and_the_stamp_survives_a_link_loss():
    host, device = pair()
    up(host, device)
    lost = send(device, shoe.Door(1), 0.2, time_ms=1_795_000_000_123)      # the host is away
    assert frames(lost)[0].time_ms == 1_795_000_000_123
    events, ack = device.receive(send(host, shoe.Hello(1), 9.0), 9.0)       # the host is back
    _, answer = host.receive(ack, 9.0)
    device.receive(answer, 9.0)
    wire = send(device, shoe.HelloReply(1, 1, "FW", "SN"), 9.1)
    got = []
    for t in (9.1, 9.2):
        events, ack = host.receive(wire, t)
        got += [(e.message, e.time_ms) for e in events if isinstance(e, Delivered)]
        _, wire = device.receive(ack, t)
    assert got == [(shoe.HelloReply(1, 1, "FW", "SN"), None), (shoe.Door(1), 1_795_000_000_123)]


def test_the_documented_authenticated_frames_check_out_with_plain_hmac():
    """What a vendor does with examples.md's whole session: COBS-decode each frame, HMAC-SHA256 it
    under the key its row names, and follow each side's COUNTER: the nonces count for nothing, then
    1, 2, 3... per side, every frame (a message, an ACK, a heartbeat) one more (issue 33 item 15)."""
    import hashlib
    import hmac
    import re

    from drivers.wire.framing import cobs_decode
    from tests.support import ROOT
    text = (ROOT / "docs" / "protocols" / "examples.md").read_text()
    key = bytes(range(32))
    row = r"^\| \d+ \| (host|device) \| ([0-9A-F]{2}) \| ([^|]+) \| ([^|]+) \| ([^|]+) \| `([0-9A-F ]+)` \|$"
    rows = re.findall(row, text, re.M)
    assert len(rows) >= 19
    bodies = [cobs_decode(bytes.fromhex(wire)[1:-1]) for *_, wire in rows]
    hello, ack = bodies[0], bodies[1]
    assert [r[2] for r in rows[:3]] == ["`Hello`", "ACK of SEQ 00", "HEARTBEAT"]
    assert hello[-10:-2] == hmac.new(key, hello[:-10], hashlib.sha256).digest()[:8]
    n_h, n_d = hello[-14:-10], ack[-14:-10]
    keys = {"K_hd": hmac.new(key, b"TCP2 host to device" + n_h + n_d, hashlib.sha256).digest(),
            "K_dh": hmac.new(key, b"TCP2 device to host" + n_h + n_d, hashlib.sha256).digest()}
    counters: dict[str, list[int]] = {"host": [], "device": []}
    for (sender, seq, _what, counter, sealed_with, _), body in zip(rows[1:], bodies[1:], strict=True):
        assert body[-10:-2] == hmac.new(keys[sealed_with.strip()], body[:-10], hashlib.sha256).digest()[:8]
        assert body[1] == int(seq, 16) and body[0] & 0x3F == 2
        if not counter.startswith("N_d"):
            counters[sender].append(int.from_bytes(body[-14:-10], "big"))
            assert counter.strip() == str(counters[sender][-1])
    for sent in counters.values():
        assert sent == list(range(1, len(sent) + 1))
    said = {r[2]: (r[0], int(r[1], 16)) for r in rows}
    assert said["`HelloReply`"] == ("device", 0) and said["`Identity`"] == ("device", 1)
    assert bodies[[r[2] for r in rows].index("`HandDelivered` stamped (TIME)")][0] == 0xC2
