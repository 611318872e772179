"""The forwarder's reconnect pauses: exponential with full jitter under a cap (issue 32: after a
failover 500 tables must not come back in lockstep). A seeded random source makes every pause known."""

from __future__ import annotations

import random
import time

import pytest

from controller.floor.backoff import CAP, FIRST, Backoff
from controller.floor.forwarder import Forwarder
from controller.floor.settings import FloorSettings
from controller.store.journal import Journal


def test_each_pause_is_drawn_under_a_doubling_ceiling_up_to_the_cap_and_a_connect_resets_it():
    backoff = Backoff(rng=random.Random(7))
    expected = random.Random(7)
    ceilings = [min(CAP, FIRST * 2 ** n) for n in range(12)]
    assert ceilings[:4] == [0.2, 0.4, 0.8, 1.6] and ceilings[-1] == CAP == 10.0
    pauses = [backoff.next() for _ in ceilings]
    assert pauses == [expected.uniform(0, c) for c in ceilings]
    assert all(0 <= p <= c for p, c in zip(pauses, ceilings, strict=True))
    backoff.reset()
    assert backoff.ceiling() == FIRST and backoff.next() == expected.uniform(0, FIRST)


def test_a_thousand_failures_never_wait_past_the_cap():
    backoff = Backoff(rng=random.Random(1))
    assert max(backoff.next() for _ in range(1000)) <= CAP


def test_five_hundred_tables_failing_at_once_come_back_spread_out_not_in_lockstep():
    """The third attempt after a failover: a fixed doubling sends all 500 at 0.2+0.4+0.8 s; full
    jitter spreads them over 1.4 s, no 100 ms holding more than a sixth of them (seeded: 70)."""
    at = []
    for table in range(500):
        backoff = Backoff(rng=random.Random(table))
        at.append(sum(backoff.next() for _ in range(3)))
    busiest = max(sum(1 for t in at if start / 10 <= t < start / 10 + 0.1) for start in range(0, 15))
    assert busiest <= 500 // 6, busiest


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="0 < first"):
        Backoff(first=0)
    with pytest.raises(ValueError, match="<= cap"):
        Backoff(first=2, cap=1)


def test_the_forwarder_waits_the_drawn_pauses_while_the_floor_is_unreachable(tmp_path):
    journal = Journal(tmp_path / "journal.sqlite")
    settings = FloorSettings(dsn="host=127.0.0.1 port=9 dbname=floor", table_id="T-B", user="table_t_b",
                             password="x", connect_timeout=1)
    forwarder = Forwarder(settings, journal.path, journal.key, backoff=Backoff(rng=random.Random(3))).start()
    try:
        assert forwarder.wait_until(lambda: forwarder.link_failures >= 4, timeout=20)
        time.sleep(0.05)
    finally:
        forwarder.stop()
        journal.close()
    expected = random.Random(3)
    drawn = [expected.uniform(0, min(CAP, FIRST * 2 ** n)) for n in range(len(forwarder.pauses))]
    assert len(forwarder.pauses) >= 4 and forwarder.pauses == drawn
