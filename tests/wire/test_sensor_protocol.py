"""The Snapshot's layout as sensors.md gives it byte by byte (issue 17): the bytes of version 1 kept,
read as (state, value) pairs, every byte accounted for."""

import pytest

from drivers.wire import sensor_protocol as sp
from drivers.wire.link_words import MessageError


def test_a_snapshot_is_positions_the_row_count_then_five_state_value_pairs_a_position():
    snap = sp.Snapshot.pack({(1, 0): (sp.CHIPS, 500), (2, 2): (sp.CHIPS, sp.UNKNOWN_VALUE)}, 2)
    assert snap.spots == (((1, 500), (0, 0), (0, 0), (0, 0), (0, 0)),
                          ((0, 0), (0, 0), (1, 0xFFFFFFFF), (0, 0), (0, 0)))
    type_code, payload = sp.catalog.encode(snap)
    by_hand = bytes((2, 2)) + (bytes((1, 0, 0, 0x01, 0xF4)) + bytes(20)
                               + bytes(10) + bytes((1, 0xFF, 0xFF, 0xFF, 0xFF)) + bytes(10))
    assert (type_code, payload) == (0x92, by_hand) and len(payload) == 2 + 25 * 2
    assert sp.host_decode(type_code, payload) == snap


@pytest.mark.parametrize(("payload", "why"), [
    (bytes((1, 2)) + bytes(50), "1 positions but 2 rows of spots"),
    (bytes((2, 2)) + bytes(49), "2 rows at byte 1 run past the payload"),
    (bytes((1, 1)) + bytes(26), "1 unexpected bytes at the end"),
    (bytes((1,)), "payload ends before the row count"),
    (bytes((1, 1, 3)) + bytes(24), "position 1 spot 0: spot state 3 is not 0 or 1"),
])
def test_a_snapshot_that_is_not_exactly_that_is_refused_whole(payload, why):
    with pytest.raises(MessageError, match=why):
        sp.host_decode(0x92, payload)
