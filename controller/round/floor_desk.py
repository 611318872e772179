"""The table's side of a linked Super 6 jackpot (docs/floor-jackpot.md): hits claimed on the floor, locks, new values.

Owns ``LinkedJackpotDesk``: the local desk (controller/round/jackpot_desk.py: the sign, Super 6
closing, hits verified by a supervisor) with what the table does with the floor's jackpot facts, all
of them brought by the engine's thread as events the forwarder posted
(controller/floor/table_jackpot.py); nothing here talks to the floor:

- A hit on a linked table is journaled as ``jackpot_pending`` (level, seat, bet, share, and the
  generation the round was dealt under) in the reveal's own transaction, right after the
  settlement, and its level is locked at once (``jackpot_locked``): nothing is paid on the
  table's own arithmetic. The forwarder claims it; each answer of the floor that differs from
  the last is journaled as ``jackpot_claimed``; a final one states the settlement again with the
  floor's amount (the round's last ``settlement`` record, which meters and reports read).
- The dealer pays the other positions from the dealer's right as usual, passing over a position
  whose jackpot waits for the floor; it is paid last, once the floor's split is final and a
  supervisor verified the six cards (verification comes first, as for any hit: nothing is paid
  before it). The round completes only then.
- A level won anywhere in the group is locked (JACKPOT PENDING on the page and the sign, Super
  6 closed); once no round dealt before the lock can still claim it, the table journals
  ``jackpot_lock_taken`` and the forwarder tells the floor (``floor.ack_lock``).
- The floor's new values are taken between rounds only (``jackpot_posted`` by the floor, with
  each level's generation); Super 6 reopens when the sign confirms them.
"""

from __future__ import annotations

import copy
from typing import Any

from controller.round import machine as procedure
from controller.round.jackpot_desk import LocalJackpotDesk
from controller.round.ports import ShowMessage
from controller.rules.words import money
from controller.store.jackpot import posting_changes


