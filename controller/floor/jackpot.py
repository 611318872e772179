"""The linked Super 6 jackpot on the floor: groups, postings, claims and locks (floor side only).

Owns the Python side of the floor's jackpot tables (controller/floor/schema.sql): making a
group of tables with its opening values, a supervisor posting new values (who and why, the
24-hour rule, never over a split that is not final), and the table's calls, made with its own
role: ``claim`` (``floor.claim_jackpot``: one transaction, the level's row ``FOR UPDATE``,
exactly once per table, round and level, the claim's order and the same hand's split recorded)
and ``ack_lock`` (the table took the lock and settled every round dealt before it; when all
the group's tables have, the split is final and may be paid after a supervisor verified the
cards). The table's side: controller/floor/table_jackpot.py and controller/round/floor_desk.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import psycopg

from controller.floor.schema import FloorError
from controller.rules.paytable import CEILINGS, JACKPOTS
from controller.rules.typed_text import text_problem
from controller.rules.words import money

CHANGE_INTERVAL = timedelta(hours=24)      # the rule sheet's: values change at most once a day, unless won
CHANNEL = "floor_jackpot"                  # NOTIFY: {"group", "level", "state", "generation"}
# the most a level may be: the table's own absolute ceiling for a jackpot (controller/rules/paytable.py).
# Larger ones were taken and then failed every claim (the split, value x share, is a bigint)
MOST_CENTS = CEILINGS["jackpot"].absolute


class ClaimUnanswered(psycopg.IntegrityError):
    """The floor recorded the claim (its order kept, the level locked) but answered no row: the
    generation's posting is missing, a floor edited by hand. Told as a refusal, not for good: the
    administrator mends the floor and the claim, sent again, is answered as recorded."""


@dataclass(frozen=True)
class Claim:
    claim_order: int            # 1 for the claim that locked the level, then in the floor's order
    winners: int                # claims of this generation so far (the same hand)
    amount: int                 # this claim's part, cents (it may shrink while the split is not final)
    generation: int
    value: int                  # the generation's posted value, cents
    final: bool                 # every table of the group took the lock: the split can change no more


def _check_values(values: dict[str, int]) -> None:
    for name in JACKPOTS:
        v = values.get(name)
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise FloorError(f"{name.upper()} must be a whole number of cents above 0, not {v!r}")
        if v > MOST_CENTS:
            raise FloorError(f"{name.upper()} must be at most {MOST_CENTS} cents ({money(MOST_CENTS)}), not {v}")
    if not values["mega"] >= values["major"] >= values["minor"]:
        raise FloorError("values must be MEGA >= MAJOR >= MINOR")


def _check_typed(by: str, reason: str) -> None:
    """The table's rule for typed text (controller/rules/typed_text.py), as the pit's page applies it: the
    command line recorded a reason with a terminal's escapes for every later reader of the floor."""
    for name, value in (("the supervisor's name", by), ("reason", reason)):
        if (problem := text_problem(name, value)) is not None:
            raise FloorError(problem)


def create_group(conn: psycopg.Connection, group_id: str, tables: list[str], values: dict[str, int], *,
                 by: str, reason: str) -> None:
    """A jackpot group of ``tables`` with its opening values (generation 1), in one transaction."""
    _check_values(values)
    with conn.transaction():
        conn.execute("INSERT INTO floor.jackpot_groups (id) VALUES (%s)", (group_id,))
        for t in tables:
            conn.execute("INSERT INTO floor.group_tables (table_id, group_id) VALUES (%s, %s)", (t, group_id))
        for level in JACKPOTS:
            conn.execute("INSERT INTO floor.jackpot_levels (group_id, level, generation, value) VALUES (%s, %s, 1, %s)",
                         (group_id, level, values[level]))
            conn.execute("INSERT INTO floor.jackpot_postings (group_id, level, generation, value, posted_by, reason) "
                         "VALUES (%s, %s, 1, %s, %s, %s)", (group_id, level, values[level], by, reason))


