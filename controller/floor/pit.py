"""What the pit sees: every table of the floor at once, read from the floor database.

Owns the pit's view (``floor_view``): per table its last state and round, when the floor last
heard from it, its last alerts (device trouble included: the table journals them as alerts),
each device's state (online from its last connect, ``device_identity`` or ``device_online``;
offline from a later ``device_offline`` alert, the table's sentence for that device), its
jackpot group; per group the posted MEGA / MAJOR / MINOR values and whether each is
pending; every claim of a pending level with its order and part of the split, and the tables
a split not yet final waits for (a floor supervisor may close its claims); and every linked hit
the floor's split does not pay: referred at its table (owed by the floor's decision), disputed,
or not claimed yet (``floor.linked_hits``). The page
(controller/floor/pit_page.py) serves it live: it LISTENs on ``floor_changes`` (each statement
that adds records, controller/floor/schema.sql) and ``floor_jackpot`` (claims and postings).
"""

from __future__ import annotations

from typing import Any

import psycopg

from controller.rules.words import device_says

TABLES = """
SELECT t.id, gt.group_id, s.state, s.round_id, m.last_seq, m.last_received
FROM floor.tables t
LEFT JOIN floor.group_tables gt ON gt.table_id = t.id
LEFT JOIN LATERAL (SELECT r.body->>'state' AS state, r.round_id FROM floor.records r
                   WHERE r.table_id = t.id AND r.kind = 'state' ORDER BY r.seq DESC LIMIT 1) s ON true
LEFT JOIN LATERAL (SELECT max(r.seq) AS last_seq, max(r.received_at) AS last_received FROM floor.records r
                   WHERE r.table_id = t.id) m ON true
ORDER BY t.id
"""
ALERTS = """
SELECT table_id, at, kind, message FROM (
    SELECT table_id, at, body->>'kind' AS kind, body->>'message' AS message,
           row_number() OVER (PARTITION BY table_id ORDER BY seq DESC) AS n
    FROM floor.records WHERE kind = 'alert') a
WHERE n <= %s ORDER BY table_id, at DESC
"""
DEVICES = """
SELECT DISTINCT ON (r.table_id, d.role) r.table_id, d.role, r.kind <> 'alert', r.at
FROM floor.records r
JOIN (VALUES ('shoe', %s), ('sensors', %s), ('sign', %s)) AS d(role, offline)
  ON (r.kind IN ('device_identity', 'device_online') AND r.body->>'device' = d.role)
  OR (r.kind = 'alert' AND r.body->>'kind' = 'device_offline' AND starts_with(r.body->>'message', d.offline))
WHERE r.kind IN ('device_identity', 'device_online', 'alert')
ORDER BY r.table_id, d.role, r.seq DESC
"""
ROLES = ("shoe", "sensors", "sign")
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


def floor_view(conn: psycopg.Connection, alerts: int = 3) -> dict[str, Any]:
    """The whole floor now (money in cents, times ISO)."""
    said: dict[str, list[dict[str, Any]]] = {}
    for table_id, at, kind, message in conn.execute(ALERTS, (alerts,)).fetchall():
        said.setdefault(table_id, []).append({"at": at, "kind": kind, "message": message})
    devices: dict[str, dict[str, Any]] = {}
    offline = tuple(device_says(role, "not answering") for role in ROLES)      # the table's own sentence
    for table_id, role, online, at in conn.execute(DEVICES, offline).fetchall():
        devices.setdefault(table_id, {})[role] = {"online": online, "since": at}
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
    for table_id, group_id, state, round_id, last_seq, last_received in conn.execute(TABLES).fetchall():
        locked = sorted(lv for lv, v in groups.get(group_id, {}).items() if v["state"] == "pending")
        tables.append({"id": table_id, "group": group_id, "state": state, "round": round_id,
                       "records": last_seq or 0,
                       "last_heard": last_received.isoformat(timespec="seconds") if last_received else None,
                       "alerts": said.get(table_id, []), "jackpot_pending": locked,
                       "devices": devices.get(table_id, {})})
    return {"tables": tables, "groups": groups, "pending": pending, "holding": holding, "unpaid": unpaid}
