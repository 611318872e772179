"""``table-floor demo``: a whole floor on one machine, for a look and for the floor's tests.

Owns the demonstration: a throwaway PostgreSQL cluster (controller/floor/cluster.py) with the
floor's schema; N tables, each enrolled with its own role and floor key and run as its own
process (``table-controller run --simulate --autoplay``) on simulated devices with a
``[floor]`` section, so each forwards its journal as a table on a real floor would; with
``--outage`` the database is stopped for that many seconds while they play, as a failure
would. When the tables are done a forwarder per table catches up what a table could not send
before it stopped (store and forward), and the floor's records are compared fact by fact with
each table's journal. The JSON summary says what the floor holds: tables, rounds, records in
the journals, forwarded and confirmed, gaps, duplicates and mismatches (all three 0 when the
floor is right). With ``--hits N`` the tables share one linked Super 6 jackpot and the first N
are dealt a MINOR hit for position 1 in their third round (``run --royal-at``): the
summary adds the floor's claims in their order, the split, and the hits the tables paid. A table
that finished its rounds before a lock reached it can never take it: the demo's supervisor then
closes that level's claims, as a pit's would, and the summary names what it closed.

The tables are given as long as they make progress: a table whose journal has not grown for
``--stall`` seconds (60) while its process runs is stopped and counted as failed, however long
the whole run takes on a busy machine. The summary's counts are read from the floor and the
journals, never from the tables' own summaries (a table stopped has none).
"""

from __future__ import annotations

import argparse
import json
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import structlog

from controller.app.config import EMBEDDED_DEFAULT
from controller.floor.cluster import Cluster
from controller.floor.demo_check import GROUP, JOURNAL, failover_check, jackpot_summary, summary
from controller.floor.forwarder import Forwarder
from controller.floor.jackpot import close_claims, create_group
from controller.floor.link import floor_key
from controller.floor.schema import FloorError, apply_schema, enroll
from controller.floor.settings import FloorSettings
from controller.rules.typed_text import text_problem
from controller.store.chain import load_key
from controller.store.journal import Journal, JournalError
from controller.store.outbox import chain_end

STALL = 60.0                        # seconds without a new fact in its journal before a table is stopped
STANDBY = "standby1"                # the synchronous standby's name (--failover)
DEMO_VALUES = {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000}     # cents: $100,000 / $25,000 / $2,500


def add_command(sub: Any) -> None:
    p = sub.add_parser("demo", help="a throwaway floor: PostgreSQL and N simulated tables, then a JSON summary")
    p.add_argument("--tables", type=int, default=6, metavar="N", help="tables (1-50, default 6)")
    p.add_argument("--rounds", type=int, default=200, metavar="R", help="rounds each table plays (default 200)")
    p.add_argument("--seed", type=int, default=1, help="table i plays with seed SEED+i")
    p.add_argument("--outage", type=float, default=0.0, metavar="SECONDS",
                   help="stop PostgreSQL for SECONDS once every table reached the floor (default 0: no outage)")
    p.add_argument("--hits", type=int, default=0, metavar="N",
                   help="one linked jackpot for every table; tables 1..N hit MINOR in the same round (default 0)")
    p.add_argument("--failover", type=float, metavar="SECONDS",
                   help="a synchronous standby beside the primary; mid-run the primary is killed (-m immediate) "
                   "and the standby promoted SECONDS later (default: no standby)")
    p.add_argument("--keep", metavar="DIR", help="keep the tables' folders (journals, logs) in DIR")
    p.add_argument("--port", type=int, metavar="PORT", help="the throwaway cluster's TCP port on 127.0.0.1 "
                   "(default: any free one)")
    p.add_argument("--stall", type=float, default=STALL, metavar="SECONDS",
                   help=f"stop a table whose journal has not grown for SECONDS (default {STALL:.0f})")
    p.set_defaults(func=cmd_demo)


@dataclass
class DemoTable:
    table_id: str
    folder: Path
    settings: FloorSettings
    key: bytes
    process: subprocess.Popen | None = None
    summary: dict | None = None


