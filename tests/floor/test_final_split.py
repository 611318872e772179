"""A split the floor called final stays final (issue 32): finality is recorded once, when every
table of the group has taken the lock or a supervisor closed the claims, never recomputed from the
group's membership; a claim after it is refused for good (23J04); the group's membership is frozen
while a level is pending."""

from __future__ import annotations

import secrets

import psycopg
import pytest

from controller.floor.jackpot import ack_lock, claim, claims, close_claims, create_group, join_group, post_values
from controller.floor.schema import FloorError
from tests.floor.conftest import make_table

VALUES = {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000}


@pytest.fixture
def e1_e2(cluster, admin, tmp_path):
    tables = [make_table(cluster, admin, tmp_path, prefix="E") for _ in range(3)]
    group_id = f"E-{secrets.token_hex(3)}"
    create_group(admin, group_id, [t.table_id for t in tables[:2]], VALUES, by="Ana", reason="opening")
    yield group_id, tables
    for t in tables:
        t.journal.close()


def test_a_claim_after_the_split_was_final_is_refused_for_good_and_the_paid_answer_stands(admin, e1_e2):
    group_id, (e1, e2, _) = e1_e2
    with e1.connect() as c1, e2.connect() as c2:
        first = claim(c1, 3, "minor", 1, 1000, 100, 1)
        assert (first.winners, first.amount, first.final) == (1, 250_000, False)
        assert not ack_lock(c1, "minor", 1)
        assert ack_lock(c2, "minor", 1)                     # the last table of the group: final
        paid = claim(c1, 3, "minor", 1, 1000, 100, 1)
        assert (paid.winners, paid.amount, paid.final) == (1, 250_000, True)     # E1 pays $2,500.00
        with pytest.raises(psycopg.IntegrityError, match=f"table {e2.table_id}: round 5: the floor made the "
                                                         "minor split of generation 1 final") as refused:
            claim(c2, 5, "minor", 2, 1000, 100, 1)
        assert refused.value.sqlstate == "23J04"
        assert claim(c1, 3, "minor", 1, 1000, 100, 1) == paid          # E1's answer never changes
    assert [(c["table_id"], c["amount"]) for c in claims(admin, group_id, "minor", 1)] == [(e1.table_id, 250_000)]
    made = admin.execute("SELECT how, tables FROM floor.final_splits WHERE group_id = %s AND level = 'minor' "
                         "AND generation = 1", (group_id,)).fetchone()
    assert made == ("locks", sorted([e1.table_id, e2.table_id]))


def test_the_groups_membership_is_frozen_while_a_level_is_pending(admin, e1_e2):
    group_id, (e1, e2, e3) = e1_e2
    with e1.connect() as c1:
        claim(c1, 3, "minor", 1, 1000, 100, 1)
    with pytest.raises(FloorError, match=f"table {e3.table_id} cannot join group {group_id} while its MINOR "
                                         "jackpot \\(generation 1\\) is pending"):
        join_group(admin, e3.table_id, group_id)
    with pytest.raises(FloorError, match=f"table {e2.table_id} cannot leave group {group_id} while its MINOR"):
        join_group(admin, e2.table_id, None)
    with pytest.raises(psycopg.errors.ObjectNotInPrerequisiteState):   # the rule is the database's own
        admin.execute("DELETE FROM floor.group_tables WHERE table_id = %s", (e2.table_id,))
    members = admin.execute("SELECT table_id FROM floor.group_tables WHERE group_id = %s ORDER BY 1",
                            (group_id,)).fetchall()
    assert [m for (m,) in members] == sorted([e1.table_id, e2.table_id])


def test_a_final_split_stays_final_when_the_group_changes_after_new_values(admin, e1_e2):
    group_id, (e1, e2, e3) = e1_e2
    with e1.connect() as c1, e2.connect() as c2:
        claim(c1, 3, "minor", 1, 1000, 100, 1)
        ack_lock(c1, "minor", 1)
        ack_lock(c2, "minor", 1)
        paid = claim(c1, 3, "minor", 1, 1000, 100, 1)
        post_values(admin, group_id, dict(VALUES, minor=300_000), by="Ana", reason="reseed after MINOR")
        join_group(admin, e3.table_id, group_id)            # the level is open again: the group may change
        again = claim(c1, 3, "minor", 1, 1000, 100, 1)      # its table re-sends it after a reconnect
    assert again == paid                                    # still final, still the generation's value
    assert admin.execute("SELECT floor.split_final(%s, 'minor', 1)", (group_id,)).fetchone() == (True,)


def test_closing_the_claims_records_the_split_final_and_a_later_claim_keeps_its_own_refusal(admin, e1_e2):
    group_id, (e1, e2, _) = e1_e2
    with e1.connect() as c1, e2.connect() as c2:
        claim(c1, 3, "minor", 1, 1000, 100, 1)
        close_claims(admin, group_id, "minor", 1, by="Ana", reason="table E2 cut off")
        with pytest.raises(psycopg.IntegrityError, match="the floor closed the claims") as refused:
            claim(c2, 5, "minor", 2, 1000, 100, 1)
        assert refused.value.sqlstate == "23J01"
        assert ack_lock(c2, "minor", 1)                     # a late acknowledgement changes nothing
    made = admin.execute("SELECT how, tables FROM floor.final_splits WHERE group_id = %s AND level = 'minor'",
                         (group_id,)).fetchone()
    assert made == ("closed", sorted([e1.table_id, e2.table_id]))
