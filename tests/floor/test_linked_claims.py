"""The linked Super 6 jackpot's table side (docs/floor-jackpot.md): whole tables in the test process on
simulated devices, their forwarders against the session's real PostgreSQL. A hit is journaled
as pending, claimed on the floor, paid only the floor's final amount after a supervisor verified
the cards; same-hand hits at two tables split the value in the floor's order; a claim whose
answer the table lost is claimed again and paid once; a hit while the floor is out of reach is
claimed when it is back; new values are posted on the floor and taken between rounds."""

from __future__ import annotations

import json
import secrets
import signal

import psycopg
import pytest

from controller.floor.jackpot import claims, create_group, post_values
from controller.rules.cards import parse_card
from controller.rules.paytable import load_preset
from controller.rules.roundio import settle_json
from controller.store.failpoints import Failpoints
from controller.store.journal import Journal
from controller.store.recall import recall_round
from tests.floor.conftest import enroll_table, start_table
from tests.floor.remote_table import RemoteTable

VALUES = {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000}     # as tests/support/rig.py configures
ROYAL = ("Ah", "Kh", "Qh", "Jh", "Th", "2c")    # position 1: Ah Kh Qh, the dealer Jh 10h 2c: MINOR


def group_of(cluster, admin, tmp_path, count: int):
    group = f"G-{secrets.token_hex(3)}"
    folders = [tmp_path / f"table-{n}" for n in range(count)]
    for folder in folders:
        folder.mkdir()
    enrolled = [enroll_table(cluster, admin, folder, group) for folder in folders]
    create_group(admin, group, [table_id for table_id, _ in enrolled], VALUES, by="Ana", reason="opening")
    return group, enrolled


def dealt_with_a_royal(rig, super6: int) -> None:
    """A round with Super 6 at position 1 dealt and played, the dealer's hand not yet revealed (``rig``
    a table in this process, or in its own)."""
    rig.wait(lambda s: s["state"] == "ready" and s["jackpot"]["super6_closed"] is None, 20,
             "ready, Super 6 open (the floor's values taken and shown)")
    if isinstance(rig, RemoteTable):
        rig.stack(list(ROYAL))
    else:
        rig.sim.shoe.planned = [parse_card(c) for c in ROYAL]
    rig.open_and_bet({1: {"ante": 500, "super6": super6}})
    rig.deal()
    rig.state("decisions")
    rig.play(1)
    rig.state("collecting")


def claim(snap) -> dict | None:
    return snap["jackpot_claims"][0]["claim"] if snap["jackpot_claims"] else None


def final(snap) -> bool:
    return bool((claim(snap) or {}).get("final"))


def supervisor(rig, action: str, **args):
    return rig.act(action, role="supervisor", who="supervisor Ana", **args)


