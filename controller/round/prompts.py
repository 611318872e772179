"""What the dealer is told, state by state: the prompt's lines, the chips to hand back, the hands set aside.

Owns the dealer's words for each state of the round (``PROMPTS``): what to do next, in the order of the
rule sheet, with what the table refuses and why; and the two facts of the round those words and the
snapshot (controller/round/view.py) share: the chips the reveal did not accept, to hand back, and the
folded hands set aside while their side bets stay in action. Each asks the part of the table that owns
what it says (controller/round/table.py); none changes anything.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.round.facts import Round
from controller.round.table import Table
from controller.rules.spots import Spot, label
from controller.rules.words import money, no_pair_plus, positions_named, return_line


def betting_prompt(table: Table, problems: dict | None = None) -> list[str]:
    """``problems``: the felt's, when the caller has them already (the snapshot)."""
    lines = ["Place your bets"]
    problems = table.felt.problems() if problems is None else problems
    lines += [f"Position {p} {label(s)}: {why}" for (p, s), why in sorted(problems.items())]
    if not (table.open_round.shuffled and table.open_round.deck_checked):
        lines.append("Shoe shuffling")      # until its deck check has passed: nothing is dealt before
    return lines


def _closed(table: Table) -> list[str]:
    rnd = table.open_round
    announcement = no_pair_plus([p for p in rnd.active if not rnd.wagers[p].get(Spot.PAIR_PLUS)])
    return ["No more bets"] + ([announcement] if announcement else []) + ["Deal"]


def _dealing(table: Table) -> list[str]:
    rnd = table.open_round
    return [f"Dealing: hand {min(rnd.hands_received + 1, rnd.hands_needed)} of {rnd.hands_needed}"]


def _collecting(table: Table) -> list[str]:
    rnd = table.open_round
    folds = rnd.folds
    if not rnd.deciders:                # Pair Plus and side bets only: nobody had a Play to make
        return ["No position has an Ante: nothing to play or fold", "Reveal the dealer's hand"]
    if not folds:
        return ["Every position played", "Reveal the dealer's hand"]
    aside = set_aside(table)
    lines = []
    if gone := [p for p in folds if p not in aside]:
        lines.append(f"Collect the folded hands and their wagers: {positions_named(gone)}")
    if aside:
        # sheet 004: the 6 Card Bonus and Super 6 are settled on the player's three cards with the
        # dealer's three, so those cards stay on the layout until then
        lines += [f"Collect the forfeited wagers of {positions_named(aside)}: the 6 Card Bonus "
                  "and Super 6 stay in action",
                  f"Set the cards of {positions_named(aside)} aside face down: they settle the "
                  "6 Card Bonus and Super 6"]
    return lines + ["Then reveal the dealer's hand"]


def returns(rnd: Round | None) -> dict[int, list[str]]:
    """By position, the chips the round did not accept, to hand back, as the reveal journaled them."""
    out: dict[int, list[str]] = {}
    for refused in ((rnd.settlement or {}).get("returns", []) if rnd else []):
        out.setdefault(refused["position"], []).append(return_line(refused))
    return out


def set_aside(table: Table) -> list[int]:
    """Folded positions whose cards stay on the layout, set aside face down, until their 6 Card Bonus
    and Super 6 (which stay in action after a fold) are settled with the dealer's cards."""
    rnd = table.round
    if rnd is None or not rnd.decisions or rnd.void_reason is not None or rnd.complete \
            or not table.config.preset.side_bets_stay_after_fold:         # (no decision made: no fold)
        return []
    return [p for p in rnd.folds if p not in rnd.paid
            and (rnd.wagers[p].get(Spot.SIX_CARD_BONUS) or rnd.wagers[p].get(Spot.SUPER6))]


def _settling(table: Table) -> list[str]:
    rnd = table.open_round
    lines = [(rnd.settlement or {}).get("announcement", "")]
    seats = set(rnd.settlement_order)         # a settled position's returns are among its own lines
    lines += [line for p, said in returns(rnd).items() if p not in seats for line in said]
    for hit in table.jackpots.pending_hits():
        lines.append(f"JACKPOT: {hit['jackpot'].upper()} at position {hit['seat']}; "
                     "supervisor to verify the six cards")
    for hit in table.jackpots.floor_claims():
        if hit["floor"] != "final":
            lines.append(f"JACKPOT PENDING: {hit['jackpot'].upper()} at position {hit['seat']}, {hit['floor']}; "
                         "paid once the floor's split is final")
    if rnd.next_to_pay is not None:
        lines.append(f"Settle position {rnd.next_to_pay}")
    return lines


def _void(table: Table) -> list[str]:
    """Every wager goes back (sheet 000: all hands are void), the folds' too: once the round reached
    collecting, the dealer took them with the cards, so they come back from the rack."""
    rnd = table.open_round
    lines = [f"Round void: {rnd.void_reason}", "Return all wagers"]
    if "collecting" in rnd.reached:
        stays = table.config.preset.side_bets_stay_after_fold       # those stayed on the layout
        for p in rnd.folds:
            taken = sum(v for s, v in rnd.wagers[p].items()
                        if not (stays and s in (Spot.SIX_CARD_BONUS, Spot.SUPER6)))
            lines.append(f"Return {money(taken)} to position {p}: its wagers were collected with its fold")
    return lines + (_sign_in(table) or ["Open betting"])


def _sign_in(table: Table) -> list[str]:
    """Between rounds at a table whose dealers sign in, with nobody signed in: that comes first."""
    shift = table.shift
    return ["Dealer: sign in with your PIN (Dealer sign in)"] if shift.required and shift.name is None else []


PROMPTS: dict[str, Callable[[Table], list[str]]] = {
    "starting": lambda t: ["Starting: " + (t.refusal or "checking the devices")],
    "ready": lambda t: _sign_in(t) or ["Open betting"],
    "betting": betting_prompt,
    "closed": _closed,
    "dealing": _dealing,
    "decisions": lambda t: [f"Position {p}: play or fold" for p in t.open_round.undecided],
    "collecting": _collecting,
    "settling": _settling,
    "complete": lambda t: ["Round complete", *(_sign_in(t) or ["Open betting"])],
    "void": _void,
    "held": lambda t: ["Round held", *t.holds.reasons()],
}


def prompt(table: Table) -> list[str]:
    return PROMPTS[table.state](table)
