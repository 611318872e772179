"""The floor's tests run against a real PostgreSQL: one throwaway cluster for the session
(controller/floor/cluster.py), the floor's schema applied once, each test on its own tables."""

from __future__ import annotations

import itertools
import secrets
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from controller.app.run import RunOptions, TableRun
from controller.floor.cluster import Cluster, ClusterError
from controller.floor.link import floor_key
from controller.floor.schema import apply_schema, enroll
from controller.floor.settings import FloorSettings
from controller.store.chain import load_key
from controller.store.journal import Journal
from tests.support.rig import Rig, config_text

_ids = itertools.count(1)


@pytest.fixture(scope="session")
def cluster():
    try:
        c = Cluster(max_connections=120)
        c.start()
    except ClusterError as err:
        pytest.fail(f"the floor's tests need PostgreSQL: {err}", pytrace=False)
    with psycopg.connect(c.dsn(), autocommit=True) as conn:
        apply_schema(conn)
    yield c
    c.destroy()


@pytest.fixture
def own_floor(cluster):
    """A floor database of the test's own in the session's cluster, for a test that reads the whole
    floor (the pit's census): (its name, its administrator's connection). Dropped afterwards."""
    name = f"floor_{secrets.token_hex(4)}"
    with psycopg.connect(cluster.dsn(dbname="postgres"), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        with psycopg.connect(cluster.dsn(dbname=name), autocommit=True) as conn:
            apply_schema(conn)
            yield name, conn
    finally:
        with psycopg.connect(cluster.dsn(dbname="postgres"), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
def admin(cluster):
    """The floor administrator's connection (autocommit; tables' owner, so not fenced by RLS)."""
    if not cluster.running():            # a test that stopped the server failed before restarting it
        cluster.start()
    with psycopg.connect(cluster.dsn(), autocommit=True) as conn:
        yield conn


@dataclass
class Table:
    """One enrolled table: its journal (in tmp_path) and its floor settings."""
    table_id: str
    journal: Journal
    settings: FloorSettings
    dsn: str

    def connect(self) -> psycopg.Connection:
        return psycopg.connect(self.dsn, user=self.settings.user, password=self.settings.password)


def make_table(cluster: Cluster, admin: psycopg.Connection, folder: Path, prefix: str = "T",
               dbname: str = "floor") -> Table:
    table_id = f"{prefix}{next(_ids)}-{secrets.token_hex(2)}"
    journal = Journal(folder / table_id / "journal.sqlite")
    password = secrets.token_urlsafe(12)
    role = enroll(admin, table_id, password, floor_key(journal.key, table_id))
    dsn = f"host={cluster.host} port={cluster.port} dbname={dbname}"
    return Table(table_id, journal, FloorSettings(dsn=dsn, table_id=table_id, user=role, password=password,
                                                  poll=0.05), dsn)


@pytest.fixture
def table(cluster, admin, tmp_path):
    t = make_table(cluster, admin, tmp_path)
    yield t
    t.journal.close()


def play(journal: Journal, rounds: int) -> None:
    """Journal ``rounds`` small rounds (a table event before each), as the engine would."""
    for n in range(rounds):
        journal.table_event("note", {"n": n})
        rid = journal.open_round("sheet-004")
        journal.append(rid, "wagers", {"positions": {"1": {"ante": 500}}})
        journal.append(rid, "complete", {})


def enroll_table(cluster: Cluster, admin: psycopg.Connection, folder: Path, group: str | None) -> tuple[str, Path]:
    """A whole table's configuration (simulated devices, a ``[floor]`` section, ``jackpot_group``
    when given) in ``folder``, enrolled on the floor; its id and its configuration file."""
    table_id = f"S6-{secrets.token_hex(3)}"
    data = folder / "data"
    key, _ = load_key(data, create=True)          # the journal's key, made first: enrolment needs it
    password = secrets.token_urlsafe(12)
    role = enroll(admin, table_id, password, floor_key(key, table_id))
    (folder / "pw").write_text(password)
    text = config_text().replace('id = "T-TEST"', f'id = "{table_id}"')
    text += (f'\n[floor]\ndsn = "host={cluster.host} port={cluster.port} dbname=floor"\nuser = "{role}"\n'
             f'password_file = "{folder / "pw"}"\npoll = 0.05\nheartbeat = 0.2\ndrain = 2\n')
    if group:
        text += f'jackpot_group = "{group}"\n'
    (folder / "table.toml").write_text(text)
    return table_id, folder / "table.toml"


def start_table(config: Path, page: bool = False) -> Rig:
    """The table of ``enroll_table`` running in this process (its players paused: the test bets),
    with its dealer's page on a free port when ``page``."""
    run = TableRun(RunOptions(config=str(config), simulate=True, data_dir=str(config.parent / "data"), page=page,
                              port=0))
    run.sim.players.paused = True
    return Rig(run.start())
