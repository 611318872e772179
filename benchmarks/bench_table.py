"""The whole table at full speed, and the same run of an earlier release beside it.

Runs ``table-controller run --autoplay --rounds N --seed S`` (real drivers on
ptys, simulated devices, scripted players and dealer, six positions, every
side bet, the journal durable) and reads, for each program measured:

- rounds per second in the steady state (from the journal's close times,
  rounds 100 to N, so start-up is not counted);
- audit-trail bytes per round (the trail's size over the rounds);
- resident memory of the process, sampled every second, at round 1,000 and at
  the end (growth in per cent), and its peak;
- the latency figures the run's summary reports (this release and later).

``--compare REV`` also runs git revision REV (checked out in a temporary
worktree that uses this checkout's .venv) in the same way, one after the other,
so both are measured on the same machine in one run.

    .venv/bin/python benchmarks/bench_table.py --rounds 2000 --compare 84c6d12 --apart

With ``--apart`` the memory figures are the controller's process alone (the simulated devices and
players are in their own); in one process they are both.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from simulators.soak import rounds_closed, rss_kb  # noqa: E402  (the same readings as the soak's)


def measure(root: Path, rounds: int, seed: int, extra: tuple[str, ...] = ()) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-table-") as tmp:
        data = Path(tmp) / "data"
        proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--autoplay", "--rounds", str(rounds),
                                 "--seed", str(seed), "--data-dir", str(data), "--port", "0", "--log-format", "json",
                                 *extra],
                                cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        samples: list[tuple[int, int]] = []          # (rounds closed, RSS KB)
        while proc.poll() is None:
            samples.append((rounds_closed(data / "journal.sqlite"), rss_kb(proc.pid)))
            time.sleep(1.0)
        out = proc.stdout.read() if proc.stdout else ""
        summary = json.loads(out.strip().splitlines()[-1])
        times = _close_times(data / "journal.sqlite")
        # as written: rotated files are compressed (audit.jsonl.N.gz), so their bytes are read back
        audit = sum(len(gzip.decompress(p.read_bytes())) if p.suffix == ".gz" else p.stat().st_size
                    for p in (data / "audit").iterdir())
    start = min(100, len(times) - 2)
    steady = (len(times) - 1 - start) / (times[-1] - times[start]).total_seconds()
    rss = [kb for n, kb in samples if kb]
    at_1000 = next((kb for n, kb in samples if n >= 1000 and kb), None)
    return {"root": str(root), "rounds": summary["rounds_played"] + summary["rounds_voided"],
            "rounds_per_second": round(steady, 1), "audit_bytes_per_round": round(audit / len(times)),
            "rss_kb_at_1000": at_1000, "rss_kb_end": rss[-1] if rss else None, "rss_kb_max": max(rss or [0]),
            "rss_growth_from_1000_pct": round((rss[-1] - at_1000) / at_1000 * 100, 1) if at_1000 and rss else None,
            "latency": summary.get("latency")}


def _close_times(journal: Path) -> list[datetime]:
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT closed_at FROM rounds WHERE closed_at IS NOT NULL ORDER BY id").fetchall()
    finally:
        db.close()
    return [datetime.fromisoformat(r[0]) for r in rows]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--compare", metavar="REV", help="also measure this git revision, in the same run")
    parser.add_argument("--apart", action="store_true",
                        help="also measure this tree with the simulated devices, players and dealer in a process "
                        "of their own (--sim-apart): the controller's process alone, as on a table PC")
    args = parser.parse_args()
    results = {"this": measure(ROOT, args.rounds, args.seed)}
    if args.apart:
        results["this, devices apart"] = measure(ROOT, args.rounds, args.seed, ("--sim-apart",))
    if args.compare:
        with tempfile.TemporaryDirectory(prefix="bench-rev-") as tmp:
            tree = Path(tmp) / "tree"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), args.compare],
                           check=True, capture_output=True)
            try:
                os.symlink(ROOT / ".venv", tree / ".venv")
                results[args.compare] = measure(tree, args.rounds, args.seed)
            finally:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                               capture_output=True)
    print(json.dumps(results, indent=1))
    keys = ("rounds_per_second", "audit_bytes_per_round", "rss_kb_at_1000", "rss_kb_end", "rss_growth_from_1000_pct")
    print("\n| figure | " + " | ".join(results) + " |\n| --- |" + " --- |" * len(results))
    for key in keys:
        print(f"| {key} | " + " | ".join(str(r[key]) for r in results.values()) + " |")
    print("| frame to snapshot p50 / p99 / max ms | " + " | ".join(
        "{p50_ms} / {p99_ms} / {max_ms}".format(**r["latency"]["frame_to_snapshot"]) if r.get("latency") else "-"
        for r in results.values()) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
