"""Pay tables and table rules as data: loading and validating preset TOML files.

Owns the ``Preset`` (one rule sheet's pay tables, limits, side bets and rules)
and the refusal of bad files. A preset ships in ``controller/rules/presets/`` (one per
rule sheet in shared/seeds); a table may load its own file instead. A bad file
is refused whole with ``PayTableError`` naming the file, the key (and its line
where it can be found) and the problem, so nothing half-loaded reaches a table.

All amounts are integer cents; pays are whole "X to 1" odds. Every pay, limit
and cap has a ceiling no published pay table reaches (``CEILINGS``, derived
from the four rule sheets): a value above one is refused, naming the ceiling,
unless the file says ``house_overrides_ceilings = true`` under ``[rules]``;
nothing goes above a ceiling's absolute bound.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from controller.errors import InputError
from controller.rules.cards import RANKS
from controller.rules.hand3 import Hand3
from controller.rules.hand6 import Hand6, Super6
from controller.rules.spots import BET_SPOTS
from controller.rules.tomlcheck import Ceiling, TomlChecker, loads, read_file

JACKPOTS = ("mega", "major", "minor")
H = TypeVar("H", Hand3, Hand6)       # the hands a pay table lists


class PayTableError(InputError):
    """A pay-table file that cannot be used; the message names file, key and problem."""


@dataclass(frozen=True)
class Limit:
    min: int
    max: int


@dataclass(frozen=True)
class Super6Bet:
    """What one accepted Super 6 bet size pays: cents, or a jackpot name."""
    bet: int
    jackpot_share_percent: int
    awards: dict[Super6, int | str]


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    rule_sheet: str
    source: str
    limits: dict[str, Limit]
    pair_plus: dict[Hand3, int]
    ante_bonus: dict[Hand3, int]
    six_card_bonus: dict[Hand6, int] | None = None
    super6: dict[int, Super6Bet] | None = None
    dealer_qualifies_with: int = RANKS.index("Q")
    fold_loses_pair_plus: bool = True
    side_bets_stay_after_fold: bool = True
    max_aggregate_payout: int | None = None
    decks: int = 1
    smallest_chip: int = 1          # cents; a wager is a whole number of them (sheet 000's chips are $1 and up)
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def offers(self, spot: str) -> bool:
        return spot in self.limits

    @property
    def digest(self) -> str:
        """SHA-256 of the parsed rules: what a journal records as the table's configuration."""
        text = json.dumps(self.raw, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "digest": self.digest, **self.raw}


# --- loading ---------------------------------------------------------------

DEFAULT_PRESET = "sheet-004"


def preset_names() -> list[str]:
    folder = resources.files("controller.rules") / "presets"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def load_preset(name: str) -> Preset:
    """A shipped preset by name (``sheet-000`` ...)."""
    names = preset_names()
    if name not in names:
        raise PayTableError(f"preset {name!r}: unknown; presets are {', '.join(names)}")
    item = resources.files("controller.rules") / "presets" / f"{name}.toml"
    return parse_paytable(item.read_text(encoding="utf-8"), f"preset {name}")


def load_paytable(path: str | Path) -> Preset:
    """A table's own pay-table file."""
    path = Path(path)
    return parse_paytable(read_file(path, PayTableError), str(path))


def load(preset: str | None = None, paytable: str | Path | None = None) -> Preset:
    if paytable is not None:
        return load_paytable(paytable)
    return load_preset(preset or DEFAULT_PRESET)


# --- ceilings --------------------------------------------------------------
# What the four rule sheets (shared/seeds/, the shipped presets) pay at most, with room for the
# richer tables in print; above these a value is a typo, or a house that says it means it.
# The absolute bounds hold even then: they keep every payout far inside SQLite's 64-bit integers.

ABSOLUTE_ODDS = 1_000_000
ABSOLUTE_CENTS = 10**12                  # $10,000,000,000
CEILINGS = {
    "pair_plus": Ceiling(100, ABSOLUTE_ODDS, "odds", "the published tables pay at most 40 to 1, sheets 000, 002 "
                         "and 004; the richest in print pay 100 to 1"),
    "ante_bonus": Ceiling(10, ABSOLUTE_ODDS, "odds", "the published tables pay at most 5 to 1, sheets 002 and 003"),
    "six_card_bonus": Ceiling(1000, ABSOLUTE_ODDS, "odds", "the published table pays at most 1,000 to 1, a royal "
                              "flush on sheet 004"),
    "limit": Ceiling(10_000_000, ABSOLUTE_CENTS, "cents", "a spot's published limits are at most $100, sheet 003"),
    "max_aggregate_payout": Ceiling(100_000_000, ABSOLUTE_CENTS, "cents", "the published cap is $5,000, "
                                    "sheet 004"),
    "jackpot": Ceiling(1_000_000_000, ABSOLUTE_CENTS, "cents", "above any posted table-game jackpot; the example "
                       "posts a $100,000 MEGA"),
}
SUPER6_AWARD_TIMES = 75          # a fixed Super 6 award, times its bet: sheet 004 pays $750 on $10, $375 on $5
OVERRIDE = "house_overrides_ceilings"


