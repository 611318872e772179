"""A table found behind the floor, kept on disk until a technician clears it.

Owns the two table events that say it, under the table's key like every fact: ``journal_behind_floor``
``{words}`` when the forwarder finds the journal behind the floor's head of its chain, or another
journal (controller/floor/head.py), and ``journal_behind_cleared`` ``{by, reason, words}`` when a
technician clears the finding (``table-controller behind clear``). The newer of the two decides:
a table whose last word is the finding starts halted in those words (controller/engine.py), so a
restart (the watchdog's, a power cut) cannot play in the moments before the forwarder's first
connect, or for as long as the floor is out of reach.
"""

from __future__ import annotations

import json
from typing import Any

from controller.store.journal import Journal

FOUND, CLEARED = "journal_behind_floor", "journal_behind_cleared"


def standing(journal: Journal) -> dict[str, Any] | None:
    """The finding not yet cleared: ``{"words", "at"}``; None when there is none."""
    row = journal.db.execute("SELECT kind, at, data FROM table_events WHERE kind IN (?, ?) "
                             "ORDER BY seq DESC LIMIT 1", (FOUND, CLEARED)).fetchone()
    if row is None or row[0] != FOUND:
        return None
    data = json.loads(row[2])
    return {"words": str(data.get("words") or "this table's journal was found behind the floor"), "at": row[1]}


def clear(journal: Journal, by: str, reason: str) -> dict[str, Any] | None:
    """Clear the standing finding, journaled with who and why; the finding cleared, or None when
    there was none (nothing is written)."""
    found = standing(journal)
    if found is None:
        return None
    journal.table_event(CLEARED, {"by": by, "reason": reason, "words": found["words"]})
    return found
