"""The table's side of the linked Super 6 jackpot on the forwarder's connection (docs/floor-jackpot.md).

Owns what the forwarder's thread does for a table with ``[floor] jackpot_group``, on the
forwarder's own PostgreSQL connection (the engine never waits on the floor):

- ``LISTEN floor_jackpot``; at each connect and after each notice (a claim locking a level, a
  posting) it reads the group's levels and hands them to ``on_levels`` (the run posts them to
  the engine as ``FloorJackpots``: the round core locks, or takes new values between rounds).
  Reading the levels whole, rather than trusting the notices, means a lock or a posting made
  while the link was down is seen at the next connect.
- The hits to claim are the journal's: ``jackpot_pending`` records without a final
  ``jackpot_claimed`` (read at each connect, so a table killed between its hit and its claim
  claims again at its next start and the floor answers as recorded), and each new one as it is
  forwarded. Each is claimed (``floor.claim_jackpot``) until the floor's answer is final; an
  answer that differs from the last goes to ``on_claim`` (the engine journals it). A refusal is
  told once and retried slowly (the floor's refusal does not change by itself).
- The locks the table took (``jackpot_lock_taken`` table events) are acknowledged
  (``floor.ack_lock``); both calls are idempotent, so a resend after a lost answer is harmless.
- After every connect the hits already paid on a final answer (the newest ``RECHECK`` of them)
  are claimed once more and the floor's answer compared with the one the table paid: a floor
  that lost or changed a claim (a failover to a standby that had not received it, a restore) is
  told to ``on_differs`` (the engine alerts and journals it), and a claim it lost is recorded again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import psycopg

from controller.floor.jackpot import CHANNEL, ack_lock, claim
from controller.store.journal import Journal
from controller.store.outbox import Fact, final_claims, hits_to_claim, locks_taken

REFUSED_RETRY = 10.0        # seconds before a refused claim is sent again
RECHECK = 50                # final claims sent again after each connect (a table hits a few a month)
# claim_jackpot's refusals no mending on the floor can undo (schema.sql): claims closed, a later
# generation posted, a resend that differs, a split already final. Only these may be settled
# without the award.
REFUSED_FOR_GOOD = frozenset({"23J01", "23J02", "23J03", "23J04"})
ANSWER = ("claim_order", "winners", "amount", "generation", "value", "final")   # what the floor answers
LEVELS = ("SELECT l.level, l.generation, l.value, l.state, p.posted_by, p.reason, p.posted_at "
          "FROM floor.jackpot_levels l JOIN floor.jackpot_postings p ON p.group_id = l.group_id "
          "AND p.level = l.level AND p.generation = l.generation WHERE l.group_id = %s")


class TableJackpot:
    def __init__(self, group: str, on_levels: Callable[[dict[str, dict[str, Any]]], None] | None,
                 on_claim: Callable[[int, str, dict | None, str | None, bool], None] | None, log: Any,
                 on_differs: Callable[[int, str, dict, dict | None, str | None], None] | None = None):
        self.group = group
        self.on_levels = on_levels
        self.on_claim = on_claim
        self.on_differs = on_differs                        # a paid final answer the floor now answers otherwise
        self._finals: list[dict] = []                       # paid final claims to send again on this connection
        self.log = log
        self._hits: dict[tuple[int, str], dict] = {}        # (round, level) -> the pending hit, until final
        self._answers: dict[tuple[int, str], Any] = {}      # the last answer told (a Claim, or a refusal)
        self._retry_at: dict[tuple[int, str], float] = {}
        self._acks: dict[str, int] = {}                     # locks taken, not yet acknowledged
        self._levels_due = True
        self._levels_retry_at = 0.0
        self.claims_sent = 0

    def connected(self, conn: psycopg.Connection, journal: Journal) -> None:
        """A new connection: listen, and take again from the journal what is still to tell the floor."""
        conn.execute(f"LISTEN {CHANNEL}")
        self._levels_due, self._levels_retry_at = True, 0.0
        self._answers.clear()
        self._retry_at.clear()
        self._hits = {(h["round_id"], h["jackpot"]): h for h in hits_to_claim(journal)}
        self._acks = locks_taken(journal)
        self._finals = final_claims(journal, RECHECK)

    def saw(self, facts: list[Fact]) -> None:
        """Facts just read from the journal: a new hit to claim, a new lock taken."""
        for fact in facts:
            if fact.kind == "jackpot_pending" and fact.round_id is not None:
                doc = json.loads(fact.text)
                self._hits[(fact.round_id, doc["jackpot"])] = dict(doc, round_id=fact.round_id)
            elif fact.kind in ("jackpot_claimed", "jackpot_referred") and fact.round_id is not None:
                doc = json.loads(fact.text)
                # the final answer journaled, or the hit settled without the award: nothing more to tell
                if fact.kind == "jackpot_referred" or doc.get("final"):
                    self._hits.pop((fact.round_id, doc["jackpot"]), None)
                    self._answers.pop((fact.round_id, doc["jackpot"]), None)
            elif fact.kind == "jackpot_lock_taken":
                doc = json.loads(fact.text)
                self._acks[doc["level"]] = max(doc["generation"], self._acks.get(doc["level"], 0))

    def work(self, conn: psycopg.Connection, wait: float = 0.0) -> None:
        """Wait up to ``wait`` seconds for a notice, then do what is due: claims first (their order
        is the floor's record of who won first), then acknowledgements, then the levels."""
        for note in conn.notifies(timeout=wait, stop_after=1):
            try:
                self._levels_due |= json.loads(note.payload).get("group") == self.group
            except (ValueError, AttributeError):
                self._levels_due = True
        self._claim(conn)
        self._recheck(conn)
        for level, generation in list(self._acks.items()):
            try:
                final = ack_lock(conn, level, generation)
            except psycopg.IntegrityError as err:
                # a lock of a generation the floor has not won (a floor restored from an older copy): said
                # and sent again at the next connect; were it the forwarder's refusal, nothing would be sent
                self.log.error("floor.lock_ack_refused", level=level, generation=generation,
                               reason=str(getattr(err.diag, "message_primary", None) or err))
            else:
                self.log.info("floor.lock_acked", level=level, generation=generation, final=final)
            if self._acks.get(level) == generation:
                del self._acks[level]
        if self._levels_due and self._levels_retry_at <= time.monotonic():
            self._levels_due = False
            rows = conn.execute(LEVELS, (self.group,)).fetchall()
            if not rows:                        # Super 6 stays closed; asked again now and then
                self.log.error("floor.jackpot_group_unknown", group=self.group)
                self._levels_due, self._levels_retry_at = True, time.monotonic() + REFUSED_RETRY
            elif self.on_levels is not None:
                self.on_levels({level: {"generation": gen, "value": value, "state": state, "posted_by": by,
                                        "reason": reason, "posted_at": at.isoformat()}
                                for level, gen, value, state, by, reason, at in rows})

    def _claim(self, conn: psycopg.Connection) -> None:
        now = time.monotonic()
        for key, hit in list(self._hits.items()):
            if self._retry_at.get(key, 0.0) > now:
                continue
            try:
                answer = claim(conn, hit["round_id"], hit["jackpot"], hit["seat"], hit["bet"], hit["share_percent"],
                               hit["generation"])
            except psycopg.IntegrityError as err:   # refused: a resend that differs, an old generation
                refused = str(getattr(err.diag, "message_primary", None) or err)
                for_good = err.sqlstate in REFUSED_FOR_GOOD
                self._retry_at[key] = now + REFUSED_RETRY
                if self._answers.get(key) != refused:
                    self._answers[key] = refused
                    self.log.error("floor.claim_refused", round=key[0], level=key[1], reason=refused,
                                   sqlstate=err.sqlstate, for_good=for_good)
                    self._tell(key, None, refused, for_good)
                continue
            self.claims_sent += 1
            if self._answers.get(key) != answer:
                self._answers[key] = answer
                self.log.info("floor.claimed", round=key[0], level=key[1], answer=asdict(answer))
                self._tell(key, asdict(answer), None, False)
            if answer.final:
                # kept until the journal shows it (``saw``): an answer the engine did not journal (its
                # internal-error path, a halt) is told again, never lost until the link drops
                self._answers.pop(key, None)
                self._retry_at[key] = now + REFUSED_RETRY

    def _recheck(self, conn: psycopg.Connection) -> None:
        """Send each paid final claim again, once per connection, and compare the floor's answer with
        the one paid (a link error leaves the rest for the next connection)."""
        while self._finals:
            hit = self._finals[0]
            paid = {k: hit["answer"].get(k) for k in ANSWER}
            answer: dict | None = None
            refused: str | None = None
            try:
                answer = asdict(claim(conn, hit["round_id"], hit["jackpot"], hit["seat"], hit["bet"],
                                      hit["share_percent"], hit["generation"]))
            except psycopg.IntegrityError as err:
                refused = str(getattr(err.diag, "message_primary", None) or err)
            self._finals.pop(0)
            if answer == paid:
                continue
            self.log.error("floor.final_claim_differs", round=hit["round_id"], level=hit["jackpot"], paid=paid,
                           answer=answer, refused=refused)
            if self.on_differs is not None:
                self.on_differs(hit["round_id"], hit["jackpot"], paid, answer, refused)

    def _tell(self, key: tuple[int, str], answer: dict | None, refused: str | None, for_good: bool) -> None:
        if self.on_claim is not None:
            self.on_claim(key[0], key[1], answer, refused, for_good)
