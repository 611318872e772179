"""A floor of 500 tables under load: ingest records/s, and the pit page's answer time meanwhile.

Run with ``python benchmarks/bench_floor_load.py [--tables 500] [--records 120] [--batch 5]
[--processes 4] [--standby] [--rate R]`` (or ``benchmarks/run floor_load``).

Not 500 controllers: the forwarding of 500 tables. Each table is enrolled on a throwaway
PostgreSQL cluster (controller/floor/cluster.py; fsync and synchronous_commit on; with
``--standby`` a synchronous standby too) with its own role, password and floor key, and given a
real journal of ``--records`` facts (benchmarks/bench_floor.py's mix: state, wagers, hands, a
settlement), so every row is a real signed record: its chain digest under the table's journal
key, its MAC under its floor key (controller/floor/link.py ``record_row``). Then every table
sends its records at once, as its own role on its own connection, in transactions of
``--batch`` rows (a live forwarder polling every 0.5 s sends a few facts at a time), through the
forwarder's own statement (``insert_batch``: ``floor.check_record`` checks MAC, chain and resend
on each row; the ingest's trigger keeps ``floor.table_status``; the pit is notified). The tables
are spread over ``--processes`` processes, a thread per table, so the client's Python is not
the bottleneck. Ingest: records confirmed per second, all tables together, from the common
start to the last commit. Target: 3,300/s, 10x what 500 tables need at a round a minute.

With ``--rate R`` the tables are paced to R records/s all together (each sends a batch every
``batch x tables / R`` seconds, starting at random points of the first interval) instead of as fast
as the floor takes them: the pit's answer time at a given load, rather than under a floor saturated
by 500 backends on the same cores.

Meanwhile the pit's page runs in a process of its own (controller/floor/pit_page.py, LISTENing and re-reading the
floor's view at each notice, as in the pit) and this process asks it every 50 ms:
``GET /api/floor`` (what a pit's screen asks) timed to the last byte, and, on a connection of
its own, ``floor_view`` (the read the page makes at each notice) timed too. Target: p99 under
200 ms.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import secrets
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg  # noqa: E402

from benchmarks.bench_floor import fill  # noqa: E402
from controller.floor.cluster import Cluster  # noqa: E402
from controller.floor.link import floor_key, insert_batch, record_row  # noqa: E402
from controller.floor.pit import floor_view  # noqa: E402
from controller.floor.pit_page import PitPage  # noqa: E402
from controller.floor.schema import apply_schema, enroll  # noqa: E402
from controller.store.journal import Journal  # noqa: E402
from controller.store.outbox import facts_after  # noqa: E402
from controller.store.pins import PinStore  # noqa: E402

Job = tuple[str, str, str, str, str, bytes]      # dsn, table id, role, password, journal path, journal key


def send_all(conn: psycopg.Connection, rows: list[tuple], batch: int, out: list[int],
             every: float = 0.0, phase: float = 0.0) -> None:
    """This table's rows, ``batch`` at a time; with ``every`` (seconds) one batch each ``every``
    seconds from ``phase`` on, as a live forwarder sends what its table journals."""
    start = time.monotonic() + phase
    for n, i in enumerate(range(0, len(rows), batch)):
        if every:
            time.sleep(max(0.0, start + n * every - time.monotonic()))
        part = rows[i:i + batch]
        with conn.cursor() as cur:          # autocommit: the statement is the transaction, as the forwarder sends it
            cur.execute(insert_batch(len(part)), [v for row in part for v in row])
        out.append(len(part))


def worker(jobs: list[Job], batch: int, start_at: float, out: mp.Queue, every: float = 0.0) -> None:
    """This process's tables: their signed rows made from their journals, a connection each as its
    role, then at ``start_at`` every table sends at once, a thread each."""
    tables = []
    for dsn, table_id, role, password, path, key in jobs:
        journal = Journal.read_only(path, keyed=False)
        try:
            rows = [record_row(floor_key(key, table_id), table_id, f) for f in facts_after(journal, 0, 10**9)]
        finally:
            journal.close()
        tables.append((psycopg.connect(dsn, user=role, password=password, autocommit=True), rows))
    sent: list[int] = []
    phases = random.Random(start_at)         # paced tables start spread over one interval, not in lockstep
    threads = [threading.Thread(target=send_all, args=(conn, rows, batch, sent, every, phases.uniform(0, every)))
               for conn, rows in tables]
    time.sleep(max(0.0, start_at - time.time()))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done = time.time()
    for conn, _ in tables:
        conn.close()
    out.put((sum(sent), len(sent), done))


def serve_pit(dsn: str, pins: str, urls: mp.Queue, stop: Any) -> None:
    """The pit's page in a process of its own, as ``table-floor pit`` runs beside the floor."""
    page = PitPage(dsn, PinStore(Path(pins)), port=0)
    urls.put(page.start())
    stop.wait()
    page.stop()