def join_group(conn: psycopg.Connection, table_id: str, group_id: str | None) -> None:
    """Put a table in a jackpot group (``None``: out of any). Refused in the floor's words while a
    level of the group it leaves or joins is pending: a split counts the group's tables as they
    were when the level was won (schema.sql ``floor.group_frozen``)."""
    try:
        with conn.transaction():
            if group_id is None:
                conn.execute("DELETE FROM floor.group_tables WHERE table_id = %s", (table_id,))
            else:
                conn.execute("INSERT INTO floor.group_tables (table_id, group_id) VALUES (%s, %s) "
                             "ON CONFLICT (table_id) DO UPDATE SET group_id = excluded.group_id", (table_id, group_id))
    except (psycopg.errors.ObjectNotInPrerequisiteState, psycopg.errors.ForeignKeyViolation) as err:
        raise FloorError(str(err.diag.message_primary or err)) from err


def post_values(conn: psycopg.Connection, group_id: str, values: dict[str, int], *, by: str, reason: str,
                now: datetime | None = None) -> dict[str, int]:
    """New values for the group (a supervisor's, with a reason). A level that was won (pending) gets
    its next generation, and so does one whose value changes; refused within 24 hours of the last
    posting unless a level was won since, and while a won level's split is not final (naming the
    tables that have not taken its lock). Returns each level's generation now."""
    _check_values(values)
    if not by.strip() or not reason.strip():
        raise FloorError("a posting names who posts it and why")
    _check_typed(by, reason)
    with conn.transaction():
        rows = conn.execute("SELECT level, generation, value, state FROM floor.jackpot_levels WHERE group_id = %s "
                            "ORDER BY level FOR UPDATE", (group_id,)).fetchall()
        if not rows:
            raise FloorError(f"jackpot group {group_id!r} does not exist")
        levels = {level: (gen, value, state) for level, gen, value, state in rows}
        won = [lv for lv, (_, _, state) in levels.items() if state == "pending"]
        last = conn.execute("SELECT max(posted_at) FROM floor.jackpot_postings WHERE group_id = %s",
                            (group_id,)).fetchone()
        clock = now or conn.execute("SELECT now()").fetchone()[0]     # type: ignore[index]
        if not won and last and last[0] and clock - last[0] < CHANGE_INTERVAL:
            raise FloorError(f"group {group_id}: the values were last posted at {last[0]:%Y-%m-%d %H:%M}; without "
                             "a win in between they may change again 24 hours after that")
        for level in won:
            gen = levels[level][0]
            if _final(conn, group_id, level, gen):     # every table took the lock, or the claims were closed
                continue
            missing = tables_without_ack(conn, group_id, level, gen)
            raise FloorError(f"group {group_id}: the {level.upper()} split of generation {gen} is not final: "
                             f"table(s) {', '.join(missing)} have not taken its lock")
        out = {}
        for level in JACKPOTS:
            gen, value, state = levels[level]
            if state == "pending" or value != values[level]:
                gen += 1
                conn.execute("UPDATE floor.jackpot_levels SET generation = %s, value = %s, state = 'open', "
                             "pending_since = NULL WHERE group_id = %s AND level = %s",
                             (gen, values[level], group_id, level))
                conn.execute("INSERT INTO floor.jackpot_postings (group_id, level, generation, value, posted_by, "
                             "reason) VALUES (%s, %s, %s, %s, %s, %s)",
                             (group_id, level, gen, values[level], by, reason))
                _notify(conn, group_id, level, "open", gen)
            out[level] = gen
    return out


def claim(conn: psycopg.Connection, round_id: int, level: str, position: int, bet: int, share_percent: int,
          generation: int) -> Claim:
    """The table's claim of a hit (its own role's connection): the floor's answer, the same whenever
    resent; refused (psycopg.IntegrityError naming table and round) when it cannot stand."""
    with conn.transaction():
        row = conn.execute("SELECT * FROM floor.claim_jackpot(%s, %s, %s, %s, %s, %s)",
                           (round_id, level, position, bet, share_percent, generation)).fetchone()
    if row is None:                         # never an assert: it ended the forwarder's thread
        raise ClaimUnanswered(f"round {round_id}: the floor gave no answer to the {level} claim (generation "
                              f"{generation} has no posting on the floor): call the floor's administrator")
    return Claim(*row)


def ack_lock(conn: psycopg.Connection, level: str, generation: int) -> bool:
    """The table took the level's lock and settled every round dealt before it; whether the split is final."""
    with conn.transaction():
        row = conn.execute("SELECT floor.ack_lock(%s, %s)", (level, generation)).fetchone()
    return bool(row and row[0])


