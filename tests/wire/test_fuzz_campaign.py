"""Hostile device bytes, the campaign's run in the suite (issue 30): every decoder and every real
driver's byte handler (benchmarks/fuzz.py's targets, tests/wire/fuzzing.py's rules) fed 20,000
seeded inputs each, none of which may break a rule or raise. Left out of the default run (marker
``campaign``; scripts/run-campaigns); the default suite's sample is tests/wire/test_fuzz.py (a few
hundred inputs per decoder) and the drivers' own hostile-bytes tests. The million inputs per target
of the recorded run stay with benchmarks/fuzz.py (benchmarks/README.md)."""

from __future__ import annotations

import random

import pytest

from tests.drivers.fuzz_drivers import driver_targets
from tests.wire.fuzz_codecs import codec_targets
from tests.wire.fuzzing import run

INPUTS, SEED = 20_000, 30
NAMES = [target.name for target in (*codec_targets(), *driver_targets())]


@pytest.mark.campaign
@pytest.mark.parametrize("name", NAMES)
def test_every_decoder_and_driver_survives_twenty_thousand_hostile_inputs(name):
    target = next(t for t in (*codec_targets(), *driver_targets()) if t.name == name)
    problems = run(target, random.Random(f"{SEED}:{name}"), INPUTS, keep=5)
    assert problems == []
