"""Table roles get a SCRAM-SHA-256 verifier computed on the client (issue 32): the statement the
server receives, and may log, holds the verifier, never the password; the role logs in with the
password; the verifier is the one PostgreSQL's own libpq computes for the same salt."""

from __future__ import annotations

import base64
import secrets

import psycopg
import pytest

from controller.floor.link import floor_key
from controller.floor.schema import FloorError, enroll, set_password
from controller.floor.scram import scram_verifier
from controller.store.journal import Journal


@pytest.mark.parametrize("password", ["pencil", "s3cret with spaces!", "pässwörd", "ﬁsh\u00a0and\u00adchips",
                                      "\u0627\u0644\u0633\u0644\u0627\u0645", "bell\x07"])
def test_the_verifier_is_the_one_libpq_computes_for_the_same_salt(admin, password):
    theirs = admin.pgconn.encrypt_password(password.encode(), b"anyone", b"scram-sha-256").decode()
    iterations, salt = theirs.split("$")[1].split(":")
    assert scram_verifier(password, base64.b64decode(salt), int(iterations)) == theirs


def test_an_enrolled_table_logs_in_and_the_server_never_saw_its_password(cluster, admin, tmp_path):
    table_id = f"P-{secrets.token_hex(3)}"
    password = f"pässwörd-{secrets.token_urlsafe(12)}"
    journal = Journal(tmp_path / "journal.sqlite")
    admin.execute("SET log_statement = 'all'")              # every statement the server receives, in its log
    try:
        logged_from = cluster.log.stat().st_size
        role = enroll(admin, table_id, password, floor_key(journal.key, table_id))
        rotated = f"rotated-{secrets.token_urlsafe(12)}"
        assert set_password(admin, table_id, rotated) == role
    finally:
        admin.execute("RESET log_statement")
        journal.close()
    with open(cluster.log, encoding="utf-8", errors="replace") as log:
        log.seek(logged_from)
        said = log.read()
    assert f'CREATE ROLE "{role}" LOGIN PASSWORD \'SCRAM-SHA-256$4096:' in said
    assert f'ALTER ROLE "{role}" PASSWORD \'SCRAM-SHA-256$4096:' in said
    assert password not in said and rotated not in said
    stored = admin.execute("SELECT rolpassword FROM pg_authid WHERE rolname = %s", (role,)).fetchone()
    assert stored is not None and stored[0].startswith("SCRAM-SHA-256$4096:")
    dsn = f"host={cluster.host} port={cluster.port} dbname=floor user={role}"
    with psycopg.connect(dsn, password=rotated) as conn:
        assert conn.execute("SELECT floor.my_table()").fetchone() == (table_id,)
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(dsn, password=password)             # the old one no longer


def test_a_password_for_a_table_not_enrolled_is_refused(admin):
    with pytest.raises(FloorError, match="table NOPE is not enrolled"):
        set_password(admin, "NOPE", "x")