def test_two_tables_hitting_minor_in_rounds_dealt_before_the_lock_split_it_and_are_paid_only_when_final(
        cluster, admin, tmp_path):
    group, enrolled = group_of(cluster, admin, tmp_path, 2)
    a, b = (RemoteTable(config) for _, config in enrolled)     # each table in its own process
    try:
        dealt_with_a_royal(a, 1000)                 # $10: 100% of its part
        dealt_with_a_royal(b, 500)                  # $5: 50% of its part; dealt before any lock
        snap = a.reveal()
        assert a.records_of("jackpot_pending", snap["round"]) == \
            [{"jackpot": "minor", "seat": 1, "bet": 1000, "share_percent": 100, "generation": 1}]
        snap = a.wait(lambda s: claim(s) is not None, 20, "A's claim answered by the floor")
        assert claim(snap) == {"claim_order": 1, "winners": 1, "amount": 250_000, "generation": 1, "value": 250_000,
                               "final": False}
        assert snap["jackpot"]["locked"] == ["minor"]
        # the lock reached B while its round, dealt before it, is open: JACKPOT PENDING, and no ack yet
        snap_b = b.wait(lambda s: s["jackpot"].get("locked") == ["minor"], 20, "B took the lock")
        assert snap_b["jackpot"]["super6_closed"].startswith("JACKPOT PENDING: MINOR won on the floor")
        b.eventually(lambda: "MINOR PENDING" in b.sign(), 10, "JACKPOT PENDING on B's sign")
        b.eventually(lambda: _acked(admin, group) == {enrolled[0][0]}, 20, "A's ack (its own round claimed)")
        # A: the cards verified, still not paid: the split is not final while B may claim
        supervisor(a, "verify_jackpot", reason="six cards checked")
        assert "waits for the floor's final amount" in a.refused("confirm", position=1)
        assert any(line.startswith("JACKPOT PENDING: MINOR at position 1") for line in a.snap["prompt"])
        b.reveal()                                  # B's royal: the same hand
        snap_b = b.wait(final, 20, "B's final claim")
        snap = a.wait(final, 20, "A's final claim")
        assert (claim(snap)["claim_order"], claim(snap)["winners"], claim(snap)["amount"]) == (1, 2, 125_000)
        assert (claim(snap_b)["claim_order"], claim(snap_b)["winners"], claim(snap_b)["amount"]) == (2, 2, 62_500)
        # B: final, but nothing is paid before a supervisor verified the six cards
        assert "a supervisor verifies the six cards" in b.refused("confirm", position=1)
        supervisor(b, "verify_jackpot", reason="six cards checked")
        for rig, amount in ((a, 125_000), (b, 62_500)):
            round_id = rig.snap["round"]
            rig.act("confirm", position=1)
            rig.state("complete")
            settlements = rig.records_of("settlement", round_id)
            seat = settlements[-1]["seats"][0]           # the round's last settlement: the floor's amount
            assert seat["results"]["super6"] == amount and settlements[-1]["jackpot_hits"][0]["final"]
            assert [p["net"] for p in rig.records_of("paid", round_id)] == [seat["net"]]
            first = settlements[0]["seats"][0]           # the table's own arithmetic, never paid
            assert first["net"] - seat["net"] == first["results"]["super6"] - amount
            assert rig.snap["jackpot"]["hits"][0]["amount"] == amount
        recorded = claims(admin, group, "minor", 1)
        assert [(r["table_id"], r["claim_order"], r["amount"]) for r in recorded] == \
            [(enrolled[0][0], 1, 125_000), (enrolled[1][0], 2, 62_500)]
        # recall | settle, independently: the floor's split from the recalled round, not one winner's
        for (_, config), rig, amount in ((enrolled[0], a, 125_000), (enrolled[1], b, 62_500)):
            journal = Journal.read_only(config.parent / "data" / "journal.sqlite", keyed=False)
            try:
                doc = recall_round(journal, rig.snap["round"])
            finally:
                journal.close()
            assert doc["linked"] == {"minor": {"value": 250_000, "winners": 2, "order": 1 if amount == 125_000 else 2}}
            again = settle_json(json.loads(json.dumps(doc)), load_preset, None)
            assert [s["results"]["super6"] for s in again["seats"]] == [amount]
            assert [s["net"] for s in again["seats"]] == [s["net"] for s in doc["table"]["results"]]
        # Super 6 stays closed until the floor posts MINOR anew; each table takes it between rounds
        assert a.snap["jackpot"]["super6_closed"].startswith("JACKPOT PENDING")
        post_values(admin, group, dict(VALUES, minor=200_000), by="Ana", reason="reseed after MINOR")
        for rig in (a, b):
            snap = rig.wait(lambda s: s["jackpot"]["super6_closed"] is None, 20, "Super 6 open at the new value")
            assert snap["jackpots"]["minor"] == 200_000 and snap["jackpot"]["generations"]["minor"] == 2
            shown = rig.sign()
            assert "MINOR $2,000.00" in shown and "PENDING" not in shown
        posted = [d for k, d in a.table_events() if k == "jackpot_posted"][-1]
        assert (posted["by"], posted["reason"], posted["generations"]["minor"]) == \
            ("floor (Ana)", "reseed after MINOR", 2)
    finally:
        a.close()
        b.close()


def test_a_claim_whose_answer_the_table_lost_is_claimed_again_after_the_restart_and_paid_once(
        cluster, admin, tmp_path):
    group, [(table_id, config)] = group_of(cluster, admin, tmp_path, 1)
    rig = start_table(config)
    try:
        # the commit that would journal the floor's answer fails: the table stops there, as if killed
        rig.journal.failpoints = Failpoints("journal.record=jackpot_claimed:fail")
        dealt_with_a_royal(rig, 1000)
        rig.reveal()
        rig.wait(lambda s: s["halted"], 20, "the table stopped at the failed commit")
        assert [r.kind for r in rig.records("jackpot_pending")] == ["jackpot_pending"]
        assert rig.records("jackpot_claimed") == []
        assert len(claims(admin, group, "minor", 1)) == 1        # the floor recorded the claim
    finally:
        rig.run.stop()
    again = start_table(config)                     # the next start finds the pending hit in its journal
    try:
        snap = again.wait(lambda s: s["state"] == "settling" and final(s), 30, "the claim again, final")
        assert claim(snap) == {"claim_order": 1, "winners": 1, "amount": 250_000, "generation": 1,
                               "value": 250_000, "final": True}
        supervisor(again, "verify_jackpot", reason="six cards checked")
        round_id = snap["round"]
        again.act("confirm", position=1)
        again.state("complete")
        assert [p.data["position"] for p in again.records("paid", round_id)] == [1]
        assert again.records("settlement", round_id)[-1].data["seats"][0]["results"]["super6"] == 250_000
    finally:
        again.run.stop()
    recorded = claims(admin, group, "minor", 1)
    assert [(r["table_id"], r["round_id"], r["amount"]) for r in recorded] == [(table_id, round_id, 250_000)]


