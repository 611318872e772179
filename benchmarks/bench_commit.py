"""What a durable commit costs the committing thread's CPU, with the fsync and without it.

One journal event's statements as the engine's journal runs them (controller/store/journal.py:
BEGIN IMMEDIATE, PRAGMA data_version, a record's INSERT into a table with the journal's indexes,
the audit head's two-value upsert, COMMIT) on a WAL file, ``synchronous=FULL`` (as the table runs)
and ``NORMAL`` (no fsync at commit: a measurement only) alternately, and after each commit the same
fixed piece of Python. It prints the thread's CPU (``time.thread_time``) per event for each phase:
on a virtual machine the fsync costs more than its own system call, because the thread sleeps
through the disk's flush and whatever it runs next runs slower.

    .venv/bin/python benchmarks/bench_commit.py                 # a temporary folder under /tmp
    .venv/bin/python benchmarks/bench_commit.py --dir /data     # the disk the journal lives on
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import time
from pathlib import Path

PHASES = ("begin", "writes", "commit", "python after")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=400, help="events per mode and round of modes")
    parser.add_argument("--dir", type=Path, default=None, help="where the file is made (default: /tmp)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-commit-", dir=args.dir) as tmp:
        db = sqlite3.connect(Path(tmp) / "journal.sqlite", isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE records (seq INTEGER PRIMARY KEY, round_id INTEGER, at TEXT, kind TEXT, "
                   "data TEXT, digest TEXT, chain INTEGER)")
        db.execute("CREATE INDEX records_round ON records(round_id, seq)")
        db.execute("CREATE INDEX records_kind ON records(kind, seq)")
        db.execute("CREATE UNIQUE INDEX records_chain ON records(chain)")
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        data = json.dumps({"deck": 1, "count": 52, "missing": [], "duplicates": [], "ok": True})
        chain = 0
        print(f"{args.events} events each, CPU of the committing thread per event (us):\n")
        print("| synchronous | " + " | ".join(PHASES) + " |\n| --- |" + " --- |" * len(PHASES))
        for mode in ("FULL", "NORMAL", "FULL", "NORMAL"):
            db.execute(f"PRAGMA synchronous={mode}")
            spent = dict.fromkeys(PHASES, 0.0)
            for _ in range(args.events):
                chain += 1
                t0 = time.thread_time()
                db.execute("BEGIN IMMEDIATE")
                db.execute("PRAGMA data_version").fetchone()
                t1 = time.thread_time()
                db.execute("INSERT INTO records(round_id, at, kind, data, digest, chain) VALUES (?, ?, ?, ?, ?, ?)",
                           (chain // 25, "2026-11-26T00:00:00.000+00:00", f"kind{chain % 9}", data, "d" * 64, chain))
                db.execute("INSERT INTO meta(key, value) VALUES ('audit_head', ?), ('audit_head_mac', ?) "
                           "ON CONFLICT(key) DO UPDATE SET value = excluded.value", ("h" * 64, "commit:" + "m" * 64))
                t2 = time.thread_time()
                db.execute("COMMIT")
                t3 = time.thread_time()
                total = 0
                for i in range(2000):       # the same Python each time, after the thread's commit
                    total += i
                t4 = time.thread_time()
                for phase, took in zip(PHASES, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
                    spent[phase] += took
            print(f"| {mode} | " + " | ".join(f"{spent[p] / args.events * 1e6:.0f}" for p in PHASES) + " |")
        db.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
