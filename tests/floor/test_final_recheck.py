"""A table sends its paid final claims again after every reconnect and compares the floor's answer
with the one it paid (issue 32): a floor that lost a claim (a failover to a standby that had not
received it, a restore) and then gave the whole value to a later claim is caught, alerted and
journaled at the table, and the lost claim is recorded again."""

from __future__ import annotations

import json
import secrets
from dataclasses import asdict

import structlog

from controller.engine_events import FinalClaimDiffers
from controller.floor.jackpot import ack_lock, claim, claims, create_group
from controller.floor.table_jackpot import TableJackpot
from tests.floor.conftest import make_table
from tests.round.test_linked_jackpot import on_the_floor

VALUES = {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000}
HIT = {"jackpot": "minor", "seat": 1, "bet": 1000, "share_percent": 100, "generation": 1}


def paid_hit(table, conn) -> tuple[int, dict]:
    """A MINOR hit journaled, claimed, made final on the floor and its final answer journaled (paid)."""
    rid = table.journal.open_round("sheet-004")
    table.journal.append(rid, "jackpot_pending", HIT)
    answer = asdict(claim(conn, rid, "minor", 1, 1000, 100, 1))
    return rid, answer


def test_a_claim_the_floor_lost_after_it_was_paid_is_caught_at_the_next_connect(cluster, admin, tmp_path):
    a, b = (make_table(cluster, admin, tmp_path, prefix="R") for _ in range(2))
    group = f"R-{secrets.token_hex(2)}"
    create_group(admin, group, [a.table_id, b.table_id], VALUES, by="Ana", reason="opening")
    differs: list[tuple] = []
    claimer = TableJackpot(group, None, None, structlog.get_logger(), lambda *told: differs.append(told))
    with a.connect() as ca, b.connect() as cb:
        ca.autocommit = cb.autocommit = True                # the administrator's changes below must not wait
        rid, _ = paid_hit(a, ca)
        ack_lock(ca, "minor", 1)
        ack_lock(cb, "minor", 1)
        final = asdict(claim(ca, rid, "minor", 1, 1000, 100, 1))
        assert final["final"] and final["amount"] == 250_000
        a.journal.append(rid, "jackpot_claimed", dict(final, jackpot="minor", seat=1))    # paid on it
        claimer.connected(ca, a.journal)
        claimer.work(ca)                                    # the floor holds it as paid: nothing to say
        assert differs == []
        # a failover to a standby that never received A's claim: the floor forgot it, then B hit
        admin.execute("DELETE FROM floor.final_splits WHERE group_id = %s", (group,))
        admin.execute("DELETE FROM floor.lock_acks WHERE group_id = %s", (group,))
        admin.execute("DELETE FROM floor.jackpot_claims WHERE group_id = %s", (group,))
        admin.execute("UPDATE floor.jackpot_levels SET state = 'open' WHERE group_id = %s", (group,))
        assert claim(cb, 9, "minor", 2, 1000, 100, 1).amount == 250_000           # B alone: the whole value
        claimer.connected(ca, a.journal)                    # A reconnects
        claimer.work(ca)
    assert len(differs) == 1
    round_id, level, paid, answer, refused = differs[0]
    assert (round_id, level, refused) == (rid, "minor", None)
    assert paid == final and (answer["claim_order"], answer["winners"], answer["amount"], answer["final"]) == \
        (2, 2, 125_000, False)
    # the floor holds A's claim again: it now accounts for both winners instead of B alone
    assert [(c["table_id"], c["amount"]) for c in claims(admin, group, "minor", 1)] == \
        [(b.table_id, 125_000), (a.table_id, 125_000)]
    a.journal.close()
    b.journal.close()


def test_the_table_alerts_and_journals_a_final_answer_that_differs(tmp_path):
    bench = on_the_floor(tmp_path)
    paid = {"claim_order": 1, "winners": 1, "amount": 250_000, "generation": 1, "value": 250_000, "final": True}
    now = dict(paid, claim_order=2, winners=2, amount=125_000, final=False)
    bench.post(FinalClaimDiffers(4, "minor", paid, now))
    fact = [json.loads(d) for (d,) in bench.journal.db.execute(
        "SELECT data FROM table_events WHERE kind = 'jackpot_final_differs'")]
    assert fact == [{"round": 4, "jackpot": "minor", "paid": paid, "answer": now, "refused": None}]
    said = [a["message"] for a in bench.snap["alerts"] if a["kind"] == "jackpot_final_differs"]
    assert said == ["The floor no longer holds the MINOR claim of round 4 as paid ($2,500.00, 1 winner(s), final): "
                    "it now answers $1,250.00, 2 winner(s), not final. Call the floor's administrator"]