def cmd_demo(args: argparse.Namespace) -> int:
    if not 1 <= args.tables <= 50:
        raise FloorError(f"--tables must be 1 to 50, not {args.tables}")
    if args.rounds < 1:
        raise FloorError(f"--rounds must be at least 1, not {args.rounds}")
    if not 0 <= args.hits <= args.tables:
        raise FloorError(f"--hits must be 0 to the tables ({args.tables}), not {args.hits}")
    if args.hits and args.rounds < 6:
        raise FloorError("--hits needs --rounds 6 or more: each table takes the lock between two later rounds")
    if args.outage < 0:
        raise FloorError(f"--outage must be 0 or more seconds, not {args.outage}")
    if args.failover is not None and not 0 <= args.failover <= 600:
        raise FloorError(f"--failover must be 0 to 600 seconds, not {args.failover}")
    if args.failover is not None and args.outage > 0:
        raise FloorError("--failover and --outage are two different faults: ask for one of them")
    if not args.stall > 0:
        raise FloorError(f"--stall must be more than 0 seconds, not {args.stall}")
    if args.port is not None:
        _check_port(args.port)
    # the forwarders' log lines go to standard error: standard output is the JSON summary alone
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(sys.stderr))
    print(json.dumps(run_demo(args.tables, args.rounds, args.seed, args.outage, args.keep, args.hits,
                              port=args.port, stall=args.stall, failover=args.failover)))
    return 0


def _check_port(port: int) -> None:
    if not 1 <= port <= 65535:
        raise FloorError(f"--port must be 1 to 65535, not {port}")
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError as err:
            raise FloorError(f"--port {port}: 127.0.0.1:{port} cannot be used ({err.strerror})") from None


def run_demo(tables: int, rounds: int, seed: int, outage: float = 0.0, keep: str | None = None,
             hits: int = 0, port: int | None = None, stall: float = STALL,
             failover: float | None = None) -> dict[str, Any]:
    work = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="table-floor-demo-"))
    work.mkdir(parents=True, exist_ok=True)
    with Cluster(max_connections=max(100, tables * 3), port=port) as cluster:
        standby = cluster.add_standby(STANDBY) if failover is not None else None
        try:
            if standby is not None:
                cluster.make_synchronous(STANDBY)       # before any floor data: every commit is on both
            result = _play(cluster, standby, work, tables, rounds, seed, outage, hits, stall, failover or 0.0)
        finally:
            if standby is not None:
                standby.destroy()
    if not keep:
        import shutil
        shutil.rmtree(work, ignore_errors=True)
    return result


def _play(cluster: Cluster, standby: Cluster | None, work: Path, tables: int, rounds: int, seed: int,
          outage: float, hits: int, stall: float, failover: float) -> dict[str, Any]:
    # with a standby the tables are given both hosts: libpq keeps the one that takes writes
    dsn = cluster.primary_dsn_with(standby) if standby else f"host={cluster.host} port={cluster.port} dbname=floor"
    with psycopg.connect(cluster.dsn(), autocommit=True) as admin:
        apply_schema(admin)
        group = GROUP if hits else None
        floor = [_enroll(admin, dsn, work, f"T{i}", group) for i in range(1, tables + 1)]
        if group:
            create_group(admin, group, [t.table_id for t in floor], DEMO_VALUES, by="demo supervisor",
                         reason="the demo's opening values")
    started = time.monotonic()
    # early, once the floor's values are shown (Super 6 is closed before), with rounds left for every
    # table to take the lock between two of them, which makes the floor's answer final
    hit_round = 3
    live = cluster                                  # the database that takes writes now
    moved: dict[str, Any] | None = None
    try:
        for i, t in enumerate(floor, start=1):
            t.process = _start(t, rounds, seed + i, hit_round if i <= hits else None)
        outages = 0
        if outage > 0:
            _wait_all_on_floor(cluster, floor)
            cluster.stop()                          # the floor goes away; the tables play on
            time.sleep(outage)
            cluster.start()
            outages = 1
        if standby is not None:
            moved = _fail_over(cluster, standby, floor, rounds, bool(hits), failover)
            live = standby
        closed, caught, stalled = _wait_tables(live, floor, stall, bool(hits))
        played = time.monotonic() - started
        caught_up = sum(caught[t.table_id] if t.table_id in caught else _catch_up(t) for t in floor)
    finally:                                        # a failed demo leaves no table playing on
        for t in floor:
            if t.process is not None and t.process.poll() is None:
                t.process.kill()
                t.process.wait()
    with psycopg.connect(live.dsn(), autocommit=True) as admin:     # after a failover: the promoted one
        result = summary(admin, floor, rounds, outages, caught_up)
        result["tables_stalled"] = stalled
        result["port"] = cluster.port
        if hits:
            result["jackpot"] = jackpot_summary(admin, floor, hits, hit_round)
            result["jackpot"]["claims_closed"] = closed
        if moved is not None:
            moved.update(failover_check(admin, floor))
            result["failover"] = moved
    result["seconds"] = round(played, 1)
    return result