def close_claims(conn: psycopg.Connection, group_id: str, level: str, generation: int, *, by: str,
                 reason: str) -> list[dict]:
    """A floor supervisor ends a won generation's claims while a table of the group cannot take the
    lock (cut off, closed): the split is final among the claims received, a later claim is refused
    (its table settles it without the linked award, ``refer_jackpot``), and the group is told at
    once. Returns the claims, final. Refused in words when there is nothing to close."""
    if not by.strip() or not reason.strip():
        raise FloorError("closing the claims names who closes them and why")
    _check_typed(by, reason)
    with conn.transaction():
        row = conn.execute("SELECT generation, state FROM floor.jackpot_levels WHERE group_id = %s AND level = %s "
                           "FOR UPDATE", (group_id, level)).fetchone()
        if row is None:
            raise FloorError(f"jackpot group {group_id!r} has no {level} level")
        if row != (generation, "pending") or _final(conn, group_id, level, generation):
            raise FloorError(f"{level.upper()} generation {generation} of group {group_id} has no claims waiting "
                             f"to be made final (the level is at generation {row[0]}, {row[1]})")
        conn.execute("INSERT INTO floor.claim_windows_closed (group_id, level, generation, closed_by, reason) "
                     "VALUES (%s, %s, %s, %s, %s)", (group_id, level, generation, by, reason))
        conn.execute("SELECT floor.make_final(%s, %s, %s, 'closed')", (group_id, level, generation))
        _notify(conn, group_id, level, "final", generation)
    return claims(conn, group_id, level, generation)


def _final(conn: psycopg.Connection, group_id: str, level: str, generation: int) -> bool:
    row = conn.execute("SELECT floor.split_final(%s, %s, %s)", (group_id, level, generation)).fetchone()
    return bool(row and row[0])


def _notify(conn: psycopg.Connection, group_id: str, level: str, state: str, generation: int) -> None:
    """The group's tables hear a level change (``CHANNEL``; ack_lock in schema.sql says "final" too)."""
    conn.execute("SELECT pg_notify(%s, json_build_object('group', %s::text, 'level', %s::text, 'state', %s::text, "
                 "'generation', %s::int)::text)", (CHANNEL, group_id, level, state, generation))


def claims(conn: psycopg.Connection, group_id: str, level: str, generation: int) -> list[dict]:
    """A generation's claims in the floor's order, with their split."""
    cur = conn.execute("SELECT claim_order, table_id, round_id, position, bet, share_percent, winners, amount, "
                       "claimed_at FROM floor.jackpot_claims WHERE group_id = %s AND level = %s AND generation = %s "
                       "ORDER BY claim_order", (group_id, level, generation))
    names = [d.name for d in cur.description or []]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


HIT_STATES = ("claimed", "referred", "unclaimed", "disputed")


def linked_hits(conn: psycopg.Connection, group_id: str | None = None, state: str | None = None) -> list[dict]:
    """Every linked hit the tables journaled, as the floor's records hold them, with what became of
    it (schema.sql ``floor.linked_hits``): oldest first, for a group and a state when given. A
    ``referred`` hit was settled at its table without the award: the floor owes it by its own decision."""
    cur = conn.execute("SELECT table_id, round_id, level, group_id, generation, position, bet, hit_at, claim_order, "
                       "winners, amount, final, referred_by, referral_reason, refused, referred_at, state "
                       "FROM floor.linked_hits WHERE (%(g)s::text IS NULL OR group_id = %(g)s) "
                       "AND (%(s)s::text IS NULL OR state = %(s)s) ORDER BY hit_at, table_id, round_id, level",
                       {"g": group_id, "s": state})
    names = [d.name for d in cur.description or []]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def tables_without_ack(conn: psycopg.Connection, group_id: str, level: str, generation: int) -> list[str]:
    """The group's tables that have not taken a generation's lock (the split waits for them)."""
    return [t for (t,) in conn.execute(
        "SELECT gt.table_id FROM floor.group_tables gt WHERE gt.group_id = %s AND NOT EXISTS ("
        "SELECT 1 FROM floor.lock_acks a WHERE a.group_id = gt.group_id AND a.level = %s "
        "AND a.generation = %s AND a.table_id = gt.table_id) ORDER BY 1", (group_id, level, generation))]