def super6_ceiling(bet: int) -> Ceiling:
    return Ceiling(SUPER6_AWARD_TIMES * bet, ABSOLUTE_CENTS, "cents",
                   f"{SUPER6_AWARD_TIMES} times the bet of {bet} cents: sheet 004 pays at most $750 on $10")


# --- validation ------------------------------------------------------------

TOP_KEYS = {"preset", "rules", "limits", "pair_plus", "ante_bonus", "six_card_bonus", "super6"}
PRESET_KEYS = {"name", "title", "rule_sheet"}
RULE_KEYS = {"dealer_qualifies_with", "fold_loses_pair_plus", "side_bets_stay_after_fold",
             "max_aggregate_payout", "decks", "smallest_chip", OVERRIDE}
SUPER6_JACKPOT_HANDS = {Super6.SUPER_ROYAL_DIAMONDS, Super6.SUPER_ROYAL, Super6.ROYAL_FLUSH}


class _Checker(TomlChecker):
    error = PayTableError

    def pays(self, doc: dict[str, Any], key: str, hands: type[H], *, required: tuple[str, ...] = ()) -> dict[H, int]:
        names = {h.key: h for h in hands}
        table = self.table(doc, key, set(names), required=True)
        for hand_key in required:
            if hand_key not in table:
                raise self.fail(f"{key}.{hand_key}", "missing pay")
        result: dict[H, int] = {}
        for name, odds in table.items():
            result[names[name]] = self.odds(odds, f"{key}.{name}", CEILINGS[key])
        return dict(sorted(result.items(), reverse=True))

    def odds(self, value: Any, key: str, ceiling: Ceiling) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"must be a whole number X (the hand pays X to 1), not {value!r}")
        if value <= 0:
            raise self.fail(key, f"must be positive, not {value}")
        return self.within(value, key, ceiling)

    def amount(self, value: Any, key: str, ceiling: Ceiling) -> int:
        return self.within(self.cents(value, key, positive=True), key, ceiling)

    def limit(self, value: Any, key: str) -> Limit:
        if not isinstance(value, dict) or set(value) != {"min", "max"}:
            raise self.fail(key, "must be { min = CENTS, max = CENTS }")
        low = self.amount(value["min"], f"{key}.min", CEILINGS["limit"])
        high = self.amount(value["max"], f"{key}.max", CEILINGS["limit"])
        if low > high:
            raise self.fail(key, f"minimum {low} exceeds maximum {high}")
        return Limit(low, high)


