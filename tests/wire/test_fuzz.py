"""Hostile device bytes (issue 16): every decoder takes valid frames of every message type, mutated
(bit flips, truncation, extension, fields out of range), and garbage, without an exception; each
bad input is refused (a NAK on the link) or is a clean message, and a good frame after it is still
delivered. Inputs and rules: tests/wire/fuzzing.py; the long campaign: benchmarks/fuzz.py.

In CI (the "ci" profile, derandomized) the budget is fixed: a few hundred inputs per decoder.
"""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.wire import sensor_protocol as sp
from drivers.wire import shoe_protocol as shoe
from drivers.wire.framing import Frame, FrameDecoder, encode_frame
from drivers.wire.link import Link
from drivers.wire.link_words import NAK, NAK_BAD_MESSAGE, Delivered, LinkFault, MessageError
from tests.wire.fuzz_codecs import AlphaPackets, AlphaResponses, CatalogTarget, Framing, LinkTarget
from tests.wire.fuzzing import PROTOCOLS, VALID, run

CODEC_TARGETS = {
    "framing": Framing,
    **{f"link-{p}-{side}": (lambda p=p, side=side: LinkTarget(p, side))
       for p in ("shoe", "sensors") for side in ("host", "device")},
    **{f"catalog-{p}-{side}": (lambda p=p, side=side: CatalogTarget(p, side))
       for p in ("shoe", "sensors") for side in ("host", "device")},
    "alpha-responses": AlphaResponses,
    "alpha-packets": AlphaPackets,
}
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                       HealthCheck.data_too_large])


@pytest.mark.parametrize("name", CODEC_TARGETS)
@FUZZ
@given(r=st.randoms(use_true_random=False))
def test_every_decoder_survives_hostile_bytes(name, r):
    target = CODEC_TARGETS[name]()
    assert run(target, r, 6, check_every=0.5) == []


def test_the_generators_make_every_message_type_valid():
    r = random.Random(16)
    for catalog in PROTOCOLS.values():
        for code, cls in catalog.types().items():
            for _ in range(50):
                message = VALID[cls](r)
                receiver = "device" if cls.SENDER == "host" else "host"
                module = shoe if catalog is shoe.catalog else sp
                assert getattr(module, f"{receiver}_decode")(*catalog.encode(message)) == message, hex(code)


# --- the lab's finding: one Snapshot with a spot state of 2 killed the sensor driver ------------------

def bad_snapshot() -> tuple[int, bytes]:
    type_code, payload = sp.catalog.encode(sp.Snapshot.pack({(1, 0): (sp.CHIPS, 500)}, 2))
    wrong = bytearray(payload)
    wrong[2 + 5 * 3] = 2                        # position 1, spot 3: state 2
    return type_code, bytes(wrong)


def test_a_snapshot_spot_state_other_than_0_or_1_is_a_bad_message_when_decoded():
    with pytest.raises(MessageError, match="position 1 spot 3: spot state 2 is not 0 or 1"):
        sp.host_decode(*bad_snapshot())
    type_code, payload = sp.catalog.encode(sp.Snapshot.pack({}, 2))
    with pytest.raises(MessageError, match="3 positions but 2 rows"):
        sp.host_decode(type_code, bytes((3,)) + payload[1:])


def test_the_link_naks_it_with_reason_2_and_delivers_the_next_frame():
    link = Link(sp.host_decode)
    events, out = link.receive(encode_frame(7, *bad_snapshot()), 0.0)
    assert [type(e) for e in events] == [LinkFault] and "spot state 2" in events[0].reason
    assert FrameDecoder().feed(out) == [Frame(7, NAK, bytes((7, NAK_BAD_MESSAGE)))]
    good = sp.SpotReading(1, 0, sp.CHIPS, 500)
    events, _ = link.receive(encode_frame(8, *sp.catalog.encode(good)), 0.1)
    assert events == [Delivered(good)]


@pytest.mark.parametrize("payload, problem", [
    (bytes((1, 0, 2, 0, 0, 0, 0)), "spot state 2"),
    (bytes((0, 1, 1, 0, 0, 0, 0)), "position 0"),
    (bytes((1, 5, 1, 0, 0, 0, 0)), "spot 5"),
])
def test_spot_reading_fields_out_of_range(payload, problem):
    with pytest.raises(MessageError, match=problem):
        sp.host_decode(sp.SpotReading.TYPE, payload)


@pytest.mark.parametrize("message_type, payload, problem", [
    (shoe.Status.TYPE, bytes((0x10, 40, 1)), "status flags 0x10"),
    (shoe.Status.TYPE, bytes((1, 40, 3)), "deck 3 is not 1 or 2"),
    (shoe.Door.TYPE, bytes((2,)), "door 2 is not 0 or 1"),
    (shoe.HandDelivered.TYPE, bytes((0, 0)), "hand number 0"),
    (shoe.ShuffleComplete.TYPE, bytes((0, 52)), "deck 0"),
    (shoe.HelloReply.TYPE, bytes((1, 3, 0, 0)), "decks 3"),
])
def test_shoe_fields_out_of_range(message_type, payload, problem):
    with pytest.raises(MessageError, match=problem):
        shoe.host_decode(message_type, payload)


def test_trouble_codes_are_delivered_whatever_their_number():
    """An unknown jam is still a jam (the table holds); refusing it would hide the fault."""
    assert shoe.host_decode(shoe.Jam.TYPE, bytes((9,))).description == "jam code 9"
    assert sp.host_decode(sp.SensorFault.TYPE, bytes((2, 1, 9))).problem == "fault code 9"
