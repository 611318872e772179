"""The linked Super 6 jackpot on the floor (the floor's side; the table's is not built yet): claims
exactly once per table, round and level in one transaction, the first locking the level for the
group (NOTIFY), same-hand claims splitting its value in the floor's recorded order, the split
final only when every table took the lock, and postings by a supervisor under the 24-hour rule."""

from __future__ import annotations

import json
import secrets
import threading
from datetime import timedelta

import psycopg
import pytest

from controller.floor.jackpot import CHANNEL, ack_lock, claim, claims, create_group, post_values
from controller.floor.schema import FloorError
from controller.rules.settlement import split_jackpot
from tests.floor.conftest import make_table

VALUES = {"mega": 10_000_001, "major": 2_500_000, "minor": 250_000}


def _notes_so_far(listener, admin) -> list[dict]:
    """Every note sent on the channel until now, read until a NOTIFY of our own arrives (the server
    delivers notes in the order their transactions committed), not for a fixed time: 0.5 s of
    listening missed notes a loaded machine delivered later, and a note sent twice went unseen."""
    mark = {"mark": secrets.token_hex(4)}
    admin.execute("SELECT pg_notify(%s, %s)", (CHANNEL, json.dumps(mark)))
    notes = []
    for note in listener.notifies(timeout=60):
        if json.loads(note.payload) == mark:
            return notes
        notes.append(json.loads(note.payload))
    raise AssertionError(f"our own note did not arrive within 60 s; before it: {notes}")


@pytest.fixture
def group(cluster, admin, tmp_path):
    tables = [make_table(cluster, admin, tmp_path, prefix="J") for _ in range(3)]
    group_id = f"G-{secrets.token_hex(3)}"
    create_group(admin, group_id, [t.table_id for t in tables], VALUES, by="Ana", reason="opening")
    yield group_id, tables
    for t in tables:
        t.journal.close()