def _fail_over(primary: Cluster, standby: Cluster, floor: list[DemoTable], rounds: int, linked: bool,
               pause: float) -> dict[str, Any]:
    """Mid-run (half the rounds on the floor; with a linked jackpot, once a split is final and so
    paid at its tables) the primary is killed as a crash would (``-m immediate``: no shutdown
    checkpoint, sessions cut), and ``pause`` seconds later the synchronous standby promoted. The
    tables play on throughout; their forwarders find the new primary through their dsn."""
    streaming = primary.replication()
    with psycopg.connect(primary.dsn(), autocommit=True) as admin:
        while any(t.process is not None and t.process.poll() is None for t in floor):
            row = admin.execute("SELECT count(*) FILTER (WHERE kind = 'complete'), count(*), "
                                "(SELECT count(*) FROM floor.final_splits) FROM floor.records").fetchone()
            completes, records, finals = row if row else (0, 0, 0)
            if completes * 2 >= rounds * len(floor) and (finals or not linked):
                break
            time.sleep(0.1)
    primary.stop("immediate")
    time.sleep(pause)
    standby.promote()
    return {"standby": STANDBY, "replication_before": streaming, "records_when_killed": records,
            "rounds_when_killed": completes, "final_splits_when_killed": finals, "promoted_after": pause,
            "primary_port": primary.port, "standby_port": standby.port}


def _enroll(admin: psycopg.Connection, dsn: str, work: Path, table_id: str, group: str | None = None) -> DemoTable:
    folder = work / table_id
    folder.mkdir(parents=True, exist_ok=True)
    key, _ = load_key(folder, create=True)         # the journal key, made before the journal: enrolment needs it
    password = secrets.token_urlsafe(18)
    (folder / "floor-password").write_text(password + "\n")
    (folder / "floor-password").chmod(0o600)
    role = enroll(admin, table_id, password, floor_key(key, table_id))
    settings = FloorSettings(dsn=dsn, table_id=table_id, user=role, password=password, poll=0.1, drain=10.0)
    config = EMBEDDED_DEFAULT.replace('id = "SIM-1"', f'id = "{table_id}"').replace(
        'dir = "table-data"', f'dir = "{folder}"').replace('format = "console"', 'format = "json"')
    config += (f'\n[floor]\ndsn = "{dsn}"\nuser = "{role}"\npassword_file = "floor-password"\n'
               'poll = 0.1\ndrain = 10.0\n' + (f'jackpot_group = "{group}"\n' if group else ""))
    (folder / "table.toml").write_text(config)
    return DemoTable(table_id, folder, settings, key)


def _start(t: DemoTable, rounds: int, seed: int, royal_at: int | None = None) -> subprocess.Popen:
    command = [sys.executable, "-m", "controller.cli", "run", "--config", str(t.folder / "table.toml"),
               "--simulate", "--autoplay", "--rounds", str(rounds), "--seed", str(seed), "--port", "0"]
    if royal_at is not None:
        command += ["--royal-at", str(royal_at)]
    log = open(t.folder / "table.log", "w")         # noqa: SIM115 - the child holds it until it exits
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True, cwd=Path.cwd())


