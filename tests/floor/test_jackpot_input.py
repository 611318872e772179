"""Odd input to the linked jackpot's floor side (the test lab's, session 18): values no split can
hold, acknowledgements of locks that never were, claims of a generation the floor never posted.
Each is refused in words and changes nothing."""

from __future__ import annotations

import secrets
from datetime import timedelta

import psycopg
import pytest

from controller.floor.jackpot import ack_lock, claim, claims, create_group, post_values
from controller.floor.schema import FloorError
from tests.floor.conftest import make_table

VALUES = {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000}


@pytest.fixture
def group(cluster, admin, tmp_path):
    tables = [make_table(cluster, admin, tmp_path, prefix="V") for _ in range(2)]
    group_id = f"V-{secrets.token_hex(3)}"
    create_group(admin, group_id, [t.table_id for t in tables], VALUES, by="Ana", reason="opening")
    yield group_id, tables
    for t in tables:
        t.journal.close()


def levels(admin, group_id):
    return admin.execute("SELECT level, generation, value, state FROM floor.jackpot_levels WHERE group_id = %s "
                         "ORDER BY level", (group_id,)).fetchall()


@pytest.mark.parametrize("cents", [10**12 + 1, 10**17, 10**19])
def test_a_value_no_split_can_hold_is_refused_in_words(admin, group, cents):
    # 10**17 cents was taken, and then every claim of the level failed (bigint out of range in the
    # split: the forwarder took it for a link down); 10**19 was the database's error (the pit: 503)
    group_id, _ = group
    before = levels(admin, group_id)
    now = admin.execute("SELECT now()").fetchone()[0]
    with pytest.raises(FloorError, match=r"MEGA must be at most 1000000000000 cents \(\$10,000,000,000.00\)"):
        post_values(admin, group_id, dict(VALUES, mega=cents), by="Ana", reason="typo",
                    now=now + timedelta(hours=25))
    assert levels(admin, group_id) == before
    with pytest.raises(FloorError, match="MINOR must be at most"):
        create_group(admin, f"W-{secrets.token_hex(3)}", [], dict(VALUES, minor=cents), by="Ana", reason="typo")


def test_the_largest_value_still_splits(admin, group):
    group_id, (a, b) = group
    now = admin.execute("SELECT now()").fetchone()[0]
    most = 10**12
    post_values(admin, group_id, {"mega": most, "major": most, "minor": most}, by="Ana", reason="most",
                now=now + timedelta(hours=25))
    for t, rnd in ((a, 1), (b, 2)):
        with t.connect() as conn:
            claim(conn, rnd, "mega", 1, 1000, 100, 2)
    assert [c["amount"] for c in claims(admin, group_id, "mega", 2)] == [most // 2, most // 2]


def acks(admin, group_id):
    return admin.execute("SELECT level, generation, table_id FROM floor.lock_acks WHERE group_id = %s ORDER BY 1, 2, 3",
                         (group_id,)).fetchall()


def test_a_lock_that_never_was_is_refused_and_recorded_nowhere(admin, group):
    # an acknowledgement of a level that does not exist, or of a generation the floor has not won,
    # was recorded: one of generation 2 made ahead counted, once MINOR 2 was won, as the table's lock
    # taken and its rounds settled, and the split could be made final without it
    group_id, (a, b) = group
    with a.connect() as conn:
        for level, generation, said in (("bogus", 1, f"group {group_id} has no bogus jackpot"),
                                         ("minor", 1, "MINOR generation 1 is not won: no lock to take"),
                                         ("minor", 2, "the floor is at MINOR generation 1: no lock to take")):
            with pytest.raises(psycopg.errors.IntegrityConstraintViolation, match=f"table {a.table_id}: {said}"):
                ack_lock(conn, level, generation)
    assert acks(admin, group_id) == []
    with b.connect() as conn:
        claim(conn, 7, "minor", 1, 1000, 100, 1)
    with a.connect() as conn:
        assert ack_lock(conn, "minor", 1) is False      # won now: taken (B has not taken it yet)
    assert acks(admin, group_id) == [("minor", 1, a.table_id)]


def test_a_claim_of_a_generation_the_floor_never_posted_is_refused_but_not_for_good(admin, group):
    # 23J02 ("the floor posted generation N since") is a refusal for good, settled at the table without
    # the award; a generation past the floor's (a floor restored from an older copy) is for the
    # administrator to mend, and the claim then stands
    group_id, (a, _) = group
    with a.connect() as conn, pytest.raises(psycopg.IntegrityError) as refused:
        claim(conn, 7, "minor", 1, 1000, 100, 3)
    assert refused.value.sqlstate == "23000"
    assert f"table {a.table_id}: round 7: dealt under minor generation 3, but the floor is at generation 1" in \
        str(refused.value)
    assert levels(admin, group_id)[2] == ("minor", 1, 250_000, "open")


@pytest.mark.parametrize(("by", "reason", "said"), [
    ("Ana", "table 7 cut off\x1b[2J\x1b[Hall settled", "reason must be plain text"),
    ("Ana\nBob", "table 7 cut off", "the supervisor's name must be plain text"),
    ("Ana", "x" * 201, "reason must be at most 200 characters"),
])
def test_close_claims_on_the_command_line_takes_the_pages_rule_for_typed_text(cluster, admin, group, capsys, by,
                                                                              reason, said):
    # the pit page refuses such a reason; the command line recorded it, escapes and all, for every
    # later reader of floor.claim_windows_closed and the terminals that print it
    from controller.floor import cli
    group_id, (a, _) = group
    with a.connect() as conn:
        claim(conn, 2, "major", 3, 500, 50, 1)
    assert cli.main(["close-claims", "--dsn", cluster.dsn(), "--group", group_id, "--level", "major",
                     "--generation", "1", "--by", by, "--reason", reason, "--confirm"]) == 2
    assert said in capsys.readouterr().err
    assert admin.execute("SELECT count(*) FROM floor.claim_windows_closed WHERE group_id = %s",
                         (group_id,)).fetchone() == (0,)
