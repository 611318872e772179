"""The floor's schema across releases: a floor made by an older release (its schema.sql exactly as
that release shipped it, kept in old_schemas/) is brought up by ``apply_schema`` (``table-floor
init``) to a database whose every table, view, function, index, trigger, policy and grant is the
same as a floor made fresh by this release; two inits at once upgrade once."""

from __future__ import annotations

import secrets
import threading
from pathlib import Path

import psycopg
import pytest

from controller.floor.schema import SCHEMA_VERSION, apply_schema, schema_version

OLD = Path(__file__).parent / "old_schemas"

# the floor schema's whole catalog, each object by name with its definition as PostgreSQL prints it
CATALOG = """
SELECT 'function ' || p.proname, pg_get_functiondef(p.oid) || coalesce(p.proacl::text, '')
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'floor'
UNION ALL
SELECT 'relation ' || c.relname, c.relkind::text || ' ' || coalesce(c.relacl::text, '') || ' rls=' || c.relrowsecurity
       || coalesce(' view=' || pg_get_viewdef(c.oid), '')
       || CASE WHEN c.relkind = 'p' THEN ' partitioned=' || pg_get_partkeydef(c.oid) ELSE '' END
       || coalesce(' partition=' || pg_get_expr(c.relpartbound, c.oid), '')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'floor' AND c.relkind IN ('r', 'p', 'v', 'S')
UNION ALL
SELECT 'column ' || c.relname || '.' || a.attname,
       format_type(a.atttypid, a.atttypmod) || ' notnull=' || a.attnotnull || ' default='
       || coalesce(pg_get_expr(d.adbin, d.adrelid), '') || ' at=' || a.attnum
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
  WHERE n.nspname = 'floor' AND c.relkind IN ('r', 'p', 'v') AND a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT 'constraint ' || c.relname || '.' || k.conname, pg_get_constraintdef(k.oid)
  FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'floor'
UNION ALL
SELECT 'index ' || i.indexname, i.indexdef FROM pg_indexes i WHERE i.schemaname = 'floor'
UNION ALL
SELECT 'trigger ' || c.relname || '.' || t.tgname, pg_get_triggerdef(t.oid)
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'floor' AND NOT t.tgisinternal
UNION ALL
SELECT 'policy ' || p.tablename || '.' || p.policyname, p.cmd || ' ' || p.roles::text || ' '
       || coalesce(p.qual, '') || ' ' || coalesce(p.with_check, '')
  FROM pg_policies p WHERE p.schemaname = 'floor'
UNION ALL
SELECT 'meta ' || m.key, m.value FROM floor.meta m
ORDER BY 1
"""


def catalog(conn: psycopg.Connection) -> dict[str, str]:
    return dict(conn.execute(CATALOG).fetchall())


@pytest.fixture
def old_floor(cluster, admin):
    """A second database on the session's cluster, to hold a floor of an older release."""
    name = f"old_{secrets.token_hex(4)}"
    admin.execute(f"CREATE DATABASE {name}")
    yield cluster.dsn(dbname=name)
    admin.execute(f"DROP DATABASE {name} WITH (FORCE)")


def old_schema(version: int) -> str:
    # the cluster already has the floor_table group role (roles are the cluster's, not a database's)
    return (OLD / f"v{version}.sql").read_text(encoding="utf-8").replace("CREATE ROLE floor_table NOLOGIN;", "")


@pytest.mark.parametrize("version", sorted(int(p.stem[1:]) for p in OLD.glob("v*.sql")))
def test_an_older_floor_is_upgraded_to_exactly_what_this_release_makes(admin, old_floor, version):
    with psycopg.connect(old_floor, autocommit=True) as conn:
        with conn.transaction():
            conn.execute(old_schema(version))
        assert schema_version(conn) == version < SCHEMA_VERSION
        before = catalog(conn)
        assert apply_schema(conn) and schema_version(conn) == SCHEMA_VERSION
        upgraded = catalog(conn)
        assert not apply_schema(conn)                       # already there
    fresh = catalog(admin)                                  # the session's floor: this release, made fresh
    assert upgraded == fresh, {k: (upgraded.get(k), fresh.get(k)) for k in set(upgraded) | set(fresh)
                               if upgraded.get(k) != fresh.get(k)}
    assert before != fresh                                  # the old text really was older


