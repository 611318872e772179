"""After a soak: every round settled again, every payment counted, the chain verified.

Owns the independent reading of what the table did. Two ways that share no
code with the engine's own bookkeeping: the controller's public commands
(``recall --json`` piped into ``settle``, the pure rules engine, compared seat
by seat with the settlement and the payments the journal holds; ``verify``
for the keyed chain, the audit trail and their anchors), and the journal file
read directly with SQL (a payment journaled twice, a settled seat never paid,
a void round that paid anything).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any


def check(config: Path, journal: Path) -> dict[str, Any]:
    def command(*words: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "controller.cli", *words, "--config", str(config)]
                              if words[0] != "settle" else [sys.executable, "-m", "controller.cli", *words],
                              input=stdin, capture_output=True, text=True, timeout=3600)

    verified = command("verify")
    rounds = _count_rounds(journal)
    recalled = command("recall", "--last", str(max(rounds, 1)), "--json")
    lines = [json.loads(line) for line in recalled.stdout.splitlines() if line.strip()]
    complete = [r for r in lines if r["table"]["status"] == "complete"]
    settled = command("settle", stdin="".join(json.dumps(r) + "\n" for r in complete))
    again = {r["id"]: r for r in (json.loads(line) for line in settled.stdout.splitlines() if line.strip())}
    discrepancies = []
    for r in complete:
        mine = {s["seat"]: s["net"] for s in again.get(r["id"], {}).get("seats", [])}
        journaled = {s["seat"]: s["net"] for s in r["table"]["results"]}
        paid = {int(seat): net for seat, net in r["table"]["paid"].items()}
        if r["id"] not in again:
            discrepancies.append({"round": r["id"], "why": "settle gave no answer"})
        elif mine != journaled:
            discrepancies.append({"round": r["id"], "why": "settled again differs", "again": mine,
                                  "journaled": journaled})
        elif paid != journaled:
            discrepancies.append({"round": r["id"], "why": "paid differs from the settlement", "paid": paid,
                                  "journaled": journaled})
    doubled, lost, void_paid = _payments(journal)
    # a check that read nothing proves nothing: every round recalled, every complete one settled again
    coverage = []
    if recalled.returncode != 0 or len(lines) != rounds:
        coverage.append(f"recall gave {len(lines)} of {rounds} rounds (exit {recalled.returncode}): "
                        f"{recalled.stderr.strip()[-300:]}")
    if settled.returncode != 0 or len(again) != len(complete):
        coverage.append(f"settle answered {len(again)} of {len(complete)} complete rounds (exit {settled.returncode})")
    stranded = [r["id"] for r in lines[:-1] if r["table"]["status"] == "open"] if lines else []
    if stranded:
        coverage.append(f"rounds left open before the last: {stranded[:10]}")
    return {
        "coverage_problems": coverage,
        "verify": {"ok": verified.returncode == 0, "said": (verified.stdout + verified.stderr).strip()[-600:]},
        "rounds_in_journal": rounds, "rounds_recalled": len(lines), "rounds_settled_again": len(again),
        "resettlement_discrepancies": len(discrepancies), "discrepancy_examples": discrepancies[:5],
        "settle_errors": settled.stderr.strip()[-600:],
        "payments_doubled": doubled, "payments_lost": lost, "void_rounds_that_paid": void_paid,
        "jackpots": _jackpots(journal),
    }


def _count_rounds(journal: Path) -> int:
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        return db.execute("SELECT COUNT(*) FROM rounds").fetchone()[0]
    finally:
        db.close()


def _payments(journal: Path) -> tuple[int, int, int]:
    """(payments journaled twice, settled seats of complete rounds never paid, void rounds that paid)."""
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        doubled = db.execute(
            "SELECT COUNT(*) FROM (SELECT round_id, json_extract(data, '$.position') AS p, COUNT(*) AS n "
            "FROM records WHERE kind = 'paid' GROUP BY round_id, p HAVING n > 1)").fetchone()[0]
        lost = 0
        rows = db.execute("SELECT r.round_id, r.data FROM records r JOIN rounds o ON o.id = r.round_id "
                          "WHERE r.kind = 'settlement' AND o.status = 'complete'")
        paid = {(round_id, position) for round_id, position in db.execute(
            "SELECT round_id, json_extract(data, '$.position') FROM records WHERE kind = 'paid'")}
        for round_id, data in rows:
            for seat in json.loads(data).get("seats", []):
                lost += (round_id, seat["seat"]) not in paid
        void_paid = db.execute("SELECT COUNT(DISTINCT r.round_id) FROM records r JOIN rounds o ON o.id = r.round_id "
                               "WHERE r.kind = 'paid' AND o.status = 'void'").fetchone()[0]
        return doubled, lost, void_paid
    finally:
        db.close()


def _jackpots(journal: Path) -> dict[str, Any]:
    """Super 6 jackpots from the journal: each win verified (round, level, seat, amount), the
    postings after the opening values (reseeds and changes), and the rounds opened between a win
    and the next posting (Super 6 closed for them: a long run of these is a reseed that never came)."""
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        wins, waited = [], 0
        for round_id, at, data in db.execute(
                "SELECT round_id, at, data FROM records WHERE kind = 'jackpot_verified' ORDER BY seq").fetchall():
            for hit in json.loads(data)["hits"]:
                wins.append({"round": round_id, "level": hit["jackpot"], "seat": hit["seat"], "amount": hit["amount"]})
            posted = db.execute("SELECT MIN(at) FROM table_events WHERE kind = 'jackpot_posted' AND at > ?",
                                (at,)).fetchone()[0]
            waited += db.execute("SELECT COUNT(*) FROM rounds WHERE opened_at > ? AND opened_at < COALESCE(?, '~')",
                                 (at, posted)).fetchone()[0]
        postings = [json.loads(data) for (data,) in db.execute(
            "SELECT data FROM table_events WHERE kind = 'jackpot_posted' ORDER BY seq")]
        later = [p for p in postings if p["by"] != "configuration"]
        return {"wins": wins, "postings": len(later),
                "reseeds": sum(1 for p in later if p.get("reseeded") or not p["changed"]),
                "rounds_opened_before_the_next_posting": waited}
    finally:
        db.close()


def journal_path(work: Path) -> Path:
    return work / "data" / "journal.sqlite"
