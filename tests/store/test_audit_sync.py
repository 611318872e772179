"""The audit trail's durable head: fsynced off the engine's path, never ahead of the disk."""

import os
import threading
import time

import pytest

from controller.store.audit import AuditTrail, line_hash
from controller.store.audit_sync import SYNC_AFTER, DurableHead


def test_the_head_names_the_last_line_once_it_is_synced(tmp_path):
    trail = AuditTrail(tmp_path / "audit")
    try:
        before = trail.head()
        trail.write({"event": "round.paid", "round": 1})
        written = line_hash((tmp_path / "audit" / "audit.jsonl").read_text().splitlines()[-1])
        assert trail.last == written != before
        deadline = time.monotonic() + 5
        while trail.head() != written:          # within SYNC_AFTER on a quiet disk
            assert time.monotonic() < deadline, "the written line never became the durable head"
            time.sleep(SYNC_AFTER / 4)
    finally:
        trail.close()


def test_closing_while_a_sync_waits_makes_everything_durable_and_returns(tmp_path):
    # a close during the sync's short wait once lost its wake-up and hung (seen in the suite)
    for i in range(20):
        trail = AuditTrail(tmp_path / f"audit-{i}")
        trail.write({"event": "x", "n": i})
        closing = threading.Thread(target=trail.close)
        closing.start()
        closing.join(5)
        assert not closing.is_alive(), f"close hung on trail {i}"
        assert trail.head() == trail.last


@pytest.mark.parametrize(("failure", "said"), [
    (OSError(5, "Input/output error"), "Input/output error"),                       # the disk
    (ValueError("I/O operation on closed file"), "audit trail sync: I/O operation on closed file"),
])
def test_a_failing_sync_is_raised_at_the_next_commit_never_a_stale_head(tmp_path, failure, said):
    calls = []
    file = open(tmp_path / "trail", "w")

    def flush_and_dup():
        calls.append(1)
        if len(calls) > 1:
            raise failure
        return os.dup(file.fileno()), "a" * 64

    head = DurableHead(flush_and_dup)
    assert head.head() == "a" * 64
    head.written()
    with pytest.raises(OSError, match=said):
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            head.head()
            time.sleep(SYNC_AFTER / 4)
    head.close()
    file.close()


def test_a_commit_made_before_any_line_was_durable_is_not_read_as_tampering(tmp_path):
    from controller.store.anchors import check_audit_against_journal
    from controller.store.audit import GENESIS
    from controller.store.journal import Journal
    trail = AuditTrail(tmp_path / "audit")
    trail.close()
    journal = Journal(tmp_path / "journal.sqlite")
    journal.keep_audit_head(GENESIS, "commit")     # a table killed within its first 20 ms: the head it kept
    check_audit_against_journal(journal, tmp_path / "audit")
    journal.keep_audit_head("f" * 64, "commit")    # a line the trail does not hold
    with pytest.raises(Exception, match="no longer holds the line"):
        check_audit_against_journal(journal, tmp_path / "audit")
    with journal.event():                          # a head written without the key
        journal.set_meta("audit_head", GENESIS)
    with pytest.raises(Exception, match="not under the table's key"):
        check_audit_against_journal(journal, tmp_path / "audit")
    journal.close()