def test_two_inits_at_once_upgrade_once(old_floor):
    with psycopg.connect(old_floor, autocommit=True) as conn:
        with conn.transaction():
            conn.execute(old_schema(1))
    results: list[object] = []

    def init() -> None:
        try:
            with psycopg.connect(old_floor, autocommit=True) as conn:
                results.append(apply_schema(conn))
        except Exception as err:    # noqa: BLE001 - the test reports whatever the second init met
            results.append(err)

    threads = [threading.Thread(target=init) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(map(repr, results)) == ["False", "True"]     # one upgraded, the other found it done
    with psycopg.connect(old_floor) as conn:
        assert schema_version(conn) == SCHEMA_VERSION


def test_an_upgrade_records_the_splits_that_were_final_and_only_those(old_floor):
    """Version 3 recomputed finality; the upgrade to 4 records what was final then: a closed
    generation, one replaced by a posting (posting needed it final), a pending one every table of the
    group has acknowledged; a pending one still waiting for a table is not final."""
    with psycopg.connect(old_floor, autocommit=True) as conn:
        with conn.transaction():
            conn.execute(old_schema(3))
            conn.execute("INSERT INTO floor.tables (id, role) VALUES ('A', 'ra'), ('B', 'rb')")
            conn.execute("INSERT INTO floor.jackpot_groups VALUES ('G')")
            conn.execute("INSERT INTO floor.group_tables VALUES ('A', 'G'), ('B', 'G')")
            conn.execute("INSERT INTO floor.jackpot_levels VALUES ('G', 'mega', 1, 900, 'pending', now()), "
                         "('G', 'major', 3, 500, 'pending', now()), ('G', 'minor', 1, 100, 'pending', now())")
            for level, gen in (("mega", 1), ("major", 2), ("major", 3), ("minor", 1)):
                conn.execute("INSERT INTO floor.jackpot_claims VALUES ('A', %s, %s, 'G', %s, 1, 1, 1000, 100, 1, "
                             "100, now())", (gen * 10 + len(level), level, gen))
            # major 3: both tables took the lock; minor 1: closed by a supervisor; mega 1: B has not
            conn.execute("INSERT INTO floor.lock_acks (group_id, level, generation, table_id) VALUES "
                         "('G', 'major', 3, 'A'), ('G', 'major', 3, 'B'), ('G', 'mega', 1, 'A')")
            conn.execute("INSERT INTO floor.claim_windows_closed (group_id, level, generation, closed_by, reason) "
                         "VALUES ('G', 'minor', 1, 'Ana', 'B cut off')")
        assert apply_schema(conn)
        final = conn.execute("SELECT level, generation, how, tables FROM floor.final_splits ORDER BY 1, 2").fetchall()
        assert final == [("major", 2, "locks", ["A", "B"]), ("major", 3, "locks", ["A", "B"]),
                         ("minor", 1, "closed", ["A", "B"])]
        assert conn.execute("SELECT floor.split_final('G', 'mega', 1)").fetchone() == (False,)


def test_the_records_rebuilt_by_the_upgrade_to_8_are_analysed(old_floor):
    """The rebuild makes a new floor.records: without ANALYZE its first queries are planned blind."""
    with psycopg.connect(old_floor, autocommit=True) as conn:
        with conn.transaction():
            conn.execute(old_schema(7))
        assert apply_schema(conn)
        analysed = conn.execute("SELECT last_analyze FROM pg_stat_user_tables "
                                "WHERE schemaname = 'floor' AND relname = 'records'").fetchone()
    assert analysed is not None and analysed[0] is not None
