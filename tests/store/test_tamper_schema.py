"""A trigger put into the journal while the table plays is refused at the table's next commit (session 18).

The start-up check and ``verify`` refuse a journal holding a trigger or a view (tests/store/test_tamper.py);
a table already playing re-reads the journal when another connection committed (its chain head) and
finds the trigger then, before the trigger can run inside the table's own commit.
"""

from __future__ import annotations

import sqlite3

import pytest

from controller.store.journal import Journal, JournalError
from controller.store.verify import verify_journal


def test_a_trigger_added_while_the_table_plays_never_runs_in_its_commits(tmp_path):
    journal = Journal(tmp_path / "journal.sqlite", key_file=tmp_path / "journal.key")
    round_id = journal.open_round("sheet-004")
    journal.append(round_id, "opened", {"preset": "sheet-004"})
    insider = sqlite3.connect(tmp_path / "journal.sqlite")
    insider.execute("CREATE TRIGGER pay_more AFTER INSERT ON records BEGIN "
                    "UPDATE records SET data = '{\"net\":100000}' WHERE seq = NEW.seq; END")
    insider.commit()
    with pytest.raises(JournalError, match="holds a trigger 'pay_more'"):
        journal.append(round_id, "paid", {"net": 500})
    assert journal.chain_head[0] == 1                   # nothing of the refused commit is kept
    insider.execute("DROP TRIGGER pay_more")
    insider.commit()
    insider.close()
    assert [r.kind for r in journal.records(round_id)] == ["opened"]
    assert verify_journal(journal).keyed == 1           # the trigger never ran: the chain holds
    journal.append(round_id, "paid", {"net": 500})
    assert verify_journal(journal).keyed == 2
    journal.close()
