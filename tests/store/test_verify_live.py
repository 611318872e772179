"""``verify``, ``recall`` and ``meters`` on a table that is playing: the table commits facts (and
anchors them in its trail) while the command reads. What was read must hold together: the journal as of
one commit, the trail read after it (so it holds the line that commit vouched for), and a trail's anchor
to a fact the reading began before is looked for again, never called a lost commit (the test lab ran
``verify`` three times on an autoplaying table: each said "commits were lost; call a technician")."""

from __future__ import annotations

import pytest

import controller.store.anchors as anchors
from controller.store.anchors import ANCHOR, ANCHOR_DIGITS, check_trail
from controller.store.audit import AuditTrail
from controller.store.audit_head import AT_COMMIT
from controller.store.journal import Journal, JournalError
from controller.store.verify import verify_journal


class PlayingTable:
    """A table's journal and trail as controller/app/run.py keeps them: each fact committed, its
    trail head kept under the key at the commit, then its anchor written."""

    def __init__(self, folder):
        self.trail = AuditTrail(folder / "audit", background_sync=False)
        self.journal = Journal(folder / "journal.sqlite", key_file=folder / "journal.key")
        self.journal.keep_audit_head(None, AT_COMMIT)
        self.journal.audit_head = self.trail.head
        self.facts = 0

    def commit(self, n: int = 1) -> None:
        for _ in range(n):
            self.facts += 1
            with self.journal.event():
                self.journal.table_event("note", {"n": self.facts})
            chain, digest = self.journal.chain_head
            self.trail.write({"event": ANCHOR, "chain": chain, "digest": digest[:ANCHOR_DIGITS], "level": "info"})

    def close(self) -> None:
        self.journal.close()
        self.trail.close()


@pytest.fixture
def table(tmp_path):
    t = PlayingTable(tmp_path)
    t.commit(3)
    yield t
    t.close()


def _reader(tmp_path) -> Journal:
    return Journal.read_only(tmp_path / "journal.sqlite", key_file=tmp_path / "journal.key")


def test_anchors_of_facts_committed_after_the_reading_began_are_found(table, tmp_path, monkeypatch):
    reader = _reader(tmp_path)
    real = anchors._anchors

    def trail_read_after_two_more_commits(audit_dir):
        table.commit(2)             # after the journal's facts were first read, before the trail is
        yield from real(audit_dir)
    monkeypatch.setattr(anchors, "_anchors", trail_read_after_two_more_commits)
    assert anchors.check_every_anchor(reader, tmp_path / "audit") == 5
    reader.close()


def test_an_anchor_past_the_journal_is_still_lost_commits(table, tmp_path):
    table.trail.write({"event": ANCHOR, "chain": 9, "digest": "ab" * 16, "level": "info"})
    reader = _reader(tmp_path)
    with pytest.raises(JournalError, match="ends at fact 3, but the audit trail .* saw fact 9 committed"):
        anchors.check_every_anchor(reader, tmp_path / "audit")
    reader.close()


def test_the_trails_head_is_read_with_the_chains_end_it_is_bound_to(table, tmp_path):
    reader = _reader(tmp_path)      # its chain's end read at opening: fact 3
    table.commit(2)                 # the head the journal keeps now is bound to fact 5
    lines, files, anchored = check_trail(reader, tmp_path / "audit")
    assert (files, anchored) == (1, 5)
    assert reader.chain_head[0] == 5
    reader.close()


def test_a_reading_sees_one_commit_whatever_the_table_commits_meanwhile(table, tmp_path):
    """What ``verify_journal`` walks (the chain, then the rounds, then the unkeyed part, each a
    statement of its own) and the trail's head with the chain's end it is bound to are read so."""
    reader = _reader(tmp_path)

    def facts() -> int:
        return reader.db.execute("SELECT COUNT(*) FROM table_events WHERE chain IS NOT NULL").fetchone()[0]
    with reader.reading():
        assert facts() == 3
        table.commit(2)
        assert facts() == 3 and reader.chain_head[0] == 3
        assert verify_journal(reader).keyed == 3
    assert facts() == 5
    assert verify_journal(reader).keyed == 5 and reader.chain_head[0] == 5
    reader.close()
