import pytest

from drivers.wire import sensor_protocol as sp
from drivers.wire import shoe_protocol as shoe
from drivers.wire.link_words import MessageError

SHOE_MESSAGES = [
    shoe.Hello(1), shoe.Shuffle(2), shoe.DeliverHand(7), shoe.DeckCheck(), shoe.StatusRequest(),
    shoe.HelloReply(1, 2, "TCS-1.4.2", "SN0042"), shoe.ShuffleComplete(1, 52),
    shoe.HandDelivered(3, ((51, 1), (0, 1), (shoe.UNREADABLE, 2))),
    shoe.DeckCheckResult(1, 51, (12,), (40,), ((5, 2),)), shoe.Status(5, 40, 1), shoe.Jam(1),
    shoe.Door(1), shoe.ShoeFault(4, "card reader fault"),
]
SENSOR_MESSAGES = [
    sp.Hello(1), sp.Lock(0, 0x1F, 1), sp.Lamp(3, 2, sp.LAMP_FLASH), sp.SnapshotRequest(),
    sp.HelloReply(1, 6, 1, "BSC-2.0", "SN7"), sp.SpotReading(2, 0, sp.CHIPS, 2500),
    sp.SpotReading(6, 4, sp.EMPTY, sp.UNKNOWN_VALUE),
    sp.Snapshot.pack({(1, 0): (sp.CHIPS, 500), (2, 2): (sp.CHIPS, sp.UNKNOWN_VALUE)}, 2),
    sp.SensorFault(4, 1, 2),
]


@pytest.mark.parametrize("message", SHOE_MESSAGES + SENSOR_MESSAGES, ids=lambda m: type(m).__name__)
def test_every_message_round_trips_to_the_other_side(message):
    module = shoe if message in SHOE_MESSAGES else sp
    type_code, payload = module.catalog.encode(message)
    decode = module.device_decode if message.SENDER == "host" else module.host_decode
    assert decode(type_code, payload) == message


@pytest.mark.parametrize("message", SHOE_MESSAGES, ids=lambda m: type(m).__name__)
def test_a_side_refuses_its_own_messages(message):
    type_code, payload = shoe.catalog.encode(message)
    decode = shoe.host_decode if message.SENDER == "host" else shoe.device_decode
    with pytest.raises(MessageError) as err:
        decode(type_code, payload)
    assert err.value.unknown_type


def test_truncated_extended_and_out_of_range_payloads():
    type_code, payload = shoe.catalog.encode(shoe.HandDelivered(1, ((4, 1), (5, 1), (6, 1))))
    with pytest.raises(MessageError, match="run past the payload"):
        shoe.host_decode(type_code, payload[:-1])
    with pytest.raises(MessageError, match="1 unexpected bytes at the end"):
        shoe.host_decode(type_code, payload + b"\0")
    with pytest.raises(MessageError, match="card code 60"):
        shoe.host_decode(type_code, bytes((1, 1, 60, 1)))
    with pytest.raises(MessageError, match="spot 7"):
        sp.host_decode(0x91, bytes((1, 7, 1, 0, 0, 0, 5)))
    with pytest.raises(MessageError, match="not printable"):
        shoe.host_decode(0x97, bytes((1, 2, 0x41, 0x07)))
    with pytest.raises(MessageError, match="unknown message type 0x7a"):
        shoe.host_decode(0x7A, b"")


def test_snapshot_readings():
    snap = sp.Snapshot.pack({(1, 0): (sp.CHIPS, 500), (2, 4): (sp.CHIPS, 1000)}, 2)
    readings = {(r.position, r.spot): (r.state, r.value) for r in snap.readings()}
    assert readings[(1, 0)] == (sp.CHIPS, 500) and readings[(2, 4)] == (sp.CHIPS, 1000)
    assert readings[(1, 1)] == (sp.EMPTY, 0) and len(readings) == 10


def test_deck_check_ok():
    assert shoe.DeckCheckResult(1, 52, (), (), ()).ok
    assert not shoe.DeckCheckResult(1, 52, (), (), ((4, 2),)).ok      # count 52 with a foreign card


# --- the session messages every framed device speaks ----------------------------------------------

def test_identity_fields_are_separate_and_checked_when_decoded():
    from drivers.wire.messages import CAP_TIMESTAMPS, Identity, SetClock, UseCapabilities
    identity = Identity("Acme", "HFS-3", "SN42", "1.4.2", (0xDE, 0xAD), CAP_TIMESTAMPS)
    for module in (shoe, sp):                     # in both catalogs, by the same codes
        assert module.host_decode(*module.catalog.encode(identity)) == identity
        assert module.device_decode(*module.catalog.encode(SetClock(1_795_000_000_000))).utc_ms == 1_795_000_000_000
        assert module.device_decode(*module.catalog.encode(UseCapabilities(5))).capabilities == 5
    assert identity.record() == {"manufacturer": "Acme", "model": "HFS-3", "serial": "SN42",
                                 "firmware_version": "1.4.2", "firmware_checksum": "dead",
                                 "capabilities": ["timestamps"]}
    _, payload = shoe.catalog.encode(identity)
    empty = payload.replace(b"\x04Acme", b"\x00", 1)
    with pytest.raises(MessageError, match="manufacturer is empty"):
        shoe.host_decode(Identity.TYPE, empty)
    no_checksum = payload.replace(b"\x02\xde\xad", b"\x00", 1)
    with pytest.raises(MessageError, match="firmware checksum of 0 bytes is not 1-64"):
        shoe.host_decode(Identity.TYPE, no_checksum)
    with pytest.raises(MessageError, match="unknown message type 0xf0 for the device"):
        shoe.device_decode(*shoe.catalog.encode(identity))
