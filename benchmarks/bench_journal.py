"""Journal cost per round, and recovery time after a kill with a journal of 100,000 rounds.

1. Journal cost: the records of real rounds (taken from an autoplay run) appended again,
   each in its own fsynced transaction as the table does: ms of journaling per round.
2. Recovery: a journal of 100,000 rounds (about 1.8 million chained records, written in bulk),
   the last one left open in "decisions" as a kill would leave it; then the time from a cold
   start of ``TableRun`` (journal open, start-up self-check, replay of the open round,
   simulated devices' handshake) until the round is back in its state, best of 5.

Run: benchmarks/run journal   (writes a scratch directory under benchmarks/.scratch)
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.app.run import RunOptions, TableRun  # noqa: E402
from controller.store.chain import GENESIS, keyed_digest  # noqa: E402
from controller.store.journal import Journal, now_iso  # noqa: E402

SCRATCH = Path(__file__).resolve().parent / ".scratch"
ROUNDS = 100_000


def sample_rounds(directory: Path, rounds: int = 50) -> list[list[tuple[str, dict]]]:
    run = TableRun(RunOptions(autoplay=True, rounds=rounds, seed=3, data_dir=str(directory),
                              log_format="json"))
    run.start()
    run.dealer.done.wait(120)
    sample = [[(r.kind, r.data) for r in run.journal.records(rid)] for rid in run.journal.round_ids(rounds)]
    run.stop()
    return sample


def journal_cost(sample, directory: Path) -> tuple[float, float, int]:
    """Each round's records written as the engine writes them: one transaction per event, an event
    approximated here as the records up to and including each ``state`` record."""
    journal = Journal(directory / "cost.sqlite")
    t0 = time.perf_counter()
    records = 0
    for rnd in sample:
        event = journal.event()
        event.__enter__()
        rid = journal.open_round("sheet-004")
        for kind, data in rnd:
            journal.append(rid, kind, data)
            records += 1
            if kind == "state":
                event.__exit__(None, None, None)
                event = journal.event()
                event.__enter__()
        event.__exit__(None, None, None)
    elapsed = time.perf_counter() - t0
    journal.close()
    size = (directory / "cost.sqlite").stat().st_size
    return elapsed / len(sample) * 1000, records / len(sample), size // len(sample)


def build_big_journal(sample, path: Path) -> int:
    journal = Journal(path)
    db = journal.db
    previous = GENESIS
    at = now_iso()
    count = 0
    key = journal.key
    db.execute("BEGIN")
    for n in range(1, ROUNDS + 1):
        rnd = sample[(n - 1) % len(sample)]
        last = n == ROUNDS
        db.execute("INSERT INTO rounds(id, opened_at, closed_at, status, preset) VALUES (?, ?, ?, ?, ?)",
                   (n, at, None if last else at, "open" if last else "complete", "sheet-004"))
        kinds = rnd if not last else [r for r in rnd[:next(i for i, (k, d) in enumerate(rnd)
                                                         if k == "state" and d["state"] == "decisions") + 1]]
        for kind, data in kinds:
            text = json.dumps(data, sort_keys=True, separators=(",", ":"))
            count += 1
            previous = keyed_digest(key, previous, count, "records", n, at, kind, text)
            db.execute("INSERT INTO records(round_id, at, kind, data, digest, chain) VALUES (?, ?, ?, ?, ?, ?)",
                       (n, at, kind, text, previous, count))
    db.execute("COMMIT")
    journal.close()
    journal = Journal(path)
    journal.check_at_start()                 # the last clean run verified the chain to here
    journal.keep_audit_head(GENESIS, "commit")   # under the key, as each commit keeps it (no trail yet)
    journal.close()
    return count


def recovery_time(directory: Path) -> float:
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        run = TableRun(RunOptions(data_dir=str(directory), seed=3, log_format="json"))
        run.sim.players.paused = True
        run.start()
        while run.engine.snapshot["state"] != "decisions":
            run.engine.wait_snapshot(run.engine.snapshot["version"], 0.05)
            if time.perf_counter() - t0 > 30:
                raise SystemExit("recovery did not reach decisions in 30 s")
        best = min(best, time.perf_counter() - t0)
        run.stop()
    return best


def main() -> None:
    shutil.rmtree(SCRATCH, ignore_errors=True)
    SCRATCH.mkdir(parents=True)
    sample = sample_rounds(SCRATCH / "sample")
    ms, per_round, size = journal_cost(sample, SCRATCH)
    print(f"journal cost per round: {ms:.2f} ms ({per_round:.1f} records, each its own fsynced "
          f"transaction; {size:,} bytes per round on disk)")
    big = SCRATCH / "big"
    big.mkdir()
    t0 = time.perf_counter()
    records = build_big_journal(sample, big / "journal.sqlite")
    print(f"built a journal of {ROUNDS:,} rounds, {records:,} records, "
          f"{(big / 'journal.sqlite').stat().st_size / 1e6:.0f} MB in {time.perf_counter() - t0:.0f} s")
    print(f"recovery to the open round's state after a restart (best of 5): {recovery_time(big):.3f} s")
    shutil.rmtree(SCRATCH, ignore_errors=True)


if __name__ == "__main__":
    main()
