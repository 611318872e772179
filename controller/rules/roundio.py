"""The JSON form of a round, as ``table-controller settle`` reads and writes it.

Owns the audit interchange format: one round per JSON object,
``{"id", "preset"?, "dealer", "jackpots"?, "linked"?, "seats": [{"seat", "cards", "play",
"wagers": {"ante", "pair_plus", "six_card_bonus", "super6"}}]}`` in, and the
settlement out (results per wager in pay order, cap reduction, net). Recall
writes rounds in the same input form so any recorded round can be settled
again independently and compared. Unknown keys are refused: a typo in an
audit file must not silently become a zero wager.

A void round has nothing to settle: a round whose ``table.status`` (what
recall adds) is ``"void"`` settles to ``{"id", "void": true, "void_reason",
"settled": "void, nothing to settle"}``, which is not an error (docs/cli.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.errors import InputError
from controller.rules.cards import CardError, cards_text, parse_cards
from controller.rules.hand3 import describe3
from controller.rules.paytable import JACKPOTS, PayTableError, Preset
from controller.rules.settlement import (
    LinkedSplit,
    RoundSettlement,
    SeatHand,
    SeatResult,
    SettlementError,
    Wagers,
    settle_round,
)

ROUND_KEYS = {"id", "preset", "dealer", "jackpots", "linked", "seats", "table"}   # "table": what recall adds; only
VOID_SETTLED = "void, nothing to settle"                                  # its "status" is read
SEAT_KEYS = {"seat", "cards", "play", "wagers"}
WAGER_KEYS = set(Wagers().as_dict())


class RoundFormatError(InputError):
    """A round object that does not have the settle input form."""


def _whole(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RoundFormatError(f"{where}: must be a whole number, not {value!r}")
    return value


def parse_round(obj: Any, presets: Callable[[str], Preset], default_preset: str | None
                ) -> tuple[Preset, tuple[int, ...], list[SeatHand], dict[str, int], dict[str, LinkedSplit]]:
    if not isinstance(obj, dict):
        raise RoundFormatError("a round must be a JSON object")
    for key in obj:
        if key not in ROUND_KEYS:
            raise RoundFormatError(f"unknown key {key!r}")
    name = obj.get("preset", default_preset)
    if name is None:
        raise RoundFormatError("preset: missing (give it in the line or with --preset)")
    if not isinstance(name, str):
        raise RoundFormatError(f"preset: must be a name, not {name!r}")
    preset = presets(name)
    if "dealer" not in obj:
        raise RoundFormatError("dealer: missing")
    dealer = parse_cards(obj["dealer"], count=3, what="dealer")
    jackpots = obj.get("jackpots", {})
    if not isinstance(jackpots, dict):
        raise RoundFormatError("jackpots: must be an object of cents by mega, major, minor")
    for key, value in jackpots.items():
        if key not in JACKPOTS:
            raise RoundFormatError(f"jackpots.{key}: unknown jackpot (mega, major, minor)")
        if _whole(value, f"jackpots.{key}") <= 0:
            raise RoundFormatError(f"jackpots.{key}: must be positive cents")
    seats_doc = obj.get("seats")
    if not isinstance(seats_doc, list):
        raise RoundFormatError("seats: must be a list")
    seats = [_parse_seat(s, i) for i, s in enumerate(seats_doc)]
    return preset, dealer, seats, jackpots, _parse_linked(obj.get("linked", {}))


def _parse_linked(doc: Any) -> dict[str, LinkedSplit]:
    """``linked``: {level: {"value", "winners", "order"}}, a linked jackpot's split as the floor
    answered it (recall writes it for a hit whose answer was final)."""
    if not isinstance(doc, dict):
        raise RoundFormatError("linked: must be an object of splits by mega, major, minor")
    out = {}
    for level, split in doc.items():
        where = f"linked.{level}"
        if level not in JACKPOTS:
            raise RoundFormatError(f"{where}: unknown jackpot (mega, major, minor)")
        if split == {"referred": True}:                  # settled without the linked award
            out[level] = LinkedSplit(0, 0, 0)
            continue
        if not isinstance(split, dict) or set(split) != {"value", "winners", "order"}:
            raise RoundFormatError(f"{where}: must be {{\"value\", \"winners\", \"order\"}} or {{\"referred\": true}}")
        value, winners, order = (_whole(split[k], f"{where}.{k}") for k in ("value", "winners", "order"))
        if value <= 0 or winners < 1 or not 1 <= order <= winners:
            raise RoundFormatError(f"{where}: value must be positive cents and order 1 to winners ({winners})")
        out[level] = LinkedSplit(value, winners, order)
    return out


def _parse_seat(doc: Any, index: int) -> SeatHand:
    where = f"seats[{index}]"
    if not isinstance(doc, dict):
        raise RoundFormatError(f"{where}: must be an object")
    for key in doc:
        if key not in SEAT_KEYS:
            raise RoundFormatError(f"{where}: unknown key {key!r}")
    if "seat" not in doc:
        raise RoundFormatError(f"{where}.seat: missing")
    seat = _whole(doc["seat"], f"{where}.seat")
    if seat < 1:
        raise RoundFormatError(f"{where}.seat: must be 1 or more")
    where = f"seat {seat}"
    if "cards" not in doc:
        raise RoundFormatError(f"{where}: cards missing")
    cards = parse_cards(doc["cards"], count=3, what=where)
    wagers_doc = doc.get("wagers", {})
    if not isinstance(wagers_doc, dict):
        raise RoundFormatError(f"{where}.wagers: must be an object")
    for key in wagers_doc:
        if key not in WAGER_KEYS:
            raise RoundFormatError(f"{where}.wagers: unknown wager {key!r} ({', '.join(sorted(WAGER_KEYS))})")
    wagers = Wagers(**{k: _whole(v, f"{where}.wagers.{k}") for k, v in wagers_doc.items()})
    play = doc.get("play")
    if wagers.ante and not isinstance(play, bool):
        raise RoundFormatError(f"{where}.play: must be true (played) or false (folded) with an Ante")
    if play is not None and not isinstance(play, bool):
        raise RoundFormatError(f"{where}.play: must be true or false, not {play!r}")
    return SeatHand(seat, cards, wagers, bool(play))


def settlement_json(round_id: Any, preset: Preset, s: RoundSettlement) -> dict[str, Any]:
    return {
        "id": round_id,
        "preset": preset.name,
        "dealer": cards_text(s.dealer_cards),
        "dealer_hand": describe3(s.dealer_score),
        "dealer_qualifies": s.dealer_qualifies,
        "seats": [seat_json(r) for r in s.seats],
        "jackpot_hits": [
            {"seat": h.seat, "jackpot": h.jackpot, "bet": h.bet, "share_percent": h.share_percent,
             "posted": h.posted, "winners": h.winners, "amount": h.amount}
            for h in s.jackpot_hits],
    }


def seat_json(r: SeatResult) -> dict[str, Any]:
    return {
        "seat": r.seat,
        "cards": cards_text(r.cards),
        "hand": describe3(r.score),
        "six_card": r.six_card.key if r.six_card is not None else None,
        "super6_hand": r.super6_hand.key if r.super6_hand is not None else None,
        "results": dict(r.results),
        "cap_reduction": r.cap_reduction,
        "net": r.net,
    }


def void_round(obj: Any) -> dict[str, Any] | None:
    """The settle output of a round recall marks void (``table.status``), else None."""
    if not isinstance(obj, dict) or any(key not in ROUND_KEYS for key in obj):
        return None                      # not a round: the parse names the problem
    table = obj.get("table")
    if not isinstance(table, dict) or table.get("status") != "void":
        return None
    return {"id": obj.get("id"), "void": True, "void_reason": table.get("void_reason"), "settled": VOID_SETTLED}


def settle_json(obj: Any, presets: Callable[[str], Preset], default_preset: str | None) -> dict[str, Any]:
    """Settle one round object; never raises for bad input, returns {"id", "error"} instead.
    A void round returns ``void_round``'s answer: nothing to settle, and no error."""
    round_id = obj.get("id") if isinstance(obj, dict) else None
    void = void_round(obj)
    if void is not None:
        return void
    try:
        preset, dealer, seats, jackpots, linked = parse_round(obj, presets, default_preset)
        result = settle_round(preset, dealer, seats, jackpots, linked)
    except (RoundFormatError, CardError, SettlementError, PayTableError) as err:
        return {"id": round_id, "error": str(err)}
    return settlement_json(round_id, preset, result)
