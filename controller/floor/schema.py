"""The floor database's schema and its enrolment of tables (the administrator's side).

Owns ``schema.sql`` (version 10: tables, their keys, every table's records, the role per table
with row-level security, the check on arrival) and the two things only the floor's
administrator does: apply the schema to an empty database, and enroll a table (its own login
role in the ``floor_table`` group, its row, its floor key) or give its role a new password, sent
as a SCRAM verifier (controller/floor/scram.py) so the password never reaches the server.
Every statement runs in one transaction: a half-made floor or a half-enrolled table never exists.
"""

from __future__ import annotations

import re
from importlib import resources

import psycopg
from psycopg import sql

from controller.errors import InputError
from controller.floor.scram import scram_verifier
from controller.floor.settings import default_role

SCHEMA_VERSION = 10
# what a floor of an older version needs to read this one: the tables, functions and views added or
# changed, taken from schema.sql itself (one text, never a second copy), in the order they depend on
# each other. 1 -> 2: ack_lock NOTIFYs a split made final; a floor supervisor may close a
# generation's claims (claim_windows_closed). 2 -> 3: claim_jackpot's refusals for good have their
# own SQLSTATEs; the linked_hits view (every hit and what became of it). 3 -> 4: a split's finality
# is recorded once (final_splits, what was final then recorded by the upgrade), a claim after it
# refused (23J04), the group's tables frozen while a level is pending; each table's status row kept
# by the ingest (table_status, made from the records by the upgrade). "STATEMENT x": the statement
# of schema.sql that starts a line with x (a grant, a trigger, the upgrade's own INSERT). 4 -> 5: no
# NOTIFY from the ingest (it made 500 tables' commits wait on each other), the status row's last record
# read by the index, every status row made again from the records (the new fold_status must exist
# before an upgrade from 3 or older runs it). 5 -> 6: floor.records partitioned by hash of the table:
# the rows copied into the new table before its indexes, triggers (the check on arrival would stamp
# them received now) and policies are made, the old table dropped. "SQL x": a statement of this
# module run as written (what this release no longer has, a table set aside to be copied). 6 -> 7:
# a table that comes back behind the floor's head of its chain is reported (report_behind, chain_alarms,
# the pit's alert until a record past that head arrives). 8 -> 9: each table's status row names the
# dealer signed in (the rows made again from the records, so a dealer who signed in before is named).
# 9 -> 10: linked_hits reads a field a table wrote that is no whole number as NULL (floor.whole),
# never an error that stops the view for the whole floor; ack_lock takes only a won generation's lock;
# claim_jackpot refuses a generation past the floor's as mendable (23000), not for good. REBUILD_RECORDS:
# floor.records made again as schema.sql defines it now: the old table set aside (renamed, with its
# indexes and constraints), the rows copied as they were before the indexes, triggers (the check on
# arrival would stamp them received now) and policies are made, the old table dropped. 5 -> 6
# partitioned it by hash, 7 -> 8 made it one table again (measured slower: schema.sql says why), so a
# floor at 5 or older goes through this once, at its last step
REBUILD_RECORDS: tuple[str, ...] = (
    "SQL DROP VIEW IF EXISTS floor.linked_hits", "SQL ALTER TABLE floor.records RENAME TO records_before",
    *(f"SQL ALTER INDEX floor.{name} RENAME TO {name}_before" for name in ("records_pkey", "records_rounds",
                                                                          "records_kinds")),
    *(f"SQL ALTER TABLE floor.records_before RENAME CONSTRAINT {name} TO {name}_before"
      for name in ("records_seq_check", "records_source_check")),
    # a partitioned table's foreign key has a copy of that name on each partition, which a rename
    # leaves: dropped (the rows it held to are copied into a table that holds them to it again)
    "SQL ALTER TABLE floor.records_before DROP CONSTRAINT records_table_id_fkey",
    "TABLE floor.records",
    "SQL INSERT INTO floor.records SELECT * FROM floor.records_before ORDER BY table_id, seq",
    "SQL DROP TABLE floor.records_before",
    "STATEMENT CREATE INDEX records_rounds", "STATEMENT CREATE INDEX records_kinds",
    "STATEMENT GRANT SELECT, INSERT ON floor.records", "STATEMENT ALTER TABLE floor.records ENABLE",
    "STATEMENT CREATE POLICY own_rows_read", "STATEMENT CREATE POLICY own_rows_write",
    "STATEMENT CREATE TRIGGER check_record", "STATEMENT CREATE TRIGGER keep_status", "VIEW floor.linked_hits",
    # a new table has no statistics until autovacuum comes by: the pit's first queries after
    # the upgrade would be planned blind on the floor's largest table
    "SQL ANALYZE floor.records")