class LinkedJackpotDesk(LocalJackpotDesk):

    # --- the floor's levels: locks and new values -------------------------------------------

    def on_floor_levels(self, levels: dict[str, dict]) -> None:
        """The group's levels as the floor holds them now (at each connect and each notice)."""
        before = self._board.super6_closed()
        for level, generation in self._board.floor_levels(levels):
            self._lock(level, generation, "at a table of the group")
        self.floor_duties()
        self._super6_maybe_changed(before)

    def _lock(self, level: str, generation: int, where: str) -> None:
        self._clerk.journal.table_event("jackpot_locked", {"level": level, "generation": generation})
        self._board.lock(level, generation)
        self._clerk.alert("jackpot_locked", f"JACKPOT PENDING: {level.upper()} won {where}. Super 6 is closed until "
                          "its new value is posted on the floor and shown")
        self.show_on_sign()

    def floor_duties(self) -> None:
        """After every event (the engine calls it): tell the floor of each lock taken once no round dealt
        before it can still claim it, and take the floor's new values when no round is in play."""
        board = self._board
        for level, generation in sorted(board.locks.items()):
            if (level, generation) not in board.locks_taken and self._nothing_to_claim(level, generation):
                self._clerk.journal.table_event("jackpot_lock_taken", {"level": level, "generation": generation})
                board.locks_taken.add((level, generation))
        if board.offer is not None and self._clerk.state in procedure.BETWEEN_ROUNDS:
            before = board.super6_closed()
            doc = board.take_offer()
            if doc is not None:
                self._clerk.log.info("jackpot.posted", by=doc["by"], reason=doc["reason"], old=doc["old"],
                                     new=doc["values"], generations=doc.get("generations"), state=self._clerk.state)
                changes = ", ".join(posting_changes(doc)) or "the values already shown"
                generations = ", ".join(f"{n.upper()} {g}" for n, g in doc["generations"].items())
                self._clerk.alert("jackpot_posted", f"Jackpot values taken from the {doc['by']}, {doc['reason']}: "
                                  f"{changes} (generations {generations})")
                self.show_on_sign()
                self._clerk.emit(ShowMessage(""))
                self._super6_maybe_changed(before)

    def _nothing_to_claim(self, level: str, generation: int) -> bool:
        """No round dealt before the lock can still bring a claim of (level, generation): none is open,
        it was dealt under another generation, took no Super 6 wager (Super 6 is closed from the lock
        on), or is settled with its hit of that level, if any, claimed."""
        rnd = self._clerk.round
        if rnd is None or rnd.complete or rnd.void_reason is not None:
            return True
        if rnd.generations.get(level) != generation or not any(w.get("super6") for w in rnd.wagers.values()):
            return True
        if rnd.settlement is None:
            return False                    # its cards are still to come
        hit = rnd.floor_hits.get(level)
        return hit is None or hit["claim"] is not None

    # --- a hit ---------------------------------------------------------------------------------

    def claim_hits(self) -> None:
        """At the reveal, after the settlement (machine.JOURNALS): each linked hit to claim on the floor."""
        rnd = self._clerk.open_round
        for hit in (rnd.settlement or {}).get("jackpot_hits", []):
            level, generation = hit["jackpot"], rnd.generations.get(hit["jackpot"])
            if generation is None:          # Super 6 stays closed until the floor's values are taken
                self._clerk.alert("jackpot_claim", f"{level.upper()} hit at position {hit['seat']} in a round opened "
                                  "before the floor's values were taken: call the floor's administrator")
                continue
            self._clerk.fact("jackpot_pending", jackpot=level, seat=hit["seat"], bet=hit["bet"],
                             share_percent=hit["share_percent"], generation=generation)
            if self._board.locks.get(level, 0) < generation:       # before the floor's notice comes back
                before = self._board.super6_closed()
                self._lock(level, generation, f"at this table (position {hit['seat']})")
                self._super6_maybe_changed(before)

    def on_jackpot_claimed(self, round_id: int, level: str, answer: dict | None, refused: str | None,
                           for_good: bool = False) -> None:
        """The floor's answer to the claim of a hit (or its refusal, ``for_good`` when no mending on
        the floor can make it stand), posted by the forwarder."""
        rnd = self._clerk.round
        hit = rnd.floor_hits.get(level) if rnd is not None and rnd.id == round_id and not rnd.complete else None
        if hit is None or (hit["claim"] or {}).get("final"):
            # a round already paid: its journal has the final answer
            self._clerk.log.info("jackpot.claim_answer_ignored", round=round_id, level=level, answer=answer,
                                 state=self._clerk.state)
            return
        if refused is None and answer is not None and (problem := self._answer_problem(rnd, level, answer)):
            # the floor's answer is paid as it stands: one this table could never owe (a floor edited by
            # hand) is refused, to be mended on the floor, as a claim the floor itself refused
            refused, for_good = f"its answer cannot be paid ({problem})", False
        if refused is not None:
            if hit["refused"] != refused:
                self._clerk.fact("jackpot_claimed", jackpot=level, seat=hit["seat"], refused=refused,
                                 **({"for_good": True} if for_good else {}))
                self._clerk.alert("jackpot_claim", f"The floor refused the {level.upper()} claim of position "
                                  f"{hit['seat']}: {refused}. Nothing is paid; " +
                                  ("a supervisor may settle the round without the linked award, which the floor "
                                   "then holds as owed to the player" if for_good else
                                   "call the floor's administrator (the claim is sent again until it stands)"),
                                  hit["seat"])
            return
        if answer is None or hit["claim"] == answer:
            return
        self._clerk.fact("jackpot_claimed", jackpot=level, seat=hit["seat"], **answer)
        split = f"{answer['winners']} winners, claim {answer['claim_order']}" if answer["winners"] > 1 else "alone"
        final = "" if answer["final"] else "; not final until every table of the group took the lock"
        self._clerk.alert("jackpot_claim", f"{level.upper()} claimed on the floor ({split}): position {hit['seat']}'s "
                          f"part {money(answer['amount'])}{final}", hit["seat"])
        if answer["final"]:
            self._state_again(level, answer)

    @staticmethod
    def _answer_problem(rnd: Any, level: str, answer: dict) -> str | None:
        """Why the floor's answer to a hit's claim cannot be this table's to pay: another generation than
        the round was dealt under, or an amount that is no whole number of cents up to the hit's part of
        the value the round was dealt under (a split is less)."""
        hit, amount = rnd.floor_hits[level], answer.get("amount")
        if answer.get("generation") != hit.get("generation"):
            return (f"it answers generation {answer.get('generation')}, the round was dealt under generation "
                    f"{hit.get('generation')}")
        most = rnd.jackpots.get(level, 0) * hit.get("share_percent", 100) // 100
        if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= most:
            return f"its amount {amount!r} is not from $0.01 to the {money(most)} the hit wins alone"
        return None

    def refer_problem(self) -> str | None:
        """refer_jackpot's condition: a linked hit of this round the floor refused for good. A refusal
        the floor's administrator can mend (no group, no level on the floor) is not: the claim is sent
        again and stands once mended, and settling it without the award meanwhile would leave the floor
        counting a part of its split that nobody paid."""
        if self._refused_hits():
            return None
        mendable = [level for level, hit in self._clerk.open_round.floor_hits.items()
                    if hit["refused"] and not hit["for_good"] and not (hit["claim"] or {}).get("final")]
        if mendable:
            return (f"the floor's refusal of the {mendable[0].upper()} claim can be mended by the floor's "
                    "administrator: the claim is sent again until it stands; call the administrator")
        return "no linked jackpot claim of this round was refused by the floor"

    def refer(self, by: str, reason: str) -> None:
        """A supervisor settles each linked hit refused for good without its award: the position is
        paid what else it won and its Super 6 wager is returned (neither won nor lost), and the claim
        is referred to the floor with who, why and the floor's words, so the round can end (casino
        policy, docs/floor-jackpot.md). The record reaches the floor like every record: its
        ``linked_hits`` view holds the win as referred, owed by the floor's decision."""
        clerk = self._clerk
        for level, hit in self._refused_hits():
            clerk.fact("jackpot_referred", jackpot=level, seat=hit["seat"], refused=hit["refused"], by=by,
                       reason=reason)
            self._state_again(level, clerk.open_round.floor_hits[level]["claim"])   # final at nothing now
            clerk.alert("jackpot_referred", f"{level.upper()} claim of position {hit['seat']} referred to the floor by "
                        f"the {by}: Super 6 wager returned, the rest paid as settled", hit["seat"])

    def _refused_hits(self) -> list[tuple[str, dict]]:
        """The open round's linked hits the floor refused for good and nobody has settled yet, by level."""
        return [(level, hit) for level, hit in self._clerk.open_round.floor_hits.items()
                if hit["refused"] and hit["for_good"] and not (hit["claim"] or {}).get("final")]

    def _state_again(self, level: str, claim: dict) -> None:
        """The settlement once more, with the floor's final amount for the hit (the round's last one)."""
        rnd = self._clerk.open_round
        doc = copy.deepcopy(rnd.settlement or {})
        for hit in doc.get("jackpot_hits", []):
            if hit["jackpot"] != level:
                continue
            seat = next(s for s in doc["seats"] if s["seat"] == hit["seat"])
            seat["net"] += claim["amount"] - seat["results"]["super6"]
            seat["results"]["super6"] = claim["amount"]
            hit.update(amount=claim["amount"], winners=claim["winners"], posted=claim["value"],
                       claim_order=claim["claim_order"], generation=claim["generation"], final=True,
                       **({"referred": claim["referred"]} if claim.get("referred") else {}))
        self._clerk.fact("settlement", **doc)
        self._board.reread_hits()
        if rnd.jackpot_verified_by and not claim.get("referred"):
            self._clerk.emit(ShowMessage(f"{level.upper()} JACKPOT POSITION {self._hit_seat(level)} "
                                         f"{money(claim['amount'])}"))

    def _hit_seat(self, level: str) -> int:
        return self._clerk.open_round.floor_hits[level]["seat"]

    def floor_claims(self) -> list[dict[str, Any]]:
        """The open round's linked hits with the floor's answer so far (the snapshot's ``jackpot_claims``)."""
        rnd = self._clerk.round
        if rnd is None or rnd.complete:
            return []
        return [self.floor_status({"jackpot": level, "seat": hit["seat"], "bet": hit["bet"]})
                for level, hit in rnd.floor_hits.items()]

    def pending_hits(self) -> list[dict[str, Any]]:
        return [self.floor_status(hit) for hit in super().pending_hits()]

    def floor_status(self, hit: dict[str, Any]) -> dict[str, Any]:
        """A hit as the page shows it: a linked one with the floor's answer (its amount once final)."""
        rnd = self._clerk.round
        linked = rnd.floor_hits.get(hit["jackpot"]) if rnd is not None else None
        if linked is None:
            return hit
        claim = linked["claim"]
        status = ("refused by the floor: " + linked["refused"] if linked["refused"] else
                  "waiting for the floor" if claim is None else
                  "final" if claim["final"] else "claimed; the split is not final yet")
        # the amount to pay is the floor's final one: a part of a split that is not final may still shrink
        return dict(hit, linked=True, generation=linked["generation"], claim=claim, floor=status,
                    amount=claim["amount"] if claim and claim["final"] else None)