def test_two_tables_hitting_one_level_at_once_split_it_in_the_floors_order(cluster, admin, group):
    group_id, (a, b, c) = group
    with psycopg.connect(cluster.dsn(), autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        start = threading.Barrier(2)
        answers: dict[str, object] = {}

        def hit(table, round_id, share):
            with table.connect() as conn:
                start.wait()
                answers[table.table_id] = claim(conn, round_id, "mega", 3, 500 if share == 50 else 1000, share, 1)
        threads = [threading.Thread(target=hit, args=(a, 7, 100)), threading.Thread(target=hit, args=(b, 12, 50))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        notes = _notes_so_far(listener, admin)
    assert [(n["group"], n["level"], n["state"]) for n in notes] == [(group_id, "mega", "pending")]
    recorded = claims(admin, group_id, "mega", 1)
    assert [r["claim_order"] for r in recorded] == [1, 2] and {r["winners"] for r in recorded} == {2}
    shares = [r["share_percent"] for r in recorded]
    assert [r["amount"] for r in recorded] == split_jackpot(VALUES["mega"], shares)   # the rules engine's split
    assert recorded[0]["claimed_at"] <= recorded[1]["claimed_at"]
    state = admin.execute("SELECT state, pending_since IS NOT NULL FROM floor.jackpot_levels "
                          "WHERE group_id = %s AND level = 'mega'", (group_id,)).fetchone()
    assert state == ("pending", True)
    # the later answer saw both winners; the split is not final until every table took the lock
    assert {answers[a.table_id].winners, answers[b.table_id].winners} >= {2}
    assert not any(answers[t.table_id].final for t in (a, b))


def test_a_resent_claim_is_answered_the_same_and_recorded_once(admin, group):
    group_id, (a, b, c) = group
    with a.connect() as conn:
        first = claim(conn, 4, "minor", 2, 1000, 100, 1)
        again = claim(conn, 4, "minor", 2, 1000, 100, 1)
        assert again == first and (first.claim_order, first.winners, first.amount) == (1, 1, VALUES["minor"])
        with pytest.raises(psycopg.IntegrityError, match=f"table {a.table_id}: round 4: the minor claim was "
                                                         "resent with different content"):
            claim(conn, 4, "minor", 5, 1000, 100, 1)
    assert len(claims(admin, group_id, "minor", 1)) == 1


def test_the_same_claim_sent_twice_at_once_is_recorded_once(cluster, admin, group):
    group_id, (a, b, c) = group
    start = threading.Barrier(4)
    answers = []

    def send():
        with a.connect() as conn:
            start.wait()
            answers.append(claim(conn, 9, "major", 1, 500, 50, 1))
    threads = [threading.Thread(target=send) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert len(answers) == 4 and len(set(answers)) == 1
    assert len(claims(admin, group_id, "major", 1)) == 1


def test_the_split_is_final_when_every_table_took_the_lock_and_then_a_new_value_opens_the_level(admin, group):
    group_id, (a, b, c) = group
    with a.connect() as ca, b.connect() as cb, c.connect() as cc:
        claim(ca, 1, "major", 1, 1000, 100, 1)
        with pytest.raises(FloorError, match=r"MAJOR split of generation 1 is not final: table\(s\) "
                                             f"{a.table_id}, {b.table_id}, {c.table_id}"):
            post_values(admin, group_id, dict(VALUES, major=2_000_000), by="Ana", reason="reseed")
        assert not ack_lock(ca, "major", 1)
        assert not ack_lock(ca, "major", 1)                  # again: idempotent
        assert not ack_lock(cb, "major", 1)
        late = claim(cc, 5, "major", 6, 1000, 100, 1)        # dealt before the lock reached table c
        assert (late.claim_order, late.winners, late.final) == (2, 2, False)
        assert ack_lock(cc, "major", 1)
        assert claim(ca, 1, "major", 1, 1000, 100, 1).final
        assert [r["amount"] for r in claims(admin, group_id, "major", 1)] == [1_250_000, 1_250_000]
        generations = post_values(admin, group_id, dict(VALUES, major=2_000_000), by="Ana", reason="reseed")
        assert generations == {"mega": 1, "major": 2, "minor": 1}
        with pytest.raises(psycopg.IntegrityError, match=f"table {b.table_id}: round 8: dealt under major "
                                                         "generation 1, but the floor posted generation 2"):
            claim(cb, 8, "major", 2, 1000, 100, 1)
        assert claim(cb, 8, "major", 2, 1000, 100, 2).amount == 2_000_000
    postings = admin.execute("SELECT generation, value, posted_by, reason FROM floor.jackpot_postings "
                             "WHERE group_id = %s AND level = 'major' ORDER BY generation", (group_id,)).fetchall()
    assert postings == [(1, 2_500_000, "Ana", "opening"), (2, 2_000_000, "Ana", "reseed")]


def test_values_change_at_most_once_a_day_without_a_win(admin, group):
    group_id, _ = group
    with pytest.raises(FloorError, match=f"group {group_id}: the values were last posted at .* 24 hours"):
        post_values(admin, group_id, dict(VALUES, minor=300_000), by="Ana", reason="promotion")
    now = admin.execute("SELECT now()").fetchone()[0]
    assert post_values(admin, group_id, dict(VALUES, minor=300_000), by="Ana", reason="promotion",
                       now=now + timedelta(hours=25)) == {"mega": 1, "major": 1, "minor": 2}
    with pytest.raises(FloorError, match="MEGA >= MAJOR >= MINOR"):
        post_values(admin, group_id, dict(VALUES, minor=9_000_000), by="Ana", reason="typo")


def test_only_a_table_in_the_group_claims_and_only_for_itself(cluster, admin, group, tmp_path):
    loner = make_table(cluster, admin, tmp_path, prefix="L")
    with loner.connect() as conn, pytest.raises(psycopg.IntegrityError, match=f"table {loner.table_id}: round 1: "
                                                                              "the table is in no jackpot group"):
        claim(conn, 1, "mega", 1, 1000, 100, 1)
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="only a table's role claims"):
        claim(admin, 1, "mega", 1, 1000, 100, 1)
    _, (a, _, _) = group
    with a.connect() as conn:
        for statement in ("UPDATE floor.jackpot_levels SET state = 'open'", "DELETE FROM floor.jackpot_claims",
                          "INSERT INTO floor.lock_acks (group_id, level, generation, table_id) "
                          "VALUES ('x', 'mega', 1, 'y')"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()
    loner.journal.close()


def test_the_acknowledgement_that_makes_a_split_final_is_heard_by_every_table_at_once(cluster, admin, group):
    """ack_lock NOTIFYs the group when it made the split final (state "final"), once: the tables
    ask for their final answer then, not at their next poll; earlier acks and repeats say nothing."""
    group_id, (a, b, c) = group
    with psycopg.connect(cluster.dsn(), autocommit=True) as listener, \
            a.connect() as ca, b.connect() as cb, c.connect() as cc:
        listener.execute(f"LISTEN {CHANNEL}")
        claim(ca, 1, "minor", 1, 1000, 100, 1)
        for conn in (ca, cb):
            assert not ack_lock(conn, "minor", 1)
        assert ack_lock(cc, "minor", 1) and ack_lock(cc, "minor", 1)       # final; the repeat adds no ack
        notes = _notes_so_far(listener, admin)
    finals = [n for n in notes if n.get("state") == "final"]
    assert finals == [{"group": group_id, "level": "minor", "state": "final", "generation": 1}]


def test_a_floor_supervisor_closes_the_claims_a_cut_off_table_holds_up(cluster, admin, group):
    """A table of the group never takes the lock (cut off, closed for the night): the winner would
    wait for ever. A floor supervisor closes the generation's claims with a reason: the split is
    final among the claims received (the group told at once), a later claim of that generation is
    refused in words (its table settles it without the linked award), and new values may be
    posted although that table never acknowledged."""
    from controller.floor.jackpot import close_claims
    group_id, (a, b, c) = group
    with psycopg.connect(cluster.dsn(), autocommit=True) as listener, \
            a.connect() as ca, b.connect() as cb, c.connect() as cc:
        listener.execute(f"LISTEN {CHANNEL}")
        assert not claim(ca, 1, "minor", 1, 1000, 100, 1).final
        for conn in (ca, cb):
            assert not ack_lock(conn, "minor", 1)                      # table c is cut off
        with pytest.raises(FloorError, match="names who closes them and why"):
            close_claims(admin, group_id, "minor", 1, by="Ana", reason=" ")
        with pytest.raises(FloorError, match="MAJOR generation 1 of group .* has no claims waiting"):
            close_claims(admin, group_id, "major", 1, by="Ana", reason="table 3 down")
        closed = close_claims(admin, group_id, "minor", 1, by="Ana", reason="table J3 cut off since 02:10")
        assert [(r["claim_order"], r["winners"], r["amount"]) for r in closed] == [(1, 1, 250_000)]
        assert claim(ca, 1, "minor", 1, 1000, 100, 1).final               # the winner's answer: final
        with pytest.raises(psycopg.IntegrityError, match=f"table {c.table_id}: round 4: the floor closed the "
                                                         "claims of minor generation 1 before this one came"):
            claim(cc, 4, "minor", 6, 1000, 100, 1)
        notes = _notes_so_far(listener, admin)
        assert {"group": group_id, "level": "minor", "state": "final", "generation": 1} in notes
        with pytest.raises(FloorError, match="has no claims waiting"):
            close_claims(admin, group_id, "minor", 1, by="Ana", reason="again")
    assert post_values(admin, group_id, dict(VALUES, minor=200_000), by="Ana", reason="reseed")["minor"] == 2
    row = admin.execute("SELECT closed_by, reason FROM floor.claim_windows_closed WHERE group_id = %s",
                        (group_id,)).fetchone()
    assert row == ("Ana", "table J3 cut off since 02:10")


def test_close_claims_from_the_command_line(cluster, admin, group):
    import subprocess
    import sys

    from tests.support import ROOT
    group_id, (a, _, _) = group
    with a.connect() as ca:
        claim(ca, 2, "major", 3, 500, 50, 1)
    command = [sys.executable, "-m", "controller.floor", "close-claims", "--dsn", cluster.dsn(), "--group", group_id,
               "--level", "major", "--generation", "1", "--by", "Ana", "--reason", "table down"]
    preview = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert preview.returncode == 2 and preview.stderr == "table-floor: nothing closed: add --confirm to close them\n"
    assert preview.stdout.splitlines()[:2] == [
        f"MAJOR generation 1 of group {group_id}: closing would make the split final among 1 claim(s) received",
        "tables that have not taken the lock: " + ", ".join(sorted(t.table_id for t in group[1]))]
    command.append("--confirm")
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"MAJOR generation 1 of group {group_id}: claims closed by Ana; the split is final among 1 claim(s)",
        f"  1. table {a.table_id}, round 2, position 3: $12,500.00"]
    again = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert again.returncode == 2 and "has no claims waiting to be made final" in again.stderr


def test_the_demos_supervisor_closes_only_a_split_that_waits_for_stopped_tables(cluster, admin, group):
    """``table-floor demo``: a table that finished its rounds before a lock reached it can never take
    it; the demo closes that split as a pit's supervisor would, and never one a running table may
    still acknowledge (its claim would be refused)."""
    from controller.floor.demo import close_claims_of_stopped_tables
    group_id, (a, b, c) = group
    with a.connect() as ca, b.connect() as cb:
        assert not claim(ca, 3, "minor", 1, 1000, 100, 1).final
        assert not ack_lock(ca, "minor", 1) and not ack_lock(cb, "minor", 1)
        assert close_claims_of_stopped_tables(admin, group_id, set()) == []
        assert close_claims_of_stopped_tables(admin, group_id, {a.table_id, b.table_id}) == []  # c still plays
        assert claims(admin, group_id, "minor", 1)[0]["claim_order"] == 1
        assert not claim(ca, 3, "minor", 1, 1000, 100, 1).final
        assert close_claims_of_stopped_tables(admin, group_id, {c.table_id}) == ["minor/1"]
        assert claim(ca, 3, "minor", 1, 1000, 100, 1).final
        assert close_claims_of_stopped_tables(admin, group_id, {c.table_id}) == []              # once
    row = admin.execute("SELECT closed_by, reason FROM floor.claim_windows_closed WHERE group_id = %s",
                        (group_id,)).fetchone()
    assert row == ("demo supervisor", f"table(s) {c.table_id} stopped before taking the lock")
