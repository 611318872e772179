"""The audit trail's anchors against the journal: a digest's first 128 bits are compared, no fewer."""

from __future__ import annotations

import json

import pytest

from controller.store.anchors import ANCHOR, ANCHOR_DIGITS, check_journal_against_audit
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