UPGRADES: dict[int, tuple[str, ...]] = {
    1: ("TABLE floor.claim_windows_closed", "floor.split_final", "floor.claim_jackpot", "floor.ack_lock"),
    2: ("floor.claim_jackpot", "VIEW floor.linked_hits"),
    3: ("TABLE floor.final_splits", "STATEMENT GRANT SELECT ON floor.final_splits",
        "STATEMENT INSERT INTO floor.final_splits", "floor.group_frozen", "STATEMENT CREATE TRIGGER group_frozen",
        "floor.split_final", "floor.make_final", "floor.claim_jackpot", "floor.ack_lock",
        "STATEMENT REVOKE EXECUTE ON FUNCTION floor.claim_jackpot", "TABLE floor.device_words",
        "STATEMENT INSERT INTO floor.device_words", "TABLE floor.table_status", "floor.alerts_without",
        "floor.fold_status", "STATEMENT REVOKE EXECUTE ON FUNCTION floor.fold_status", "floor.keep_status",
        "STATEMENT CREATE TRIGGER keep_status", "STATEMENT SELECT floor.fold_status"),
    4: ("SQL DROP TRIGGER notify_records ON floor.records", "SQL DROP FUNCTION floor.notify_records()",
        "floor.fold_status", "STATEMENT REVOKE EXECUTE ON FUNCTION floor.fold_status",
        "STATEMENT DELETE FROM floor.table_status", "STATEMENT SELECT floor.fold_status"),
    5: REBUILD_RECORDS,
    6: ("TABLE floor.chain_alarms", "floor.report_behind", "STATEMENT REVOKE EXECUTE ON FUNCTION floor.report_behind",
        "STATEMENT GRANT EXECUTE ON FUNCTION floor.report_behind"),
    7: REBUILD_RECORDS,
    8: ("SQL ALTER TABLE floor.table_status ADD COLUMN IF NOT EXISTS dealer text", "floor.fold_status",
        "STATEMENT REVOKE EXECUTE ON FUNCTION floor.fold_status", "STATEMENT DELETE FROM floor.table_status",
        "STATEMENT SELECT floor.fold_status"),
    9: ("floor.whole", "VIEW floor.linked_hits", "floor.claim_jackpot", "floor.ack_lock"),
}
# one init at a time: two administrators upgrading at once would both read the old version
INIT_LOCK = "SELECT pg_advisory_xact_lock(hashtext('floor.schema'))"
ROLE_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


class FloorError(InputError):
    """A floor request refused with words (no database, a table enrolled twice, a bad name)."""


def schema_text() -> str:
    return resources.files("controller.floor").joinpath("schema.sql").read_text(encoding="utf-8")


