"""The audit trail's anchors against the journal: a digest's first 128 bits are compared, no fewer."""

from __future__ import annotations

import json

import pytest

from controller.store.anchors import ANCHOR, ANCHOR_DIGITS, check_every_anchor, check_journal_against_audit
from controller.store.audit import AuditTrail
from controller.store.journal import Journal, JournalError


@pytest.fixture
def journal(tmp_path):
    j = Journal(tmp_path / "journal.sqlite", key_file=tmp_path / "journal.key")
    with j.event():
        j.table_event("note", {"n": 1})
    with j.event():
        j.table_event("note", {"n": 2})
    yield j
    j.close()


def _anchor(tmp_path, chain: int, digest: str):
    trail = AuditTrail(tmp_path / "audit")
    trail.write({"event": ANCHOR, "chain": chain, "digest": digest, "level": "info"})
    trail.close()
    return tmp_path / "audit"


@pytest.mark.parametrize("digits", [ANCHOR_DIGITS, 64])
def test_an_anchor_of_the_right_digits_vouches_for_the_fact(journal, tmp_path, digits):
    chain, digest = journal.chain_head
    check_journal_against_audit(journal, _anchor(tmp_path, chain, digest[:digits]))


def test_an_anchor_whose_digits_differ_is_refused(journal, tmp_path):
    chain, digest = journal.chain_head
    wrong = digest[:ANCHOR_DIGITS - 1] + ("0" if digest[ANCHOR_DIGITS - 1] != "0" else "1")
    with pytest.raises(JournalError, match=f"fact {chain} differs"):
        check_journal_against_audit(journal, _anchor(tmp_path, chain, wrong))


def test_an_anchor_of_too_few_digits_vouches_for_nothing(journal, tmp_path):
    chain, digest = journal.chain_head
    with pytest.raises(JournalError, match=f"fact {chain} differs"):
        check_journal_against_audit(journal, _anchor(tmp_path, chain, digest[:ANCHOR_DIGITS - 1]))


def test_an_anchor_past_the_journals_end_is_lost_commits(journal, tmp_path):
    chain, digest = journal.chain_head
    with pytest.raises(JournalError, match="commits were lost"):
        check_journal_against_audit(journal, _anchor(tmp_path, chain + 1, digest[:ANCHOR_DIGITS]))
    assert json.loads((tmp_path / "audit" / "audit.jsonl").read_text().splitlines()[-1])["chain"] == chain + 1


def _trail(tmp_path, anchors):
    trail = AuditTrail(tmp_path / "audit")
    for chain, digest in anchors:
        trail.write({"event": ANCHOR, "chain": chain, "digest": digest, "level": "info"})
    trail.close()
    return tmp_path / "audit"


def _digests(journal):
    return dict(journal.db.execute("SELECT chain, digest FROM table_events WHERE chain IS NOT NULL"))


def test_verify_reads_every_anchor_not_only_the_newest(journal, tmp_path):
    """An older anchor that the journal no longer matches (the journal rewritten after the fact and
    the trail's newest anchor with it, or a trail whose older files were shipped off the table) is
    named by ``verify``; the start-up check, reading only the newest, lets it by."""
    with journal.event():
        journal.table_event("note", {"n": 3})
    digests = _digests(journal)
    assert sorted(digests) == [1, 2, 3]
    good = [(chain, digests[chain][:ANCHOR_DIGITS]) for chain in (1, 2, 2, 3)]    # an anchor may repeat
    assert check_every_anchor(journal, _trail(tmp_path / "good", good)) == 4
    altered = digests[2][:ANCHOR_DIGITS - 1] + ("0" if digests[2][ANCHOR_DIGITS - 1] != "0" else "1")
    trail = _trail(tmp_path / "bad", [good[0], (2, altered), good[3]])
    check_journal_against_audit(journal, trail)                   # the newest alone vouches
    with pytest.raises(JournalError, match=r"fact 2 differs from the one the audit trail \(audit.jsonl, line 2\)"):
        check_every_anchor(journal, trail)


def test_every_anchor_past_the_journals_end_is_lost_commits(journal, tmp_path):
    digests = _digests(journal)
    trail = _trail(tmp_path, [(1, digests[1][:ANCHOR_DIGITS]), (5, "ab" * 16)])
    with pytest.raises(JournalError, match="ends at fact 2, but the audit trail .* saw fact 5 committed"):
        check_every_anchor(journal, trail)