def watch_pit(url: str, admin_dsn: str, stop: threading.Event) -> dict[str, list[float]]:
    """Every 50 ms until ``stop``: the page's answer (GET /api/floor) and the view's read, in ms."""
    answers: list[float] = []
    reads: list[float] = []
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        while not stop.is_set():
            started = time.perf_counter()
            with urllib.request.urlopen(url + "api/floor", timeout=10) as answer:
                answer.read()
            answers.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            floor_view(conn)
            reads.append((time.perf_counter() - started) * 1000)
            stop.wait(0.05)
    return {"answer": answers, "read": reads}


def percentiles(ms: list[float]) -> dict[str, float]:
    ms = sorted(ms)
    if not ms:
        return {}
    return {"samples": len(ms), "p50_ms": round(ms[len(ms) // 2], 1),
            "p99_ms": round(ms[min(len(ms) - 1, int(len(ms) * 0.99))], 1), "max_ms": round(ms[-1], 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=500)
    ap.add_argument("--records", type=int, default=120, help="records per table")
    ap.add_argument("--batch", type=int, default=5, help="rows per transaction")
    ap.add_argument("--processes", type=int, default=min(4, os.cpu_count() or 1))
    ap.add_argument("--standby", action="store_true", help="a synchronous standby beside the floor")
    ap.add_argument("--rate", type=float, default=0.0,
                    help="records/s of all tables together, paced (default: as fast as the floor takes them)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-floor-load-"))
    with Cluster(max_connections=args.tables + 30) as cluster:
        standby = cluster.add_standby() if args.standby else None
        try:
            if standby is not None:
                cluster.make_synchronous("standby1")
            result = run(cluster, work, args)
            result["standby"] = cluster.replication() if standby is not None else []
        finally:
            if standby is not None:
                standby.destroy()
    import shutil
    shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(result))
    return 0


def run(cluster: Cluster, work: Path, args: argparse.Namespace) -> dict:
    made = time.perf_counter()
    dsn = f"host={cluster.host} port={cluster.port} dbname=floor"
    jobs: list[Job] = []
    with psycopg.connect(cluster.dsn(), autocommit=True) as admin:
        apply_schema(admin)
        for i in range(args.tables):
            table_id = f"L{i + 1}"
            journal = Journal(work / table_id / "journal.sqlite")
            fill(journal, args.records)
            password = secrets.token_urlsafe(12)
            role = enroll(admin, table_id, password, floor_key(journal.key, table_id))
            jobs.append((dsn, table_id, role, password, str(journal.path), journal.key))
            journal.close()
    setup = time.perf_counter() - made
    ctx = mp.get_context("spawn")
    urls: mp.Queue = ctx.Queue()
    page_stop = ctx.Event()
    page = ctx.Process(target=serve_pit, args=(cluster.dsn(), str(work / "pins.json"), urls, page_stop))
    page.start()
    page_url = urls.get(timeout=60)
    out: mp.Queue = ctx.Queue()
    start_at = time.time() + 10.0 + args.tables / 50       # every process has made its rows and connected
    every = args.batch * args.tables / args.rate if args.rate > 0 else 0.0     # seconds between a table's batches
    procs = [ctx.Process(target=worker, args=(jobs[p::args.processes], args.batch, start_at, out, every))
             for p in range(args.processes)]
    for p in procs:
        p.start()
    time.sleep(max(0.0, start_at - time.time()))
    stop = threading.Event()
    seen: dict[str, list[float]] = {}
    watcher = threading.Thread(target=lambda: seen.update(watch_pit(page_url, cluster.dsn(), stop)))
    watcher.start()
    results = [out.get(timeout=1800) for _ in procs]
    stop.set()
    watcher.join()
    for p in procs:
        p.join()
    page_stop.set()
    page.join(30)
    elapsed = max(done for _, _, done in results) - start_at
    sent = sum(n for n, _, _ in results)
    with psycopg.connect(cluster.dsn(), autocommit=True) as admin:
        held = admin.execute("SELECT count(*), count(DISTINCT table_id) FROM floor.records").fetchone()
        statuses = admin.execute("SELECT count(*) FROM floor.table_status WHERE last_seq = %s",
                                 (args.records,)).fetchone()
        settings = {k: admin.execute(f"SHOW {k}").fetchone()[0]       # type: ignore[index]
                    for k in ("fsync", "synchronous_commit", "synchronous_standby_names")}
    return {"tables": args.tables, "records_per_table": args.records, "batch": args.batch, "paced_rate": args.rate,
            "processes": args.processes, **settings, "setup_seconds": round(setup, 1),
            "records_sent": sent, "transactions": sum(n for _, n, _ in results),
            "records_on_floor": held[0] if held else 0, "tables_on_floor": held[1] if held else 0,
            "status_rows_caught_up": statuses[0] if statuses else 0,
            "seconds": round(elapsed, 2), "records_per_second": round(sent / elapsed),
            "pit_answer": percentiles(seen.get("answer", [])), "pit_view_read": percentiles(seen.get("read", []))}


if __name__ == "__main__":
    sys.exit(main())
