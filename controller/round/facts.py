"""One round's facts, rebuilt from its journal records.

Owns the meaning of every journal record kind and the only code that changes
a round's data: ``Round.apply(kind, data)``. The engine journals a record
first and applies it second, and recovery applies the same records in the
same order, so a round after a restart is the round before it, by
construction rather than by a second code path.

Record kinds (data fields):
  opened     round, preset, deck, config_digest, play_digest?, jackpots, generations? (a linked jackpot:
             each level's), dealer? (the dealer signed in, who deals the round; null at a table whose
             dealers do not sign in; absent before issue 31)
  shuffle    deck                            a shuffle was asked for (again, after a restart)
  shuffled   deck, count                     the shoe's shuffle for this round
  deck_check deck, ok, count, missing, duplicates, foreign [[card, deck]]   the deck after the shuffle
  override   position, spot, amount, by, reason   a supervisor's reading of a spot during betting
  wagers     positions {pos: {spot: cents}}, linked [[a, b]]   at "No more bets"; felt? [[ms after
             opened, position, spot, cents (0 taken away, null amount unread)]] every bet spot's change
             while betting was open, in order (since issue 34); felt_cut? changes past the first 400
  hand       hand_no, target (position, 0 = dealer, -1 = dead hand), cards [[card, deck]], device_time?
                                              (card 0-51, or 255 where the shoe could not read it)
  decision   position, play (bool), by ("sensor" | "dealer")
  settlement the settlement JSON (controller/rules/roundio.py form), with announcement and returns
             [{position, spot, amount (None: unread), why}] (chips on the felt not accepted, at the
             reveal: handed back at settlement; absent before issue 31); a linked jackpot's final split
             states it again with the floor's amount (jackpot_hits[] gain claim_order, generation,
             final): the last one is the round's
  jackpot_pending   jackpot, seat, bet, share_percent, generation   a linked hit, to claim on the floor
  jackpot_claimed   jackpot, seat, and the floor's answer: claim_order, winners, amount, generation,
                    value, final; or refused (the floor's words) and for_good (true when no mending
                    on the floor can make it stand)
  jackpot_referred  jackpot, seat, refused, by, reason   a linked claim refused for good settled
                    without the linked award (Super 6 returned), referred to the floor by a supervisor
  jackpot_verified  hits (settlement's jackpot_hits with the six cards), by, reason
  paid       position, net, by, folded?       the dealer confirmed this position (folded: collected
                                              with the folds before the reveal)
  alert      kind, message, position?
  state      state, from?                    the machine entered this state (from: what a hold interrupted)
  void       reason, by
  complete   -
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DEALER = 0
DEAD_HAND = -1
UNREADABLE = 255          # a card the shoe could not read, as the journal's hand records keep it
CLAIM_KEYS = ("claim_order", "winners", "amount", "generation", "value", "final")   # the floor's answer


@dataclass
class Round:
    id: int
    preset: str = ""
    deck: int = 1
    config_digest: str = ""
    play_digest: str = ""               # what decides its play and settlement (none before session 11)
    jackpots: dict[str, int] = field(default_factory=dict)
    generations: dict[str, int] = field(default_factory=dict)   # a linked jackpot's, as dealt under
    dealer: str | None = None           # who dealt it (the dealer signed in when it opened)
    shuffled: bool = False
    shoe_count: int = 0
    deck_checked: bool = False          # the shoe's deck check after this round's shuffle passed
    overrides: dict[tuple[int, str], int] = field(default_factory=dict)   # supervisor readings, betting
    wagers: dict[int, dict[str, int]] = field(default_factory=dict)   # accepted at "No more bets"
    linked: list[tuple[int, int]] = field(default_factory=list)
    hands: dict[int, tuple[int, ...]] = field(default_factory=dict)   # position (0 dealer) -> cards
    dead_hands: list[tuple[int, ...]] = field(default_factory=list)
    hands_received: int = 0
    hand_cards: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)  # hand number -> cards
    cards_dealt: int = 0
    decisions: dict[int, bool] = field(default_factory=dict)          # position -> played
    decided_by: dict[int, str] = field(default_factory=dict)
    settlement: dict | None = None
    paid: dict[int, int] = field(default_factory=dict)
    jackpot_verified_by: str | None = None
    floor_hits: dict[str, dict] = field(default_factory=dict)  # level -> a linked hit and the floor's answer
    alerts: list[dict] = field(default_factory=list)
    state: str = "betting"
    reached: set[str] = field(default_factory=set)   # every state the round entered
    held_from: str | None = None
    void_reason: str | None = None
    complete: bool = False
    times: dict[str, str] = field(default_factory=dict)
    # ``active`` as worked out from ``wagers`` (that very dict: the wagers record replaces it whole)
    _active: tuple[dict, list[int]] | None = field(default=None, init=False, repr=False, compare=False)
    # records applied so far: what the snapshot drew from the round is kept while this is the same
    changes: int = field(default=0, init=False, repr=False, compare=False)

    # --- derived --------------------------------------------------------------------

    @property
    def active(self) -> list[int]:
        """Positions dealt a hand, in dealing order: from the dealer's left (position 1) on. Asked
        several times per event and per snapshot; worked out again only for new wagers."""
        kept = self._active
        if kept is None or kept[0] is not self.wagers:
            kept = self._active = (self.wagers, sorted(p for p, w in self.wagers.items() if any(w.values())))
        return list(kept[1])

    @property
    def hands_needed(self) -> int:
        return len(self.active) + 1

    def target_of(self, hand_index: int) -> int:
        """Where the n-th hand (0-based) goes: the active positions in order, then the dealer."""
        active = self.active
        return active[hand_index] if hand_index < len(active) else DEALER

    @property
    def deciders(self) -> list[int]:
        return [p for p in self.active if self.wagers[p].get("ante")]

    @property
    def folds(self) -> list[int]:
        return [p for p in self.deciders if self.decisions.get(p) is False]

    @property
    def undecided(self) -> list[int]:
        return [p for p in self.deciders if p not in self.decisions]

    @property
    def settlement_order(self) -> list[int]:
        return [s["seat"] for s in self.settlement["seats"]] if self.settlement else []

    @property
    def floor_waiting(self) -> set[int]:
        """Positions whose linked jackpot waits for the floor's final amount."""
        return {h["seat"] for h in self.floor_hits.values() if not (h["claim"] or {}).get("final")}

    @property
    def next_to_pay(self) -> int | None:
        """From the dealer's right; a position waiting for the floor is passed over (the others are
        not held for it) and is paid last, once the floor's amount is final."""
        unpaid = [p for p in self.settlement_order if p not in self.paid]
        waiting = self.floor_waiting
        return next((p for p in unpaid if p not in waiting), unpaid[0] if unpaid else None)

    def dealt_cards(self) -> list[int]:
        cards = [c for hand in self.hands.values() for c in hand]
        return cards + [c for hand in self.dead_hands for c in hand]

    @classmethod
    def from_records(cls, round_id: int, records) -> Round:
        """The round as its journal records leave it (recovery and recall both read it so)."""
        rnd = cls(round_id)
        for record in records:
            rnd.apply(record.kind, record.data, record.at)
        return rnd

    # --- the one writer -------------------------------------------------------------

    def apply(self, kind: str, data: dict[str, Any], at: str = "") -> None:
        handler = getattr(self, f"_on_{kind}", None)
        if handler is None:
            raise ValueError(f"journal record kind {kind!r} unknown")
        self.changes += 1                   # first: a handler that fails halfway may have changed the round
        handler(data)
        if at:
            self.times.setdefault(kind, at)
            self.times[f"last_{kind}"] = at

    def _on_opened(self, d):
        self.preset, self.deck = d["preset"], d["deck"]
        self.config_digest, self.play_digest = d.get("config_digest", ""), d.get("play_digest", "")
        self.jackpots = dict(d.get("jackpots", {}))
        self.generations = dict(d.get("generations", {}))
        self.dealer = d.get("dealer")

    def _on_shuffle(self, d):
        self.shuffled = self.deck_checked = False
        self.deck = d["deck"]

    def _on_deck_check(self, d):
        self.deck_checked = bool(d["ok"])

    def _on_shuffled(self, d):
        self.shuffled = True
        self.deck = d["deck"]
        self.shoe_count = d["count"]
        self.cards_dealt = 0

    def _on_override(self, d):
        self.overrides[(int(d["position"]), d["spot"])] = int(d["amount"])

    def _on_wagers(self, d):
        self.wagers = {int(p): {s: int(v) for s, v in w.items()} for p, w in d["positions"].items()}
        self.linked = [tuple(pair) for pair in d.get("linked", [])]

    def _on_hand(self, d):
        cards = tuple(c for c, _ in d["cards"])
        self.cards_dealt += len(d["cards"])
        if d["target"] == DEAD_HAND:
            self.dead_hands.append(cards)
        else:
            self.hand_cards[int(d["hand_no"])] = tuple((c, deck) for c, deck in d["cards"])
            self.hands[d["target"]] = cards
            self.hands_received += 1

    def _on_decision(self, d):
        self.decisions[int(d["position"])] = bool(d["play"])
        self.decided_by[int(d["position"])] = d["by"]

    def _on_settlement(self, d):
        self.settlement = d

    def _on_jackpot_verified(self, d):
        self.jackpot_verified_by = d["by"]

    def _on_jackpot_pending(self, d):
        self.floor_hits[d["jackpot"]] = dict(d, claim=None, refused=None, for_good=False)

    def _on_jackpot_referred(self, d):
        # settled without the linked award: final at nothing, the Super 6 wager itself returned
        hit = self.floor_hits[d["jackpot"]]
        hit["claim"] = {"claim_order": 0, "winners": 0, "amount": 0, "generation": hit["generation"], "value": 0,
                        "final": True, "referred": d["by"]}

    def _on_jackpot_claimed(self, d):
        hit = self.floor_hits[d["jackpot"]]
        if "refused" in d:
            hit["refused"], hit["for_good"] = d["refused"], bool(d.get("for_good"))
        else:
            hit["claim"], hit["refused"], hit["for_good"] = {k: d[k] for k in CLAIM_KEYS}, None, False

    def _on_paid(self, d):
        self.paid[int(d["position"])] = int(d["net"])

    def _on_alert(self, d):
        self.alerts.append(dict(d))

    def _on_state(self, d):
        self.state = d["state"]
        self.reached.add(d["state"])
        self.held_from = d.get("from")

    def _on_void(self, d):
        self.void_reason = d["reason"]

    def _on_complete(self, d):
        self.complete = True
