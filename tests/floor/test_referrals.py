"""A linked win the floor refuses for good (docs/floor-jackpot.md): the refusals no mending can undo
have their own SQLSTATEs, only they may be settled at the table without the award, and the win so
settled is held on the floor as owed (``floor.linked_hits``, ``table-floor hits``); a floor
supervisor closing a generation's claims is first shown what it would do."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys

import psycopg
import pytest

from controller.floor.jackpot import ack_lock, claim, close_claims, create_group, linked_hits, post_values
from tests.floor.conftest import make_table
from tests.floor.remote_table import RemoteTable
from tests.floor.test_linked_claims import claim as claim_of
from tests.floor.test_linked_claims import dealt_with_a_royal, group_of, supervisor
from tests.support import ROOT

VALUES = {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000}


def test_each_refusal_says_whether_mending_the_floor_could_make_the_claim_stand(cluster, admin, tmp_path):
    tables = [make_table(cluster, admin, tmp_path, prefix="R") for _ in range(3)]
    a, b, stray = tables
    group_id = f"G-{secrets.token_hex(3)}"
    create_group(admin, group_id, [a.table_id, b.table_id], VALUES, by="Ana", reason="opening")
    try:
        with a.connect() as ca, b.connect() as cb, stray.connect() as cs:
            with pytest.raises(psycopg.IntegrityError, match="the table is in no jackpot group") as mendable:
                claim(cs, 1, "minor", 1, 1000, 100, 1)
            assert mendable.value.sqlstate == "23000"         # the administrator adds it: the claim then stands
            claim(ca, 1, "minor", 1, 1000, 100, 1)
            with pytest.raises(psycopg.IntegrityError, match="resent with different content") as differs:
                claim(ca, 1, "minor", 2, 1000, 100, 1)
            ack_lock(ca, "minor", 1)
            close_claims(admin, group_id, "minor", 1, by="Ana", reason="table down")
            with pytest.raises(psycopg.IntegrityError, match="closed the claims") as closed:
                claim(cb, 7, "minor", 3, 500, 50, 1)
            # MINOR reseeded and MAJOR raised: a MAJOR hit dealt under generation 1 comes after it
            post_values(admin, group_id, dict(VALUES, minor=200_000, major=2_600_000), by="Ana", reason="reseed")
            with pytest.raises(psycopg.IntegrityError, match="posted generation 2 since") as replaced:
                claim(cb, 8, "major", 3, 500, 50, 1)
        assert (differs.value.sqlstate, closed.value.sqlstate, replaced.value.sqlstate) == ("23J03", "23J01", "23J02")
        from controller.floor.table_jackpot import REFUSED_FOR_GOOD
        assert REFUSED_FOR_GOOD == {"23J01", "23J02", "23J03", "23J04"} and "23000" not in REFUSED_FOR_GOOD
    finally:
        for t in tables:
            t.journal.close()


def floor(*words: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.floor", *words], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)


def test_a_win_refused_for_good_is_settled_without_the_award_and_held_on_the_floor_as_owed(cluster, admin, tmp_path):
    """A's MINOR locks the level; B's royal was dealt before the lock reached it, but a floor
    supervisor closes the claims first (shown what that does, then confirming): B's claim is refused
    for good, B's supervisor settles it without the award, and the floor's records hold it as owed."""
    group, enrolled = group_of(cluster, admin, tmp_path, 2)
    a, b = (RemoteTable(config) for _, config in enrolled)
    (a_id, _), (b_id, _) = enrolled
    try:
        dealt_with_a_royal(a, 1000)
        dealt_with_a_royal(b, 1000)                 # dealt before the lock: may claim the same hand
        a.reveal()
        a.wait(lambda s: claim_of(s) is not None, 20, "A's claim answered")
        b.wait(lambda s: s["jackpot"].get("locked") == ["minor"], 20, "B took the lock")
        close = ["close-claims", "--dsn", cluster.dsn(), "--group", group, "--level", "minor", "--generation", "1",
                 "--by", "Ana", "--reason", f"table {b_id} cut off"]
        preview = floor(*close)
        assert preview.returncode == 2 and "nothing closed: add --confirm" in preview.stderr
        assert f"tables that have not taken the lock: {b_id}" in preview.stdout
        assert admin.execute("SELECT count(*) FROM floor.claim_windows_closed WHERE group_id = %s",
                             (group,)).fetchone() == (0,)
        done = floor(*close, "--confirm")
        assert done.returncode == 0, done.stderr
        b.reveal()
        snap = b.wait(lambda s: s["jackpot_claims"] and s["jackpot_claims"][0]["floor"].startswith("refused"), 20,
                      "B's claim refused")
        assert "closed the claims of minor generation 1" in snap["jackpot_claims"][0]["floor"]
        refused_fact = b.records_of("jackpot_claimed", snap["round"])[-1]
        assert refused_fact["for_good"] is True
        supervisor(b, "verify_jackpot", reason="six cards checked")        # the evidence of what is owed
        supervisor(b, "refer_jackpot", reason="claims closed while cut off; referred to the pit")
        b.act("confirm", position=1)
        b.state("complete")
        referred = b.records_of("jackpot_referred", snap["round"])
        assert [(r["jackpot"], r["seat"], r["by"]) for r in referred] == [("minor", 1, "supervisor Ana")]
        # the floor holds it as owed once B's records arrive (forwarded like every record)
        b.eventually(lambda: [h["state"] for h in linked_hits(admin, group) if h["table_id"] == b_id] == ["referred"],
                     20, "B's referral on the floor")
        hits = {h["table_id"]: h for h in linked_hits(admin, group)}
        assert (hits[b_id]["referred_by"], hits[b_id]["referral_reason"], hits[b_id]["bet"]) == \
            ("supervisor Ana", "claims closed while cut off; referred to the pit", 1000)
        assert hits[b_id]["refused"].endswith("before this one came")
        assert (hits[a_id]["state"], hits[a_id]["amount"], hits[a_id]["final"]) == ("claimed", 250_000, True)
        listed = floor("hits", "--dsn", cluster.dsn(), "--group", group, "--state", "referred")
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.splitlines() == [
            f"{group} MINOR generation 1: table {b_id} round {snap['round']} position 1 (bet $10.00): referred by the "
            f"supervisor Ana (claims closed while cut off; referred to the pit); the floor refused: "
            f"{hits[b_id]['refused']}: OWED by the floor's decision"]
        as_json = json.loads(floor("hits", "--dsn", cluster.dsn(), "--group", group, "--json").stdout)
        assert [(h["table_id"], h["state"]) for h in as_json] == [(a_id, "claimed"), (b_id, "referred")]
    finally:
        a.close()
        b.close()
