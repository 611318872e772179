"""The forwarder's claimer keeps a final answer until the table's journal holds it: an answer the
engine did not journal (its internal-error path, a halt) is told again, not lost (review finding)."""

from __future__ import annotations

import json
import secrets

import structlog

from controller.floor import table_jackpot
from controller.floor.jackpot import ack_lock, create_group
from controller.floor.table_jackpot import TableJackpot
from controller.store.outbox import Fact
from tests.floor.conftest import make_table

VALUES = {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000}
HIT = {"round_id": 2, "jackpot": "minor", "seat": 1, "bet": 1000, "share_percent": 100, "generation": 1}


def test_a_final_answer_is_told_until_the_journal_holds_it(cluster, admin, tmp_path, monkeypatch):
    a = make_table(cluster, admin, tmp_path, prefix="F")
    group = f"F-{secrets.token_hex(2)}"
    create_group(admin, group, [a.table_id], VALUES, by="Ana", reason="opening")
    monkeypatch.setattr(table_jackpot, "REFUSED_RETRY", 0.0)       # told again at once, for the test
    told: list[tuple[int, str, bool]] = []
    claimer = TableJackpot(group, None, lambda r, lv, answer, refused, for_good: told.append((r, lv, answer["final"])),
                           structlog.get_logger())
    with a.connect() as conn:
        claimer.connected(conn, a.journal)
        claimer.saw([])
        claimer._hits[(2, "minor")] = dict(HIT)     # as read from the journal's jackpot_pending
        claimer.work(conn)                          # claimed: not final yet
        ack_lock(conn, "minor", 1)                  # the group's only table took the lock: final
        claimer.work(conn)
        claimer.work(conn)                          # the engine did not journal it: told again
        assert told == [(2, "minor", False), (2, "minor", True), (2, "minor", True)]
        answer = {"jackpot": "minor", "seat": 1, "final": True, "amount": 250_000}
        claimer.saw([Fact(99, "records", 2, "t", "jackpot_claimed", json.dumps(answer), "p", "d")])
        claimer.work(conn)                          # journaled: nothing more to tell
        assert len(told) == 3
