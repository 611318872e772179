"""The feed checks each fact on the table's keyed chain before it is sent (session 18, the integrity lab).

The start-up check walks the journal once; a row edited in the file afterwards, while the table plays,
was streamed to surveillance as a fact. Facts before the altered one are sent; it and what follows are
not, and a reader resuming from the last good fact is refused at the same fact.
"""

from __future__ import annotations

import sqlite3

import pytest

from controller.page.feed import FactAltered, JournalFacts
from controller.store.journal import Journal


@pytest.fixture
def journal(tmp_path):
    j = Journal(tmp_path / "journal.sqlite", key_file=tmp_path / "journal.key")
    round_id = j.open_round("sheet-004")
    j.append(round_id, "opened", {"preset": "sheet-004"})
    j.table_event("note", {"n": 1})
    j.append(round_id, "paid", {"net": 500})
    j.append(round_id, "complete", {})
    yield j
    j.close()


def _facts(journal):
    source = JournalFacts(journal.path, "T-1", journal.key)
    return source, source.open()


def test_every_fact_of_an_untouched_journal_is_sent_from_any_point(journal):
    source, db = _facts(journal)
    assert [r[0] for r in source.after(db, 0, 500)] == [1, 2, 3, 4]
    assert [(r[0], r[3]) for r in source.after(db, 2, 500)] == [(3, "paid"), (4, "complete")]
    assert source.after(db, 4, 500) == []
    db.close()


@pytest.mark.parametrize("edit", [
    "UPDATE records SET data = '{\"net\":100000}' WHERE chain = 3",      # a payment rewritten
    "DELETE FROM records WHERE chain = 3",                               # a payment taken out
    "UPDATE records SET at = '2020-01-01T00:00:00.000+00:00' WHERE chain = 3",
])
def test_a_fact_edited_while_the_table_plays_is_never_sent(journal, edit):
    insider = sqlite3.connect(journal.path)
    insider.execute(edit)
    insider.commit()
    insider.close()
    source, db = _facts(journal)
    assert [r[0] for r in source.after(db, 0, 500)] == [1, 2]         # what holds, up to the edit
    with pytest.raises(FactAltered, match="fact 3 of the chain is missing or altered"):
        source.after(db, 2, 500)                                      # resumed: refused at the same fact
    db.close()
