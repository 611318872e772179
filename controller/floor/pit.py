"""What the pit sees: every table of the floor at once, read from the floor database.

Owns the pit's view (``floor_view``): per table, read from its one status row that the ingest
keeps (schema.sql ``floor.table_status``: no scan of the records), its last state and round,
when the floor last heard from it and whether that is too long ago (stale), whether it came
back behind the floor's head of its chain (``floor.chain_alarms``, first of its alerts), whether its
forwarder has a session on the floor now (link up or down), its open alerts in plain words (the
floor link's raw libpq error left out), each device as last reported (online from its last
connect, offline from a later ``device_offline`` alert), its jackpot group; per group the posted
MEGA / MAJOR / MINOR values and whether each is pending; every claim of a pending level with its
order and part of the split, and the tables a split not yet final waits for (a floor supervisor
may close its claims); and every linked hit the floor's split does not pay: referred at its
table (owed by the floor's decision), disputed, or not claimed yet (``floor.linked_hits``). The
page (controller/floor/pit_page.py) serves it live: it looks at ``records_marker`` twice a second
(records arrived) and LISTENs on ``floor_jackpot`` (claims and postings).
"""

from __future__ import annotations

import re
from typing import Any

import psycopg

# each table's status row (kept by the ingest, schema.sql floor.table_status) and whether its role
# has a session on the floor now (its forwarder's link)
TABLES = """
SELECT t.id, gt.group_id, s.state, s.round_id, s.last_seq, s.last_received, s.devices, s.alerts, s.dealer,
       a.usename IS NOT NULL, extract(epoch FROM now() - s.last_received)::float8, ca.message, ca.raised_at
FROM floor.tables t
LEFT JOIN floor.group_tables gt ON gt.table_id = t.id
LEFT JOIN floor.table_status s ON s.table_id = t.id
LEFT JOIN (SELECT DISTINCT usename FROM pg_stat_activity WHERE usename IS NOT NULL) a ON a.usename = t.role
LEFT JOIN LATERAL (SELECT c.message, c.raised_at FROM floor.chain_alarms c WHERE c.table_id = t.id
                   AND c.floor_seq >= coalesce(s.last_seq, 0) ORDER BY c.raised_at DESC LIMIT 1) ca ON true
ORDER BY t.id
"""
# a table's open chain alarm (schema version 7): it came back behind the floor's head of its chain, and no
# record past that head has arrived since (the last one reported shown)
LEVELS = "SELECT group_id, level, value, generation, state FROM floor.jackpot_levels ORDER BY group_id, level"
PENDING = """
SELECT c.group_id, c.level, c.claim_order, c.table_id, c.round_id, c.position, c.winners, c.amount,
       floor.split_final(c.group_id, c.level, c.generation)
FROM floor.jackpot_claims c JOIN floor.jackpot_levels l
  ON l.group_id = c.group_id AND l.level = c.level AND l.generation = c.generation AND l.state = 'pending'
ORDER BY c.group_id, c.level, c.claim_order
"""

HOLDING = """
SELECT l.group_id, l.level, l.generation, array_agg(gt.table_id ORDER BY gt.table_id)
FROM floor.jackpot_levels l JOIN floor.group_tables gt ON gt.group_id = l.group_id
WHERE l.state = 'pending' AND NOT floor.split_final(l.group_id, l.level, l.generation)
  AND NOT EXISTS (SELECT 1 FROM floor.lock_acks a WHERE a.group_id = l.group_id AND a.level = l.level
                  AND a.generation = l.generation AND a.table_id = gt.table_id)
GROUP BY l.group_id, l.level, l.generation ORDER BY l.group_id, l.level
"""
UNPAID = """
SELECT group_id, level, generation, table_id, round_id, position, bet, state, referred_by, referral_reason, refused,
       hit_at
FROM floor.linked_hits WHERE state <> 'claimed' ORDER BY hit_at, table_id
"""


# whether records arrived since the last look: the tables' last records summed (each only grows), and
# the chain alarms raised (only grow too). The ingest notifies no one (schema version 5: a NOTIFY per
# ingest made the tables' commits queue)
CHANGED = ("SELECT (coalesce(sum(last_seq), 0) + (SELECT count(*) FROM floor.chain_alarms))::bigint "
           "FROM floor.table_status")


def records_marker(conn: psycopg.Connection) -> int:
    found = conn.execute(CHANGED).fetchone()
    return int(found[0]) if found else 0


STALE_AFTER = 60.0          # seconds without a record before a table is shown stale
# what a person reads instead of a library's error: the floor link's reason as libpq words it
_LINK_REASON = re.compile(r"the floor link is down \((?:[^()]|\([^()]*\))*\)", re.S)
_LIBRARY_ERROR = re.compile(r"\s*\((?:connection to server|server closed|could not|consuming input)[^)]*\)", re.S)


def plain_words(message: str) -> str:
    """An alert as the pit reads it: the floor link's libpq error left out (kept on hover)."""
    return _LIBRARY_ERROR.sub("", _LINK_REASON.sub("the floor link is down", message or ""))


def floor_view(conn: psycopg.Connection, stale_after: float = STALE_AFTER) -> dict[str, Any]:
    """The whole floor now (money in cents, times ISO; ``heard_ago`` in seconds by the floor's clock)."""
    groups: dict[str, dict[str, Any]] = {}
    for group_id, level, value, generation, state in conn.execute(LEVELS).fetchall():
        groups.setdefault(group_id, {})[level] = {"value": value, "generation": generation, "state": state}
    pending = [{"group": g, "level": lv, "order": o, "table": t, "round": r, "position": p, "winners": w,
                "amount": a, "final": f} for g, lv, o, t, r, p, w, a, f in conn.execute(PENDING).fetchall()]
    holding = [{"group": g, "level": lv, "generation": gen, "tables": list(ts)}
               for g, lv, gen, ts in conn.execute(HOLDING).fetchall()]
    unpaid = [{"group": g, "level": lv, "generation": gen, "table": t, "round": r, "position": p, "bet": bet,
               "state": state, "referred_by": by, "reason": why, "refused": refused, "at": at}
              for g, lv, gen, t, r, p, bet, state, by, why, refused, at in conn.execute(UNPAID).fetchall()]
    tables = []
    for (table_id, group_id, state, round_id, last_seq, last_received, devices, alerts, dealer, link_up,
         quiet, behind, behind_at) in conn.execute(TABLES).fetchall():
        if behind is not None:          # first: the table refuses to play until it is resolved
            alerts = [{"at": behind_at.isoformat(timespec="seconds"), "kind": "journal_behind", "message": behind,
                       "round": None, "device": None}, *(alerts or [])]
        locked = sorted(lv for lv, v in groups.get(group_id, {}).items() if v["state"] == "pending")
        tables.append({"id": table_id, "group": group_id, "state": state, "round": round_id, "dealer": dealer,
                       "records": last_seq or 0,
                       "last_heard": last_received.isoformat(timespec="seconds") if last_received else None,
                       "heard_ago": round(quiet, 1) if quiet is not None else None,
                       "stale": quiet is None or quiet > stale_after, "link": "up" if link_up else "down",
                       "alerts": [dict(a, message=plain_words(a.get("message") or ""), said=a.get("message"))
                                  for a in alerts or []],
                       "jackpot_pending": locked, "devices": devices or {}})
    now = conn.execute("SELECT now()").fetchone()
    return {"tables": tables, "groups": groups, "pending": pending, "holding": holding, "unpaid": unpaid,
            "stale_after": stale_after, "now": now[0].isoformat() if now else None}
