"""The jackpot desk: the table's Super 6 jackpot as the round sees it, and the table's own (local) desk.

Owns the interface every desk answers (``JackpotDesk``: what the round and the engine ask of a
jackpot) and ``LocalJackpotDesk``, the desk of a table whose jackpot is its own: how the table
reacts to the jackpot's facts (the rules and the postings themselves are in
controller/store/jackpot.py, the ``JackpotBoard`` it keeps): the sign confirming or failing, Super 6
closed while the jackpot cannot be seen or was just won (the felt locks and flags its spots), a hit
holding every payment until a supervisor has verified the six cards, and the supervisor posting new
values. A linked jackpot's desk, which adds the floor's claims and locks, is
controller/round/floor_desk.py. It asks the clerk (controller/round/clerk.py) to journal and to
command the sign; what it asks of the sign it returns as commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from controller.round import machine as procedure
from controller.round.clerk import Clerk
from controller.round.felt import Felt
from controller.round.ports import ShowJackpots, ShowMessage
from controller.rules.paytable import JACKPOTS
from controller.rules.words import money
from controller.store.jackpot import posting_changes, win_message

if TYPE_CHECKING:
    from controller.store.jackpot import JackpotBoard


class JackpotDesk(Protocol):
    """What the round and the engine ask of a table's jackpot, local or linked."""

    @property
    def linked(self) -> bool: ...
    def super6_closed(self) -> str | None: ...
    def opening(self) -> dict[str, Any]: ...
    def values(self) -> dict[str, int]: ...
    def view(self) -> dict[str, Any]: ...
    def offers_posting(self) -> bool: ...
    def show_on_sign(self) -> None: ...
    def sign_back(self) -> None: ...
    def on_sign_showing(self, values: dict[str, int]) -> None: ...
    def on_sign_failed(self, reason: str) -> None: ...
    def on_floor_link(self, up: bool, reason: str) -> None: ...
    def on_floor_levels(self, levels: dict[str, dict]) -> None: ...
    def on_jackpot_claimed(self, round_id: int, level: str, answer: dict | None, refused: str | None,
                           for_good: bool = False) -> None: ...
    def floor_duties(self) -> None: ...
    def pending_hits(self) -> list[dict[str, Any]]: ...
    def floor_claims(self) -> list[dict[str, Any]]: ...
    def announce_hits(self) -> None: ...
    def verify(self, by: str, reason: str) -> None: ...
    def claim_hits(self) -> None: ...
    def refer_problem(self) -> str | None: ...
    def refer(self, by: str, reason: str) -> None: ...
    def post(self, values: dict[str, Any], by: str, reason: str) -> str | None: ...


