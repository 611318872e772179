"""A simulated table's journal read back: its facts, and every round settled again.

Owns the reading a campaign trusts, in this process and sharing no code with the engine's own
bookkeeping: every fact of the keyed chain in order (``facts``: what two runs of one seed must
agree on, with the audit trail's lines), the whole journal verified as ``table-controller verify``
does, every complete round settled again by the rules engine from its recalled cards and wagers
(``recall --json | settle`` in-process, controller/store/recall.py and
controller/rules/roundio.py) and compared seat by seat with the journaled settlement and
payments, and the payments counted a second way, in SQL on the file (simulators/soak_check.py's
``_payments``: a payment journaled twice, a settled seat never paid, a void round that paid).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from controller.rules.paytable import load_preset
from controller.rules.roundio import settle_json
from controller.store.audit import files_in_order, open_lines
from controller.store.journal import Journal
from controller.store.recall import recall_round
from controller.store.verify import verify_journal
from simulators.soak_check import _payments

ALL_FACTS = ("SELECT chain, 'record', round_id, at, kind, data, digest FROM records "
             "UNION ALL SELECT chain, 'table', NULL, at, kind, data, digest FROM table_events ORDER BY 1")


def facts(journal: Path) -> list[tuple[Any, ...]]:
    """Every fact of the journal's chain, in order: (chain, where, round, at, kind, data, digest)."""
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        return db.execute(ALL_FACTS).fetchall()
    finally:
        db.close()


def trail_lines(audit_dir: Path, folder: Path | None = None) -> list[str]:
    """The audit trail's entries, oldest first; ``folder`` (where the run was, which lines that name a
    file say) written as ``<folder>`` and each line's link to the one before (``prev``, a hash of the
    line with the folder in it) left out: the same seed's runs in two folders say the same."""
    lines: list[str] = []
    for path in files_in_order(audit_dir):
        with open_lines(path) as f:
            lines.extend(line.rstrip("\n") for line in f)
    if folder is not None:
        lines = [json.dumps({k: v for k, v in json.loads(line.replace(str(folder), "<folder>")).items()
                             if k != "prev"}) for line in lines]
    return lines


def round_facts(journal: Path, round_id: int) -> list[tuple[Any, ...]]:
    """The facts of one round, and the table's facts while it was open (a failing round's story)."""
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        opened, closed = db.execute("SELECT opened_at, closed_at FROM rounds WHERE id = ?", (round_id,)).fetchone()
        return db.execute("SELECT chain, round_id, at, kind, data FROM records WHERE round_id = ? UNION ALL "
                          "SELECT chain, NULL, at, kind, data FROM table_events WHERE at >= ? AND at <= ? "
                          "ORDER BY 1", (round_id, opened, closed or "~")).fetchall()
    finally:
        db.close()


def check(journal_path: Path) -> dict[str, Any]:
    """Every round settled again and every payment counted two ways (see the header)."""
    journal = Journal.read_only(journal_path)
    try:
        verify_journal(journal)
        verified, said = True, ""
    except Exception as err:            # a journal that does not verify is this check's finding
        verified, said = False, str(err)
    discrepancies: list[dict[str, Any]] = []
    rows = journal.db.execute("SELECT id, status FROM rounds ORDER BY id").fetchall()
    settled_again = 0
    for round_id, status in rows:
        if status != "complete":
            continue
        doc = recall_round(journal, round_id)
        again = settle_json(doc, load_preset, None)
        settled_again += "error" not in again
        mine = {s["seat"]: s["net"] for s in again.get("seats", [])}
        journaled = {s["seat"]: s["net"] for s in doc["table"]["results"]}
        paid = {int(seat): net for seat, net in doc["table"]["paid"].items()}
        if "error" in again:
            discrepancies.append({"round": round_id, "why": f"cannot settle it again: {again['error']}"})
        elif mine != journaled:
            discrepancies.append({"round": round_id, "why": "settled again differs", "again": mine,
                                  "journaled": journaled})
        elif paid != journaled:
            discrepancies.append({"round": round_id, "why": "paid differs from the settlement", "paid": paid,
                                  "journaled": journaled})
    journal.close()
    doubled, lost, void_paid = _payments(journal_path)
    statuses = [status for _, status in rows]
    return {"verify": {"ok": verified, "said": said[-600:]}, "rounds_in_journal": len(rows),
            "rounds_complete": statuses.count("complete"), "rounds_void": statuses.count("void"),
            "rounds_open": statuses.count("open"), "rounds_settled_again": settled_again,
            "resettlement_discrepancies": len(discrepancies), "discrepancy_examples": discrepancies[:5],
            "first_discrepancy_round": discrepancies[0]["round"] if discrepancies else None,
            "payments_doubled": doubled, "payments_lost": lost, "void_rounds_that_paid": void_paid}


def passed(checked: dict[str, Any]) -> bool:
    return bool(checked["verify"]["ok"] and checked["resettlement_discrepancies"] == 0
                and checked["payments_doubled"] == 0 and checked["payments_lost"] == 0
                and checked["void_rounds_that_paid"] == 0)


def dumps(row: tuple[Any, ...]) -> str:
    return json.dumps(list(row))