def schema_version(conn: psycopg.Connection) -> int | None:
    """The floor's schema version, or None for a database without the floor's schema."""
    row = conn.execute("SELECT to_regclass('floor.meta') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return None
    found = conn.execute("SELECT value FROM floor.meta WHERE key = 'schema_version'").fetchone()
    return int(found[0]) if found else None


def apply_schema(conn: psycopg.Connection) -> bool:
    """Create the floor's schema in an empty database, or bring an older version up to this one
    (True); find it already there (False); a version this release cannot upgrade is refused."""
    with conn.transaction():
        conn.execute(INIT_LOCK)             # the version is read after a concurrent init committed
        version = schema_version(conn)
        if version == SCHEMA_VERSION:
            return False
        if version is None:
            conn.execute(schema_text())     # a trusted file of the package, not input
            return True
        if version not in UPGRADES:
            raise FloorError(f"the floor database has schema version {version}; this release reads {SCHEMA_VERSION}")
        # each step's objects as this release defines them: an object changed again by a later step is
        # made once, at its last step (its text may need that step's tables)
        steps = [name for v in range(version, SCHEMA_VERSION) for name in UPGRADES[v]]
        for name in [n for i, n in enumerate(steps) if n not in steps[i + 1:]]:
            if name.startswith("SQL "):
                conn.execute(name[4:])      # a constant of this module, not input
            elif name.startswith("TABLE "):
                conn.execute(_definition(rf"CREATE TABLE {re.escape(name[6:])} \(.*?^\)[^;\n]*;", name))
            elif name.startswith("STATEMENT "):
                conn.execute(_definition(rf"{re.escape(name[10:])}\b.*?;(?=[ \t]*(?:--[^\n]*)?$)", name))
            elif name.startswith("VIEW "):
                # the same columns, so a view still there (9 -> 10) is replaced where it stands
                conn.execute(_definition(rf"CREATE VIEW {re.escape(name[5:])} AS.*?;$", name)
                             .replace("CREATE VIEW", "CREATE OR REPLACE VIEW", 1))
            else:
                conn.execute(_definition(rf"CREATE FUNCTION {re.escape(name)}\(.*?\$\$;$", name)
                             .replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1))
        version = SCHEMA_VERSION
        conn.execute("UPDATE floor.meta SET value = %s WHERE key = 'schema_version'", (str(version),))
    return True


def _definition(pattern: str, name: str) -> str:
    """A table's or function's whole definition as schema.sql has it."""
    found = re.search("^" + pattern, schema_text(), re.M | re.S)
    if found is None:
        raise FloorError(f"schema.sql does not define {name}")
    return found.group(0)


def enroll(conn: psycopg.Connection, table_id: str, password: str, key: bytes, role: str | None = None) -> str:
    """Give table ``table_id`` its login role (``role``, default ``default_role``), its row and its
    floor key (controller/floor/link.py), in one transaction; returns the role."""
    role = role or default_role(table_id)
    if not ROLE_NAME.fullmatch(role):
        raise FloorError(f"table {table_id}: role name {role!r} must be lower-case letters, digits and _")
    if not 1 <= len(table_id) <= 32:
        raise FloorError(f"table id {table_id!r} must be 1 to 32 characters")
    with conn.transaction():
        if conn.execute("SELECT 1 FROM floor.tables WHERE id = %s OR role = %s", (table_id, role)).fetchone():
            raise FloorError(f"table {table_id} (role {role}) is already enrolled on the floor")
        # the verifier, never the password: the statement may be logged (controller/floor/scram.py)
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE floor_table").format(
            sql.Identifier(role), sql.Literal(scram_verifier(password))))
        conn.execute("INSERT INTO floor.tables (id, role) VALUES (%s, %s)", (table_id, role))
        conn.execute("INSERT INTO floor.table_keys (table_id, floor_key) VALUES (%s, %s)", (table_id, key))
    return role


def set_password(conn: psycopg.Connection, table_id: str, password: str) -> str:
    """A new password for an enrolled table's role (a rotation), sent as its SCRAM verifier; returns the role."""
    found = conn.execute("SELECT role FROM floor.tables WHERE id = %s", (table_id,)).fetchone()
    if found is None:
        raise FloorError(f"table {table_id} is not enrolled on the floor")
    if not password:
        raise FloorError(f"table {table_id}: an empty password")
    conn.execute(sql.SQL("ALTER ROLE {} PASSWORD {}").format(sql.Identifier(found[0]),
                                                             sql.Literal(scram_verifier(password))))
    return str(found[0])
