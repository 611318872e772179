"""The virtual clock's stamps: the journal's and the trail's text, made the quick way, is the text the
standard library makes (simulators/sim/clock.py ``iso``)."""

import random
from datetime import timedelta

from simulators.sim.clock import EPOCH, VirtualClock


def _by_the_library(now: float) -> str:
    return (EPOCH + timedelta(seconds=round(now, 3))).isoformat(timespec="milliseconds")


def test_stamps_are_the_librarys_text():
    rng = random.Random(7)
    clock = VirtualClock()
    # a campaign's times: from its start through a long seed's (a day and more), at any fraction,
    # in order (as a run asks) and out of it (a restart's clock asks again from an earlier second)
    times = [0.0, 0.0004, 0.0005, 0.0015, 0.9994, 0.9995, 0.9999, 1.0, 59.9996, 3599.9995, 86399.9996, 1e6 + 0.1235]
    times += sorted(rng.uniform(0, 200_000) for _ in range(5000)) + [rng.uniform(0, 200_000) for _ in range(5000)]
    times += [k / 1000 for k in range(0, 5000)] + [k / 1000 + 0.0005 for k in range(0, 5000)]
    for now in times:
        clock.now = now
        assert clock.iso() == _by_the_library(now), now
        assert clock.iso_z() == _by_the_library(now).replace("+00:00", "Z"), now


def test_a_stamp_is_asked_again_until_time_moves():
    clock = VirtualClock()
    clock.advance(12.3456)
    first = clock.iso()
    assert clock.iso() is first
    clock.advance(12.5)
    assert clock.iso() == "2030-01-01T08:00:12.500+00:00"
