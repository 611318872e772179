"""The floor's figures: ingest with 50 tables forwarding at once, a cut-off table's catch-up, and
the time from a jackpot claim to every table of a 20-table group knowing the level is pending.

Run with ``benchmarks/run floor`` (or ``python benchmarks/bench_floor.py [--tables 50]
[--records 2000] [--processes 4] [--catch-up-rounds 1000] [--group 20]``).

Ingest: A throwaway PostgreSQL cluster
(controller/floor/cluster.py, fsync and synchronous_commit on) with the floor's schema; each
table enrolled with its own role and floor key and given a journal of ``--records`` facts (a
realistic mix: state changes, wagers, settlements), written beforehand. Then every table's
real forwarder (controller/floor/forwarder.py: its own SQLite reader, its own PostgreSQL
connection, 500 records per transaction, each checked on arrival by ``floor.check_record``:
MAC, chain link, resend) starts at once, spread over ``--processes`` processes so that the
client's Python is not the bottleneck, and the clock stops when the floor has confirmed every
record of every table. The figure is records ingested per second, all tables together; the
target is 4,500/s (10x a floor of 1,000 tables at a round a minute).

Catch-up: one table whose journal holds ``--catch-up-rounds`` rounds the floor has not seen
(27 facts a round, as the simulated table journals them), its forwarder started against the
floor: the seconds until the floor confirmed the last one.

Jackpot lock: a group of ``--group`` tables, each with its own connection LISTENing on
``floor_jackpot`` as a table's would; one table claims a MEGA hit (``floor.claim_jackpot``):
the time from sending the claim to the last table receiving the lock (the median of 20 claims,
each on a fresh generation; the target is under 1 s, regulators allow 30 s for the display).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg  # noqa: E402

from controller.floor.cluster import Cluster  # noqa: E402
from controller.floor.forwarder import Forwarder  # noqa: E402
from controller.floor.jackpot import CHANNEL, ack_lock, claim, create_group, post_values  # noqa: E402
from controller.floor.link import floor_key  # noqa: E402
from controller.floor.schema import apply_schema, enroll  # noqa: E402
from controller.floor.settings import FloorSettings  # noqa: E402
from controller.store.journal import Journal  # noqa: E402

SETTLEMENT = {"announcement": "Dealer plays with Three Nines", "dealer": "9s 9c 9h", "dealer_hand": "Three Nines",
              "dealer_qualifies": True, "jackpot_hits": [], "preset": "sheet-004",
              "seats": [{"cap_reduction": 0, "cards": "3c 6c 3s", "hand": "Pair of Threes, Six kicker", "net": -2000,
                         "play": True, "results": {"ante": -1000, "ante_bonus": 0, "pair_plus": 0, "play": -1000,
                                                   "six_card_bonus": 0, "super6": 0},
                         "seat": s, "six_card": None, "super6_hand": None,
                         "wagers": {"ante": 1000, "pair_plus": 0, "six_card_bonus": 0, "super6": 0}}
                        for s in range(1, 7)]}


def fill(journal: Journal, records: int) -> None:
    """``records`` facts in one transaction: rounds of state, wagers, hands and a settlement."""
    with journal.event():
        rid, n = 0, 0
        while n < records:
            if n % 10 == 0:
                rid = journal.open_round("sheet-004")
            k = n % 10
            if k == 9:
                journal.append(rid, "settlement", dict(SETTLEMENT, id=rid))
            elif k in (2, 3, 4, 5):
                journal.append(rid, "hand", {"position": k, "cards": "As Kd 7c"})
            elif k == 1:
                journal.append(rid, "wagers", {"positions": {str(p): {"ante": 1000, "pair_plus": 500}
                                                             for p in range(1, 7)}})
            else:
                journal.append(rid, "state", {"state": "betting"})
            n += 1


def worker(jobs: list[tuple[FloorSettings, str, bytes, int]], start_at: float, out: mp.Queue) -> None:
    time.sleep(max(0.0, start_at - time.time()))        # every process starts its forwarders together
    forwarders = [Forwarder(s, path, key) for s, path, key, _ in jobs]
    for f in forwarders:
        f.start()
    ok = all(f.wait_confirmed(n, 600) for f, (_, _, _, n) in zip(forwarders, jobs, strict=True))
    done = time.time()
    for f in forwarders:
        f.stop()
    out.put((ok, done, [f.status() for f in forwarders]))


def enrolled(admin: psycopg.Connection, cluster: Cluster, work: Path, table_id: str,
             records: int) -> tuple[FloorSettings, Journal]:
    journal = Journal(work / table_id / "journal.sqlite")
    if records:
        fill(journal, records)
    password = secrets.token_urlsafe(12)
    role = enroll(admin, table_id, password, floor_key(journal.key, table_id))
    dsn = f"host={cluster.host} port={cluster.port} dbname=floor"
    return FloorSettings(dsn=dsn, table_id=table_id, user=role, password=password, poll=0.05), journal


def catch_up_seconds(admin: psycopg.Connection, cluster: Cluster, work: Path, rounds: int) -> dict:
    settings, journal = enrolled(admin, cluster, work, "CATCHUP", rounds * 27)
    end = journal.chain_head[0]
    started = time.perf_counter()
    fwd = Forwarder(settings, journal.path, journal.key).start()
    ok = fwd.wait_confirmed(end, 600)
    seconds = time.perf_counter() - started
    fwd.stop()
    journal.close()
    return {"rounds": rounds, "records": end, "confirmed": ok, "seconds": round(seconds, 2)}


def lock_seconds(admin: psycopg.Connection, cluster: Cluster, work: Path, size: int, claims: int = 20) -> dict:
    tables = [enrolled(admin, cluster, work, f"G{i + 1}", 0) for i in range(size)]
    values = {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000}
    create_group(admin, "BENCH", [s.table_id for s, _ in tables], values, by="bench", reason="opening")
    conns = [psycopg.connect(s.dsn, user=s.user, password=s.password, autocommit=True) for s, _ in tables]
    for c in conns:
        c.execute(f"LISTEN {CHANNEL}")
    times = []
    now = admin.execute("SELECT now()").fetchone()[0]     # type: ignore[index]
    for n in range(claims):
        for c in conns:                                     # nothing stale in the queues
            list(c.notifies(timeout=0.01))
        started = time.perf_counter()
        claim(conns[0], n + 1, "mega", 1, 1000, 100, n + 1)
        for c in conns:
            got = list(c.notifies(timeout=10, stop_after=1))
            assert got and '"pending"' in got[0].payload, f"no lock notice: {got}"
        times.append(time.perf_counter() - started)
        for c in conns:
            ack_lock(c, "mega", n + 1)
        post_values(admin, "BENCH", values, by="bench", reason="reseed", now=now)
    for c in conns:
        c.close()
    for _, journal in tables:
        journal.close()
    times.sort()
    return {"tables": size, "claims": claims, "median_seconds": round(times[len(times) // 2], 4),
            "worst_seconds": round(times[-1], 4)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--records", type=int, default=2000, help="records per table")
    ap.add_argument("--processes", type=int, default=min(4, os.cpu_count() or 1))
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--catch-up-rounds", type=int, default=1000)
    ap.add_argument("--group", type=int, default=20)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-floor-"))
    with Cluster(max_connections=args.tables + 20) as cluster:
        with psycopg.connect(cluster.dsn(), autocommit=True) as admin:
            apply_schema(admin)
            dsn = f"host={cluster.host} port={cluster.port} dbname=floor"
            jobs = []
            for i in range(args.tables):
                table_id = f"B{i + 1}"
                journal = Journal(work / table_id / "journal.sqlite")
                fill(journal, args.records)
                password = secrets.token_urlsafe(12)
                role = enroll(admin, table_id, password, floor_key(journal.key, table_id))
                settings = FloorSettings(dsn=dsn, table_id=table_id, user=role, password=password,
                                         poll=0.05, batch=args.batch)
                jobs.append((settings, str(journal.path), journal.key, args.records))
                journal.close()
            fsync = admin.execute("SHOW fsync").fetchone()
            sync = admin.execute("SHOW synchronous_commit").fetchone()
        ctx = mp.get_context("spawn")
        out: mp.Queue = ctx.Queue()
        start_at = time.time() + 3.0                   # after every process has imported and is waiting
        procs = [ctx.Process(target=worker, args=(jobs[p::args.processes], start_at, out))
                 for p in range(args.processes)]
        for p in procs:
            p.start()
        results = [out.get(timeout=900) for _ in procs]
        for p in procs:
            p.join()
        elapsed = max(done for _, done, _ in results) - start_at
        with psycopg.connect(cluster.dsn(), autocommit=True) as admin:
            held = admin.execute("SELECT count(*) FROM floor.records").fetchone()
            catch_up = catch_up_seconds(admin, cluster, work, args.catch_up_rounds)
            lock = lock_seconds(admin, cluster, work, args.group)
    total = args.tables * args.records
    statuses = [s for _, _, ss in results for s in ss]
    print(json.dumps({
        "tables": args.tables, "records_per_table": args.records, "processes": args.processes,
        "batch": args.batch, "fsync": fsync[0] if fsync else None,
        "synchronous_commit": sync[0] if sync else None, "records": total,
        "confirmed_on_floor": held[0] if held else 0, "all_confirmed": all(ok for ok, _, _ in results),
        "duplicates": sum(s["duplicates"] for s in statuses),
        "seconds": round(elapsed, 2), "records_per_second": round(total / elapsed),
        "catch_up": catch_up, "jackpot_lock": lock}))
    import shutil
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
