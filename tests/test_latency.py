"""controller/latency.py: percentiles from fixed buckets, read within 10 % of the true value."""

from __future__ import annotations

import random

from controller.latency import BUCKETS, Latencies


def test_empty_figures_are_zero():
    assert Latencies().summary() == {"n": 0, "p50_ms": 0.0, "p99_ms": 0.0, "max_ms": 0.0}


def test_percentiles_are_within_ten_per_cent_of_the_sorted_values():
    rng = random.Random(7)
    values = [rng.lognormvariate(-7, 1.2) for _ in range(20_000)]     # around a millisecond
    lat = Latencies()
    for v in values:
        lat.add(v)
    ordered = sorted(values)
    for p in (50, 90, 99):
        exact = ordered[-(-len(ordered) * p // 100) - 1]
        assert exact <= lat.percentile(p) <= exact * 1.11, p
    assert lat.n == 20_000 and lat.worst == max(values)


def test_extremes_land_in_the_end_buckets_and_the_maximum_is_exact():
    lat = Latencies()
    lat.add(0.0)
    lat.add(1e9)
    assert lat.counts[0] == 1 and lat.counts[BUCKETS - 1] == 1
    assert lat.percentile(100) == 1e9 and lat.summary()["max_ms"] == 1e12
