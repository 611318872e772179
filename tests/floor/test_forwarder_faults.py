"""The forwarder's thread against a floor or a journal that answers something odd (the test lab's,
session 18): whatever it meets, it says so and goes on; it never dies with the link up and the
table's facts left unsent."""

from __future__ import annotations

import dataclasses
import secrets
import sqlite3

from controller.floor import forwarder as forwarder_module
from controller.floor.forwarder import Forwarder
from controller.floor.jackpot import create_group
from controller.store.outbox import chain_end
from tests.floor.conftest import play

VALUES = {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000}
HIT = {"jackpot": "minor", "seat": 1, "bet": 1000, "share_percent": 100, "generation": 1}


def test_a_claim_the_floor_answers_with_no_row_is_told_as_refused_and_forwarding_goes_on(admin, table):
    group = f"Q-{secrets.token_hex(3)}"
    create_group(admin, group, [table.table_id], VALUES, by="Ana", reason="opening")
    # a floor edited by hand: the generation's posting is gone, so claim_jackpot answers no row
    admin.execute("DELETE FROM floor.jackpot_postings WHERE group_id = %s AND level = 'minor'", (group,))
    rid = table.journal.open_round("sheet-004")
    table.journal.append(rid, "jackpot_pending", HIT)
    told: list[tuple] = []
    settings = dataclasses.replace(table.settings, jackpot_group=group)
    fwd = Forwarder(settings, table.journal.path, table.journal.key,
                    on_claim=lambda *args: told.append(args)).start()
    try:
        assert fwd.wait_until(lambda: bool(told), 10), fwd.status()
        play(table.journal, 2)                      # the table plays on: its facts still reach the floor
        fwd.wake()
        assert fwd.wait_confirmed(chain_end(table.journal), 10), fwd.status()
        assert fwd._thread.is_alive()
    finally:
        fwd.stop()
    (round_id, level, answer, refused, for_good), = told[:1]
    assert (round_id, level, answer, for_good) == (rid, "minor", None, False)    # mended on the floor, then paid
    assert "no answer" in (refused or "")


def test_a_journal_read_that_fails_is_said_and_tried_again(admin, table, monkeypatch):
    play(table.journal, 2)
    real = forwarder_module.facts_after
    failures = [sqlite3.OperationalError("disk I/O error")]

    def flaky(*args, **kwargs):
        if failures:
            raise failures.pop()
        return real(*args, **kwargs)

    monkeypatch.setattr(forwarder_module, "facts_after", flaky)
    monkeypatch.setattr(forwarder_module, "REFUSED_RETRY", 0.1)
    told: list[tuple[bool, str]] = []
    fwd = Forwarder(table.settings, table.journal.path, table.journal.key,
                    on_link=lambda up, why: told.append((up, why))).start()
    try:
        assert fwd.wait_confirmed(chain_end(table.journal), 10), fwd.status()
    finally:
        fwd.stop()
    assert not failures
    # the table was told the link went down (its linked Super 6 closed meanwhile) and came back
    assert [up for up, _ in told] == [True, False, True]
    assert told[1][1] == "unexpected: OperationalError: disk I/O error"


def test_a_lock_the_floor_refuses_to_take_does_not_stop_the_forwarding(admin, table):
    # the floor refuses a lock of a generation it has not won (schema version 10): were that refusal
    # the forwarder's, it would close the link and send it again every 10 s, and nothing else
    group = f"Q-{secrets.token_hex(3)}"
    create_group(admin, group, [table.table_id], VALUES, by="Ana", reason="opening")
    table.journal.table_event("jackpot_lock_taken", {"level": "minor", "generation": 5})
    play(table.journal, 2)
    settings = dataclasses.replace(table.settings, jackpot_group=group)
    fwd = Forwarder(settings, table.journal.path, table.journal.key).start()
    try:
        assert fwd.wait_confirmed(chain_end(table.journal), 10), fwd.status()
        assert fwd.status()["refused"] is None and fwd.status()["connected"]
    finally:
        fwd.stop()
    assert admin.execute("SELECT count(*) FROM floor.lock_acks WHERE group_id = %s", (group,)).fetchone() == (0,)
