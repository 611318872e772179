"""Hostile device bytes, the long campaign (issue 16): random and mutated inputs to every decoder
and to each real driver's byte handler, outcomes counted per target, every exception reported
with its input's hex.

    .venv/bin/python benchmarks/fuzz.py --frames 1000000 --seed 1            # the recorded run
    .venv/bin/python benchmarks/fuzz.py --frames 20000 --only link --jobs 2   # some targets, two processes

``--frames`` inputs go to each target; an input is one to three frames (valid messages of every
type, messages with a field out of range or bytes mutated under a good CRC, link frames, frames
mutated on the wire), garbage, or for the sign's decoders its packets and answers
(tests/wire/fuzzing.py; the drivers: tests/drivers/hostile.py). After one input in four a good
one follows and must be delivered. The same seed gives the same inputs, whatever ``--jobs`` or
``--only`` says: each target draws from its own stream. Exit status 1 when any input broke a rule.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.drivers.fuzz_drivers import driver_targets  # noqa: E402
from tests.wire.fuzz_codecs import codec_targets  # noqa: E402
from tests.wire.fuzzing import Target, run  # noqa: E402

KEEP = 20                   # problems listed per target (all are counted)


def targets() -> list[Target]:
    return [*codec_targets(), *driver_targets()]


def campaign(index: int, frames: int, seed: int) -> tuple[str, float, Counter[str], list[str]]:
    target = targets()[index]
    r = random.Random(f"{seed}:{target.name}")
    counts: Counter[str] = Counter()
    start = time.perf_counter()
    problems = run(target, r, frames, counts, keep=KEEP)
    return target.name, time.perf_counter() - start, counts, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=100_000, help="inputs per target (default 100000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", action="append", default=[], metavar="TEXT",
                        help="targets whose name contains TEXT (repeatable; default all)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    opts = parser.parse_args(argv)
    chosen = [i for i, t in enumerate(targets()) if not opts.only or any(w in t.name for w in opts.only)]
    if not chosen:
        parser.error(f"no target matches {opts.only}; targets: {', '.join(t.name for t in targets())}")
    print(f"fuzz: {opts.frames:,} inputs to each of {len(chosen)} targets, seed {opts.seed}, {opts.jobs} job(s)",
          flush=True)
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=opts.jobs) as pool:
        futures = [pool.submit(campaign, i, opts.frames, opts.seed) for i in chosen]
        rows = []
        for future in futures:
            name, seconds, counts, problems = future.result()
            rows.append((name, seconds, counts, problems))
            broken = sum(n for k, n in counts.items() if k.startswith(("BROKEN", "EXCEPTION")))
            print(f"\n{name}: {sum(counts.values()):,} inputs in {seconds:.0f} s "
                  f"({sum(counts.values()) / seconds:,.0f}/s), {broken} broke a rule", flush=True)
            for outcome, n in counts.most_common():
                print(f"  {n:>9,}  {outcome}")
            for problem in problems:
                print(f"  PROBLEM {problem}")
    print(f"\nwall time {time.perf_counter() - start:.0f} s\n")
    print("| target | inputs | time | outcomes | broke a rule |\n| --- | --- | --- | --- | --- |")
    total = 0
    for name, seconds, counts, _ in rows:
        broken = sum(n for k, n in counts.items() if k.startswith(("BROKEN", "EXCEPTION")))
        total += broken
        outcomes = "; ".join(f"{k} {n:,}" for k, n in counts.most_common())
        print(f"| {name} | {sum(counts.values()):,} | {seconds:.0f} s | {outcomes} | {broken} |")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