def _wait_tables(cluster: Cluster, floor: list[DemoTable], stall: float,
                 linked: bool) -> tuple[list[str], dict[str, int], list[str]]:
    """Until every table finished its rounds, each given as long as its journal grows: one whose
    journal has not grown for ``stall`` seconds is stopped (and counted as failed). A table that
    finished can no longer take a level's lock, so a split waiting for it would wait for ever: the
    demo's supervisor closes those claims, as a pit's would (close_claims), once every table it
    waits for has stopped and has sent the floor all it journaled (its lock taken, its own claim).
    Returns what was closed, per table caught up on the way the records that took, and the tables
    stopped for want of progress."""
    closed: list[str] = []
    caught: dict[str, int] = {}
    stalled: list[str] = []
    grew = {t.table_id: (0, time.monotonic()) for t in floor}      # last fact number, and when it grew
    looked = 0.0
    with psycopg.connect(cluster.dsn(), autocommit=True) as admin:
        while any(t.process is not None and t.process.poll() is None for t in floor):
            if time.monotonic() - looked >= 1.0:
                looked = time.monotonic()
                for t in floor:
                    if t.process is None or t.process.poll() is not None:
                        continue
                    end = _journal_end(t)
                    if end > grew[t.table_id][0]:
                        grew[t.table_id] = (end, looked)
                    elif looked - grew[t.table_id][1] > stall:
                        t.process.kill()                # no new fact for ``stall`` seconds: stuck
                        stalled.append(t.table_id)
            if linked:
                for t in floor:
                    if t.table_id not in caught and t.process is not None and t.process.poll() is not None:
                        caught[t.table_id] = _catch_up(t)
                if caught:
                    closed += close_claims_of_stopped_tables(admin, GROUP, set(caught))
            time.sleep(0.2)
    for t in floor:
        assert t.process is not None
        if t.process.poll() is None:
            t.process.kill()
        out, _ = t.process.communicate()
        t.summary = _last_json(out)
    return closed, caught, stalled


def _journal_end(t: DemoTable) -> int:
    """The number of the table's last journaled fact (0 before its journal exists or is made)."""
    if not (t.folder / JOURNAL).exists():
        return 0
    try:
        journal = Journal.read_only(t.folder / JOURNAL, keyed=False)
    except JournalError:                    # the table is making it right now
        return 0
    try:
        return chain_end(journal)
    finally:
        journal.close()


def close_claims_of_stopped_tables(admin: psycopg.Connection, group: str, stopped: set[str]) -> list[str]:
    """Closes each won level whose split waits only for tables in ``stopped``; ``level/generation``
    of each closed."""
    closed = []
    waiting = admin.execute(
        "SELECT l.level, l.generation, array(SELECT gt.table_id FROM floor.group_tables gt "
        "  WHERE gt.group_id = l.group_id AND NOT EXISTS (SELECT 1 FROM floor.lock_acks a "
        "  WHERE a.group_id = l.group_id AND a.level = l.level AND a.generation = l.generation "
        "  AND a.table_id = gt.table_id)) FROM floor.jackpot_levels l "
        "WHERE l.group_id = %s AND l.state = 'pending' AND NOT floor.split_final(l.group_id, l.level, l.generation)",
        (group,)).fetchall()
    for level, generation, missing in waiting:
        if missing and set(missing) <= stopped:
            why = f"table(s) {', '.join(missing)} stopped before taking the lock"
            if text_problem("reason", why) is not None:     # a reason is at most 200 characters: many tables
                why = f"{len(missing)} tables stopped before taking the lock"
            close_claims(admin, group, level, generation, by="demo supervisor", reason=why)
            closed.append(f"{level}/{generation}")
    return closed


def _last_json(out: str) -> dict | None:
    for line in reversed(out.splitlines()):
        if line.startswith("{"):
            try:
                found: dict = json.loads(line)
                return found
            except json.JSONDecodeError:
                return None
    return None


def _wait_all_on_floor(cluster: Cluster, floor: list[DemoTable], timeout: float = 120.0) -> None:
    """Until every table has at least one record on the floor (each forwarder is live)."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(cluster.dsn(), autocommit=True) as admin:
        while time.monotonic() < deadline:
            row = admin.execute("SELECT count(DISTINCT table_id) FROM floor.records").fetchone()
            if row and row[0] >= len(floor):
                return
            if any(t.process is not None and t.process.poll() is not None for t in floor):
                return                              # a table already finished: stop the floor now
            time.sleep(0.1)


def _catch_up(t: DemoTable) -> int:
    """What the table could not send before it stopped, sent now (its next run would); how many."""
    journal = Journal.read_only(t.folder / JOURNAL, keyed=False)
    try:
        end = chain_end(journal)
    finally:
        journal.close()
    fwd = Forwarder(t.settings, t.folder / JOURNAL, t.key).start()
    try:
        if not fwd.wait_confirmed(end, 60):
            raise FloorError(f"table {t.table_id}: the floor did not confirm its records up to {end}: {fwd.status()}")
    finally:
        fwd.stop()
    forwarded: int = fwd.status()["forwarded"]
    return forwarded