class LocalJackpotDesk:
    def __init__(self, clerk: Clerk, board: JackpotBoard, felt: Felt) -> None:
        self._clerk = clerk
        self._board = board
        self._felt = felt                   # its Super 6 spots lock while Super 6 is closed
        self._closed_said = False           # a "Super 6 closed" alert is standing

    # --- what the round and the snapshot read -----------------------------------------------

    @property
    def linked(self) -> bool:
        return self._board.linked

    def super6_closed(self) -> str | None:
        return self._board.super6_closed()

    def opening(self) -> dict[str, Any]:
        """What a round's ``opened`` record says of the jackpot: the values it is dealt under (a linked
        jackpot's: the generation of each level too, its claim's)."""
        board = self._board
        return {"jackpots": board.values, **({"generations": dict(board.generations)} if board.linked else {})}

    def values(self) -> dict[str, int]:
        return dict(self._board.values)

    def view(self) -> dict[str, Any]:
        return self._board.view()

    def offers_posting(self) -> bool:
        """New values are posted at this table (a linked jackpot's are posted on the floor)."""
        return self._board.progressive and not self._board.linked

    # --- the sign ---------------------------------------------------------------------------

    def show_on_sign(self) -> None:
        """The posted values, a jackpot won since its last posting shown as won."""
        board = self._board
        if board.progressive:
            values = board.values
            won = tuple(name for name in JACKPOTS if name in board.won_since_posting)
            pending = tuple(name for name in JACKPOTS if name in board.locks)     # a linked level won
            self._clerk.emit(ShowJackpots(values["mega"], values["major"], values["minor"], won, pending))

    def sign_back(self) -> None:
        """The sign answers again (it may have restarted, or missed what was sent while it was away):
        the posted values, and the win of a hit verified since the last posting (the display shows the
        winning position and amount until the new value is posted), or no message (a posting made
        while it was away cleared the win it may still show)."""
        self.show_on_sign()
        board = self._board
        if board.progressive and not board.linked:         # a linked level's win: the floor desk's words
            won = board.won_since_posting and board.hits
            self._clerk.emit(ShowMessage(win_message(board.hits[0]) if won else ""))

    def on_sign_showing(self, values: dict[str, int]) -> None:
        before = self._board.super6_closed()
        self._board.sign_shows(values)
        self._super6_maybe_changed(before)

    def on_sign_failed(self, reason: str) -> None:
        before = self._board.super6_closed()
        self._board.sign_failed(reason)
        self._super6_maybe_changed(before)

    def on_floor_link(self, up: bool, reason: str) -> None:
        """The floor's link came up or went down (a linked jackpot closes Super 6 while it is down)."""
        before = self._board.super6_closed()
        self._board.floor_link(up, reason)
        self._super6_maybe_changed(before)

    def _super6_maybe_changed(self, before: str | None) -> None:
        now = self._board.super6_closed()
        if bool(now) == bool(before):
            return
        if now:
            self._clerk.alert("super6_closed", f"Super 6 closed: {now}. No new Super 6 wagers.")
            self._closed_said = True
        elif self._closed_said:                 # not at start-up, when it was never announced shut
            self._clerk.alert("super6_open", "Super 6 open again: the sign shows the posted jackpot values")
            self._closed_said = False
        self._felt.on_super6_changed()

    # --- the floor: a local jackpot has none --------------------------------------------------

    def on_floor_levels(self, levels: dict[str, dict]) -> None:
        """The floor's levels concern a linked jackpot only."""

    def on_jackpot_claimed(self, round_id: int, level: str, answer: dict | None, refused: str | None,
                           for_good: bool = False) -> None:
        self._clerk.log.info("jackpot.claim_answer_ignored", round=round_id, level=level, answer=answer,
                             state=self._clerk.state)     # no hit of this table is claimed on a floor

    def floor_duties(self) -> None:
        """Nothing to tell the floor: no level of a local jackpot is locked on it."""

    def claim_hits(self) -> None:
        """A local hit is paid on the table's own arithmetic once verified: nothing to claim."""

    def floor_claims(self) -> list[dict[str, Any]]:
        return []

    def refer_problem(self) -> str | None:
        return "no linked jackpot claim of this round was refused by the floor"

    def refer(self, by: str, reason: str) -> None:
        """Nothing is referred: the floor never refused a local hit."""

    # --- hits -------------------------------------------------------------------------------

    def pending_hits(self) -> list[dict[str, Any]]:
        """The round's jackpot hits still waiting for a supervisor, with the six cards."""
        rnd = self._clerk.round
        if rnd is None or not rnd.settlement or rnd.jackpot_verified_by:
            return []
        seats = {s["seat"]: s for s in rnd.settlement["seats"]}
        return [dict(hit, cards=f"{seats[hit['seat']]['cards']} + {rnd.settlement['dealer']}")
                for hit in rnd.settlement.get("jackpot_hits", [])]

    def announce_hits(self) -> None:
        for hit in self.pending_hits():
            amount = "claimed on the floor, which states the amount" if hit.get("linked") else money(hit["amount"])
            self._clerk.alert("jackpot_hit", f"Super 6 {hit['jackpot'].upper()} jackpot at position {hit['seat']} "
                              f"({hit['cards']}): {amount}. A supervisor verifies the six cards "
                              "before anything is paid.", hit["seat"])

    def verify(self, by: str, reason: str) -> None:
        """A supervisor verified the six cards of every hit waiting: journaled, the board told, the
        sign shows the win."""
        clerk = self._clerk
        hits = self.pending_hits()
        clerk.fact("jackpot_verified", hits=hits, by=by, reason=reason)
        rnd = clerk.open_round
        self._board.verified(rnd.id, hits, by, rnd.times.get("jackpot_verified", ""))
        self.show_on_sign()                         # the won jackpot: WON until its new value is posted
        clerk.emit(ShowMessage(win_message(hits[0])))
        for hit in hits:
            pay = "paid once the floor's split is final" if hit["amount"] is None else f"pay {money(hit['amount'])}"
            clerk.alert("jackpot_verified", f"{hit['jackpot'].upper()} jackpot at position {hit['seat']} "
                        f"verified by the {by}: {pay}", hit["seat"])

    # --- new values -------------------------------------------------------------------------

    def post(self, values: dict[str, Any], by: str, reason: str) -> str | None:
        """A supervisor posts new values: None once posted, else why not."""
        clerk, board = self._clerk, self._board
        asked: dict[str, object] = {name: values.get(name) for name in JACKPOTS}
        problem = board.change_problem(asked, round_in_play=clerk.state not in procedure.BETWEEN_ROUNDS)
        if problem:
            return problem
        new = {name: values[name] for name in JACKPOTS}       # whole cents above 0: checked just now
        if not reason:
            return "say why the jackpot values change"
        before = board.super6_closed()
        doc = board.post(new, by=by, reason=reason)
        clerk.log.info("jackpot.posted", by=by, reason=reason, old=doc["old"], new=doc["values"],
                       state=clerk.state, round=clerk.round_id)
        clerk.alert("jackpot_posted", "Jackpot values posted by the " + by + ": " + ", ".join(posting_changes(doc)))
        self.show_on_sign()
        clerk.emit(ShowMessage(""))                  # the win message, if one was showing
        self._super6_maybe_changed(before)
        return None