def test_a_table_killed_between_its_hit_and_its_claim_claims_at_its_next_start_and_is_paid_once(
        cluster, admin, tmp_path):
    group, [(table_id, config)] = group_of(cluster, admin, tmp_path, 1)
    # SIGKILL right after the commit that holds the hit: its forwarder had no time to claim it
    rig = RemoteTable(config, failpoints="journal.record=jackpot_pending:kill")
    try:
        dealt_with_a_royal(rig, 1000)
        with pytest.raises(AssertionError, match="the remote table died"):
            rig.reveal()
        assert rig.proc.wait(20) == -signal.SIGKILL
    finally:
        rig.close()
    again = RemoteTable(config)
    try:
        snap = again.wait(lambda s: s["state"] == "settling" and final(s), 30, "claimed at the restart, final")
        round_id = snap["round"]
        assert [h["generation"] for h in again.records_of("jackpot_pending", round_id)] == [1]
        supervisor(again, "verify_jackpot", reason="six cards checked")
        again.act("confirm", position=1)
        again.state("complete")
        assert [p["position"] for p in again.records_of("paid", round_id)] == [1]
        assert again.records_of("settlement", round_id)[-1]["seats"][0]["results"]["super6"] == 250_000
    finally:
        again.close()
    recorded = claims(admin, group, "minor", 1)
    assert [(r["table_id"], r["round_id"], r["claim_order"]) for r in recorded] == [(table_id, round_id, 1)]


def test_a_hit_while_the_floor_is_out_of_reach_is_shown_pending_and_claimed_when_it_is_back(cluster, admin,
                                                                                            tmp_path):
    group, [(table_id, config)] = group_of(cluster, admin, tmp_path, 1)
    rig = start_table(config)
    try:
        rig.wait(lambda s: s["state"] == "ready" and s["jackpot"]["super6_closed"] is None, 20, "Super 6 open")
        # a linked table's values are posted on the floor: the table's own posting is refused
        assert "set_jackpots" not in rig.snap["actions"]
        refused = rig.engine.act("set_jackpots", role="supervisor", reason="promotion", **dict(VALUES, minor=300_000))
        assert not refused.ok and refused.message.startswith(f"this table's jackpot is linked (group {group}): "
                                                             "its values are posted on the floor")
        dealt_with_a_royal(rig, 1000)
        cluster.stop()
        rig.wait(lambda s: (s["jackpot"]["super6_closed"] or "").startswith("the floor link is down"), 15,
                 "Super 6 closed by the outage")
        snap = rig.reveal()
        hit = snap["jackpot_claims"][0]
        assert (hit["jackpot"], hit["seat"], hit["floor"], hit["claim"]) == ("minor", 1, "waiting for the floor", None)
        assert snap["jackpot_pending"][0]["amount"] is None         # no amount before the floor states it
        supervisor(rig, "verify_jackpot", reason="six cards checked")
        assert "waits for the floor's final amount" in rig.refused("confirm", position=1)
        cluster.start()
        snap = rig.wait(final, 30, "claimed once the floor is back, and final")
        assert claim(snap)["amount"] == 250_000
        rig.act("confirm", position=1)
        rig.state("complete")
    finally:
        if not cluster.running():
            cluster.start()
        rig.run.stop()
    with psycopg.connect(cluster.dsn(), autocommit=True) as conn:    # the restart ended the admin's connection
        assert [r["table_id"] for r in claims(conn, group, "minor", 1)] == [table_id]


def _acked(admin, group: str) -> set[str]:
    return {t for (t,) in admin.execute("SELECT table_id FROM floor.lock_acks WHERE group_id = %s", (group,))}
