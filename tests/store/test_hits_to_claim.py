"""What the forwarder still claims after a restart (controller/store/outbox.py hits_to_claim): a
linked hit journaled pending, until its final answer or its referral (settled without the linked
award: claiming it again would only be refused again, every few seconds, for ever)."""

from controller.store.journal import Journal
from controller.store.outbox import hits_to_claim

HIT = {"jackpot": "minor", "seat": 1, "bet": 1000, "share_percent": 100, "generation": 1}


def test_a_pending_hit_is_claimed_until_answered_finally_or_referred(tmp_path):
    journal = Journal(tmp_path / "journal.sqlite")
    try:
        rounds = []
        for _ in range(3):
            with journal.event():
                rid = journal.open_round("sheet-004")
                journal.append(rid, "jackpot_pending", HIT)
            rounds.append(rid)
        with journal.event():
            journal.append(rounds[0], "jackpot_claimed", {"jackpot": "minor", "seat": 1, "claim_order": 1, "winners": 1,
                                                          "amount": 250_000, "generation": 1, "value": 250_000,
                                                          "final": True})
            journal.append(rounds[1], "jackpot_claimed", {"jackpot": "minor", "seat": 1, "refused": "stale"})
            journal.append(rounds[2], "jackpot_claimed", {"jackpot": "minor", "seat": 1, "refused": "stale"})
            journal.append(rounds[2], "jackpot_referred", {"jackpot": "minor", "seat": 1, "refused": "stale",
                                                           "by": "supervisor Ana", "reason": "referred"})
        assert [h["round_id"] for h in hits_to_claim(journal)] == [rounds[1]]
    finally:
        journal.close()
