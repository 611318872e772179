"""What a ``table-floor demo`` left on the floor, read from the database and the tables' journals.

Owns the demo's summary (controller/floor/demo.py runs it): per table, every journal fact
compared with ``floor.records``; the linked claims the floor holds and the hits the tables
paid; and, after a failover (``--failover``), the same read from the promoted standby and
said as facts and claims lost or doubled. Nothing here trusts what a table says of itself:
the counts come from its journal (read-only) and the floor.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import psycopg

from controller.store.journal import Journal
from controller.store.outbox import facts_after, final_claims

JOURNAL = "journal.sqlite"          # controller/app/run.py's JOURNAL_FILE (the app layer is above this one)
GROUP = "DEMO"                      # the demo's linked jackpot group (--hits)


class DemoTableLike(Protocol):
    table_id: str
    folder: Path
    summary: dict | None
    process: Any


def jackpot_summary(admin: psycopg.Connection, floor: Sequence[DemoTableLike], hits: int,
                    hit_round: int) -> dict[str, Any]:
    """The floor's claims in their order (the split each got) and, from each table's journal, the
    hit rounds it completed: a linked hit is paid last, after the floor's final answer."""
    rows = admin.execute("SELECT claim_order, table_id, round_id, level, generation, winners, amount "
                         "FROM floor.jackpot_claims WHERE group_id = %s ORDER BY generation, level, claim_order",
                         (GROUP,)).fetchall()
    claims_made = [{"order": o, "table": t, "round": r, "level": lv, "generation": g, "winners": w, "amount": a}
                   for o, t, r, lv, g, w, a in rows]
    paid = 0
    for t in floor:
        journal = Journal.read_only(t.folder / JOURNAL, keyed=False)
        try:
            paid += journal.db.execute(
                "SELECT count(DISTINCT r.round_id) FROM records r JOIN rounds o ON o.id = r.round_id "
                "WHERE r.kind = 'jackpot_pending' AND o.status = 'complete'").fetchone()[0]
        finally:
            journal.close()
    return {"group": GROUP, "royals_dealt": hits, "players_round": hit_round, "claims": claims_made,
            "hits_claimed": len(claims_made), "split": sum(1 for c in claims_made if c["winners"] > 1),
            "hits_paid": paid}


def summary(admin: psycopg.Connection, floor: Sequence[DemoTableLike], rounds: int, outages: int,
             caught_up: int) -> dict[str, Any]:
    """The floor's and the journals' own counts; duplicates, link failures and refusals are the
    forwarders' (a table stopped before its summary has none to give)."""
    in_journals = confirmed = gaps = mismatches = duplicates = link_failures = 0
    refused: list[str] = []
    for t in floor:
        journal = Journal.read_only(t.folder / JOURNAL, keyed=False)
        try:
            facts = {f.chain: f.digest for f in facts_after(journal, 0, 10**9)}
        finally:
            journal.close()
        held: dict[int, str] = dict(admin.execute("SELECT seq, chain_hash FROM floor.records WHERE table_id = %s",
                                  (t.table_id,)).fetchall())
        in_journals += len(facts)
        confirmed += len(held)
        gaps += len(set(facts) - set(held))
        mismatches += sum(1 for seq, h in held.items() if facts.get(seq) != h)
        status = (t.summary or {}).get("floor", {})
        duplicates += status.get("duplicates", 0)
        link_failures += status.get("link_failures", 0)
        if status.get("refused"):
            refused.append(status["refused"])
    ids = [t.table_id for t in floor]
    row = admin.execute("SELECT count(*) FILTER (WHERE kind = 'complete'), count(*) FILTER (WHERE kind = 'void'), "
                        "count(*) FROM floor.records WHERE table_id = ANY(%s)", (ids,)).fetchone()
    played, voided, on_floor = row if row else (0, 0, 0)
    return {"tables": len(floor), "rounds_per_table": rounds, "rounds_played": played, "rounds_voided": voided,
            "rounds_on_floor": played, "outages": outages,
            "link_failures": link_failures,
            "records_in_journals": in_journals, "records_forwarded": on_floor,
            "records_forwarded_after_tables_stopped": caught_up, "records_confirmed": confirmed,
            "gaps": gaps, "duplicates": duplicates, "mismatches": mismatches, "refused": refused,
            "tables_failed": [t.table_id for t in floor if t.process is not None and t.process.returncode != 0]}


def failover_check(admin: psycopg.Connection, floor: Sequence[DemoTableLike]) -> dict[str, int]:
    """After a failover, read from the promoted database alone: each table's journal facts against
    its rows in ``floor.records``, and each linked hit a table paid on a final answer against
    ``floor.jackpot_claims``. Lost: a journal fact the floor lacks or holds otherwise; a paid claim
    the floor lacks or answers otherwise. Doubled: a floor row no journal fact matches (a seq past
    the journal's end, a digest held twice); a claim counted twice or that no table's journal made."""
    records_lost = records_doubled = claims_lost = claims_doubled = paid = 0
    for t in floor:
        journal = Journal.read_only(t.folder / JOURNAL, keyed=False)
        try:
            facts = {f.chain: f.digest for f in facts_after(journal, 0, 10**9)}
            finals = final_claims(journal, 10**6)
            hits = {(r, d) for r, d in journal.db.execute(
                "SELECT round_id, json_extract(data, '$.jackpot') FROM records WHERE kind = 'jackpot_pending'")}
        finally:
            journal.close()
        held: dict[int, str] = dict(admin.execute("SELECT seq, chain_hash FROM floor.records WHERE table_id = %s",
                                                  (t.table_id,)).fetchall())
        records_lost += sum(1 for seq, digest in facts.items() if held.get(seq) != digest)
        records_doubled += sum(1 for seq in held if seq not in facts) + len(held) - len(set(held.values()))
        claims = admin.execute("SELECT round_id, level, generation, claim_order, winners, amount "
                               "FROM floor.jackpot_claims WHERE table_id = %s", (t.table_id,)).fetchall()
        on_floor: dict[tuple[int, str], tuple] = {}
        for round_id, level, *answer in claims:
            claims_doubled += (round_id, level) in on_floor or (round_id, level) not in hits
            on_floor[(round_id, level)] = tuple(answer)
        for hit in finals:
            paid += 1
            a = hit["answer"]
            if on_floor.get((hit["round_id"], hit["jackpot"])) != (a["generation"], a["claim_order"], a["winners"],
                                                                   a["amount"]):
                claims_lost += 1
    return {"records_lost": records_lost, "records_doubled": records_doubled, "claims_paid_by_tables": paid,
            "claims_lost": claims_lost, "claims_doubled": int(claims_doubled)}