def parse_paytable(text: str, source: str) -> Preset:
    """Validate a pay-table document and build its Preset."""
    doc = loads(text, source, PayTableError)
    check = _Checker(text, source)
    check.override = f"{OVERRIDE} = true under [rules]"
    for name in doc:
        if name not in TOP_KEYS:
            raise check.fail(name, f"unknown key (allowed: {', '.join(sorted(TOP_KEYS))})")

    meta = check.table(doc, "preset", PRESET_KEYS)
    for key in sorted(PRESET_KEYS):
        if key not in meta:
            raise check.fail(f"preset.{key}", "missing")
        check.text(meta[key], f"preset.{key}", longest=64 if key == "name" else 200)

    rules = check.table(doc, "rules", RULE_KEYS, required=False)
    check.overrides = check.flag(rules.get(OVERRIDE, False), f"rules.{OVERRIDE}")
    qual = rules.get("dealer_qualifies_with", "Q")
    if not isinstance(qual, str) or len(qual) != 1 or qual.upper() not in RANKS:
        raise check.fail("rules.dealer_qualifies_with", f"must be one rank letter (2-9, T, J, Q, K, A), not {qual!r}")
    cap = rules.get("max_aggregate_payout")
    decks = rules.get("decks", 1)
    if decks not in (1, 2) or isinstance(decks, bool):
        raise check.fail("rules.decks", f"must be 1 or 2, not {decks!r}")

    limits_doc = check.table(doc, "limits", set(BET_SPOTS))
    for spot in ("ante", "pair_plus"):
        if spot not in limits_doc:
            raise check.fail(f"limits.{spot}", "missing")
    limits = {spot: check.limit(v, f"limits.{spot}") for spot, v in limits_doc.items()}
    chip = check.amount(rules.get("smallest_chip", 1), "rules.smallest_chip", CEILINGS["limit"])
    for spot, limit in sorted(limits.items()):
        for end, amount in (("min", limit.min), ("max", limit.max)):
            if amount % chip:
                raise check.fail(f"limits.{spot}.{end}", f"{amount} cents cannot be made of chips of "
                                 f"rules.smallest_chip ({chip} cents)")
    if cap is not None:
        cap = check.amount(cap, "rules.max_aggregate_payout", CEILINGS["max_aggregate_payout"])
        if cap < 2 * limits["ante"].max:
            raise check.fail("rules.max_aggregate_payout", f"{cap} cents is below twice limits.ante.max "
                             f"({2 * limits['ante'].max}): a largest Ante and Play won at even money would be cut")

    pair_plus = check.pays(doc, "pair_plus", Hand3, required=("straight_flush", "three_of_a_kind",
                                                              "straight", "flush", "pair"))
    if Hand3.HIGH_CARD in pair_plus:
        raise check.fail("pair_plus.high_card", "Pair Plus pays a pair or better only")
    ante_bonus = check.pays(doc, "ante_bonus", Hand3)

    six = None
    if "six_card_bonus" in doc:
        six = check.pays(doc, "six_card_bonus", Hand6)
    if (six is None) != ("six_card_bonus" not in limits):
        raise check.fail("limits.six_card_bonus" if six is None else "six_card_bonus",
                         "the 6 Card Bonus needs both its limits and its pay table")

    super6 = _parse_super6(doc.get("super6"), check, limits.get("super6"))
    if (super6 is None) != ("super6" not in limits):
        raise check.fail("limits.super6" if super6 is None else "super6",
                         "the Super 6 needs both its limits and its bet sizes")
    for i, bet in enumerate(super6 or {}):
        if bet % chip:
            raise check.fail(f"super6[{i}].bet", f"bet size {bet} cannot be made of chips of rules.smallest_chip "
                             f"({chip} cents)")

    return Preset(
        name=meta["name"], title=meta["title"], rule_sheet=meta["rule_sheet"], source=source,
        limits=limits, pair_plus=pair_plus, ante_bonus=ante_bonus,
        six_card_bonus=six, super6=super6,
        dealer_qualifies_with=RANKS.index(qual.upper()),
        fold_loses_pair_plus=check.flag(rules.get("fold_loses_pair_plus", True),
                                        "rules.fold_loses_pair_plus"),
        side_bets_stay_after_fold=check.flag(rules.get("side_bets_stay_after_fold", True),
                                             "rules.side_bets_stay_after_fold"),
        max_aggregate_payout=cap,
        decks=decks,
        smallest_chip=chip,
        raw=doc,
    )


def _parse_super6(entries: Any, check: _Checker, limit: Limit | None) -> dict[int, Super6Bet] | None:
    if entries is None:
        return None
    if not isinstance(entries, list) or not entries:
        raise check.fail("super6", "must be one or more [[super6]] tables, one per accepted bet size")
    hands = {h.key: h for h in Super6 if h is not Super6.NONE}
    allowed = {"bet", "jackpot_share_percent", *hands}
    result: dict[int, Super6Bet] = {}
    for i, entry in enumerate(entries):
        where = f"super6[{i}]"
        for name in entry:
            if name not in allowed:
                raise check.fail(f"{where}.{name}", f"unknown key (allowed: {', '.join(sorted(allowed))})")
        if "bet" not in entry:
            raise check.fail(f"{where}.bet", "missing")
        bet = check.cents(entry["bet"], f"{where}.bet", positive=True)
        if bet in result:
            raise check.fail(f"{where}.bet", f"bet size {bet} listed twice")
        if limit and not limit.min <= bet <= limit.max:
            raise check.fail(f"{where}.bet", f"bet size {bet} is outside limits.super6 {limit.min}-{limit.max}")
        share = entry.get("jackpot_share_percent")
        if isinstance(share, bool) or not isinstance(share, int) or not 0 < share <= 100:
            raise check.fail(f"{where}.jackpot_share_percent", f"must be a whole percent 1-100, not {share!r}")
        awards: dict[Super6, int | str] = {}
        for name, hand in hands.items():
            if name not in entry:
                continue
            value = entry[name]
            key = f"{where}.{name}"
            if isinstance(value, str):
                if value not in JACKPOTS:
                    raise check.fail(key, f"jackpot {value!r} unknown (mega, major, minor)")
                if hand not in SUPER6_JACKPOT_HANDS:
                    raise check.fail(key, "only the super royals and the royal flush can pay a jackpot")
                awards[hand] = value
            else:
                awards[hand] = check.amount(value, key, super6_ceiling(bet))
        if not awards:
            raise check.fail(where, "lists no winning hand")
        result[bet] = Super6Bet(bet, share, dict(sorted(awards.items(), reverse=True)))
    return result
