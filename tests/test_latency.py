"""controller/latency.py: percentiles from fixed buckets, read within 10 % of the true value."""

from __future__ import annotations

import random

from controller.latency import BUCKETS, Latencies


def test_empty_figures_are_zero():
    assert Latencies().summary() == {"n": 0, "p50_ms": 0.0, "p99_ms": 0.0, "max_ms": 0.0, "buckets": []}


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


def test_the_summary_carries_the_histogram_whole():
    """``buckets``: every value counted once, under the upper edge of its bucket, edges rising; the
    last bucket's edge is the maximum (so a reader merging lives keeps the true worst)."""
    rng = random.Random(3)
    values = [rng.lognormvariate(-7, 1.5) for _ in range(5_000)] + [500.0]
    lat = Latencies()
    for v in values:
        lat.add(v)
    buckets = lat.summary()["buckets"]
    assert sum(count for _, count in buckets) == len(values)
    edges = [edge for edge, _ in buckets]
    assert edges == sorted(edges) and len(set(edges)) == len(edges)
    assert edges[-1] == 500_000.0
    under_1ms = sum(1 for v in values if v <= 0.001)
    counted = sum(count for edge, count in buckets if edge <= 1.0)
    assert abs(counted - under_1ms) <= sum(count for edge, count in buckets if 0.9 < edge <= 1.1)
