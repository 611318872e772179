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
