import re

import pytest

from controller.rules.hand3 import Hand3
from controller.rules.hand6 import Hand6, Super6
from controller.rules.paytable import (
    ABSOLUTE_CENTS,
    CEILINGS,
    SUPER6_AWARD_TIMES,
    PayTableError,
    load_paytable,
    load_preset,
    preset_names,
)
from tests.support import ROOT

SEEDS = ROOT.parent / "shared" / "seeds"
PRESET_DIR = ROOT / "controller" / "rules" / "presets"


def test_one_preset_per_rule_sheet(presets):
    assert preset_names() == ["sheet-000", "sheet-002", "sheet-003", "sheet-004"]
    sheets = {p.rule_sheet for p in presets.values()}
    assert len(sheets) == 4
    if SEEDS.is_dir():                   # shared/ sits beside the project in CI and development
        assert sheets == {f.name for f in SEEDS.glob("*.txt")}


@pytest.mark.parametrize("name, pair_plus, ante_bonus, limit", [
    ("sheet-000", (40, 30, 5, 3, 1), (4, 3, 1), (200, 1000)),
    ("sheet-002", (40, 30, 6, 3, 1), (5, 4, 1), None),
    ("sheet-003", (35, 25, 5, 3, 1), (5, 3, 1), (100, 10000)),
    ("sheet-004", (40, 30, 6, 3, 1), (4, 3, 1), (None, 1000)),
])
def test_pay_tables_as_the_sheets_print_them(presets, name, pair_plus, ante_bonus, limit):
    p = presets[name]
    assert tuple(p.pair_plus.values()) == pair_plus
    assert list(p.pair_plus) == [Hand3.STRAIGHT_FLUSH, Hand3.THREE_OF_A_KIND, Hand3.STRAIGHT,
                                 Hand3.FLUSH, Hand3.PAIR]
    assert tuple(p.ante_bonus.values()) == ante_bonus
    assert list(p.ante_bonus) == [Hand3.STRAIGHT_FLUSH, Hand3.THREE_OF_A_KIND, Hand3.STRAIGHT]
    if limit:
        low, high = limit
        assert low is None or p.limits["ante"].min == low
        assert p.limits["ante"].max == p.limits["pair_plus"].max == high


def test_sheet_004_extras(p004):
    assert p004.max_aggregate_payout == 500_000
    assert p004.limits["six_card_bonus"].min == p004.limits["super6"].min == 500
    assert list(p004.six_card_bonus.values()) == [1000, 200, 50, 25, 15, 10, 5]
    assert p004.six_card_bonus[Hand6.THREE_OF_A_KIND] == 5
    assert set(p004.super6) == {500, 1000}
    five, ten = p004.super6[500], p004.super6[1000]
    assert (five.jackpot_share_percent, ten.jackpot_share_percent) == (50, 100)
    assert five.awards[Super6.SUPER_ROYAL_DIAMONDS] == "mega"
    assert ten.awards[Super6.SUPER_ROYAL] == "major" and ten.awards[Super6.ROYAL_FLUSH] == "minor"
    assert [five.awards[h] for h in (Super6.STRAIGHT_FLUSH, Super6.FOUR_OF_A_KIND, Super6.FULL_HOUSE,
                                     Super6.FLUSH, Super6.STRAIGHT)] == [37500, 20000, 10000, 7500, 5000]
    assert [ten.awards[h] for h in (Super6.STRAIGHT_FLUSH, Super6.FOUR_OF_A_KIND, Super6.FULL_HOUSE,
                                    Super6.FLUSH, Super6.STRAIGHT)] == [75000, 40000, 20000, 15000, 10000]


def test_sheet_000_uses_two_decks_others_one(presets):
    assert {n: p.decks for n, p in presets.items()} == {
        "sheet-000": 2, "sheet-002": 1, "sheet-003": 1, "sheet-004": 1}


def test_unknown_preset():
    with pytest.raises(PayTableError, match=r"preset 'sheet-999': unknown; presets are sheet-000"):
        load_preset("sheet-999")


def test_digest_changes_with_any_rule(tmp_path):
    base = (PRESET_DIR / "sheet-000.toml").read_text()
    a = tmp_path / "a.toml"
    b = tmp_path / "b.toml"
    a.write_text(base)
    b.write_text(base.replace("flush = 3", "flush = 4"))
    assert load_paytable(a).digest != load_paytable(b).digest
    assert load_paytable(a).digest == load_preset("sheet-000").digest


def edited(tmp_path, old, new, source="sheet-004.toml"):
    text = (PRESET_DIR / source).read_text()
    assert old in text, f"test setup: {old!r} not in {source}"
    path = tmp_path / "house.toml"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize("old, new, message", [
    ("flush = 3\n", "quads = 3\n", r"line \d+: key 'pair_plus.quads': unknown key"),
    ("pair = 1\n", "pair = -1\n", r"line \d+: key 'pair_plus.pair': must be positive, not -1"),
    ("pair = 1\n", "\n", r"key 'pair_plus.pair': missing pay"),
    ("pair = 1\n", "pair = 1.5\n", r"key 'pair_plus.pair': must be a whole number"),
    ("ante = { min = 500, max = 1000 }", "ante = { min = 1500, max = 1000 }",
     r"line (\d+): key 'limits.ante': minimum 1500 exceeds maximum 1000"),
    ("[rules]\n", "[rules]\ncolour = \"red\"\n", r"key 'rules.colour': unknown key"),
    ("[preset]\n", "[presets]\nx = 1\n[preset]\n", r"key 'presets': unknown key"),
    ("decks = 1", "decks = 3", r"key 'rules.decks': must be 1 or 2"),
    ("dealer_qualifies_with = \"Q\"", "dealer_qualifies_with = \"Queen\"",
     r"key 'rules.dealer_qualifies_with'"),
    ("royal_flush = 1000\n", "royal_flush = 0\n", r"key 'six_card_bonus.royal_flush': must be positive"),
    ("bet = 1000\n", "bet = 0\n", r"key 'super6\[1\].bet': must be positive"),
    ("bet = 1000\n", "bet = 2000\n", r"bet size 2000 is outside limits.super6 500-1000"),
    ("bet = 1000\n", "bet = 500\n", r"bet size 500 listed twice"),
    ("super_royal = \"major\"", "super_royal = \"giant\"", r"jackpot 'giant' unknown"),
    ("straight_flush = 37500", "straight_flush = \"minor\"", r"only the super royals and the royal flush"),
    ("jackpot_share_percent = 50", "jackpot_share_percent = 150", r"must be a whole percent 1-100"),
    ("six_card_bonus = { min = 500, max = 1000 }\n", "",
     r"key 'six_card_bonus': the 6 Card Bonus needs both its limits and its pay table"),
    ("title = ", "titel = ", r"key 'preset.titel': unknown key"),
    ("max_aggregate_payout = 500000", "max_aggregate_payout = \"5000\"", r"must be a whole number of cents"),
    ("[limits]", "[limits", r"line \d+: not valid TOML"),
    ("pair = 1\n", "pair = 1\npair = 2\n", r"line (\d+): key 'pair_plus.pair': duplicate key \(first given on line"),
    ("straight_flush = 40\n", "straight_flush = 101\n",
     r"key 'pair_plus.straight_flush': 101 to 1 is above the ceiling of 100 to 1 .*house_overrides_ceilings = true "
     r"under \[rules\]"),
    ("straight_flush = 4\n", "straight_flush = 11\n", r"key 'ante_bonus.straight_flush': .*ceiling of 10 to 1"),
    ("royal_flush = 1000\n", "royal_flush = 1001\n", r"key 'six_card_bonus.royal_flush': .*ceiling of 1000 to 1"),
    ("pair = 1\n", "pair = 1.0\n", r"key 'pair_plus.pair': must be a whole number X \(the hand pays X to 1\)"),
    ("ante = { min = 500, max = 1000 }", "ante = { min = 500, max = 10000001 }",
     r"key 'limits.ante.max': 10000001 cents \(\$100,000.01\) is above the ceiling of 10000000 cents"),
    ("max_aggregate_payout = 500000", "max_aggregate_payout = 100000001",
     r"key 'rules.max_aggregate_payout': .*ceiling"),
    ("max_aggregate_payout = 500000", "max_aggregate_payout = 1999", r"below twice limits.ante.max \(2000\)"),
    ("four_of_a_kind = 20000", "four_of_a_kind = 37501",
     r"line (\d+): key 'super6\[0\].four_of_a_kind': .*ceiling of 37500 cents"),
    ("flush = 15000", "flush = 75001", r"line (\d+): key 'super6\[1\].flush': .*ceiling of 75000 cents"),
    ("decks = 1", "decks = 1\nhouse_overrides_ceilings = 1", r"key 'rules.house_overrides_ceilings': must be true"),
    ("ante = { min = 500, max = 1000 }", f"ante = {{ min = 500, max = {ABSOLUTE_CENTS + 1} }}",
     r"key 'limits.ante.max': .* the most allowed even with house_overrides_ceilings = true$"),
    ('name = "sheet-004"', 'name = "' + "x" * 65 + '"', r"key 'preset.name': must be at most 64 characters"),
    ("decks = 1", "decks = 1\nsmallest_chip = 300",
     r"key 'limits.ante.min': 500 cents cannot be made of chips of rules.smallest_chip \(300 cents\)"),
    ("decks = 1", "decks = 1\nsmallest_chip = 0", r"key 'rules.smallest_chip': must be positive"),
    ("decks = 1", "decks = 1\nsmallest_chip = nan", r"key 'rules.smallest_chip': must be a whole number of cents"),
])
def test_bad_files_are_refused_naming_file_key_and_problem(tmp_path, old, new, message):
    path = edited(tmp_path, old, new)
    with pytest.raises(PayTableError, match=message) as err:
        load_paytable(path)
    assert str(path) in str(err.value)
    line = re.search(r"line (\d+): key '([^']+)'", str(err.value))
    if line:                              # the line named is the line that holds the key
        key = line.group(2).split(".")[-1]
        key = re.sub(r"\[\d+\]", "", key)
        assert key in path.read_text().splitlines()[int(line.group(1)) - 1]


def test_missing_file(tmp_path):
    with pytest.raises(PayTableError, match=r"nope.toml: cannot read"):
        load_paytable(tmp_path / "nope.toml")


def test_a_house_file_loads(tmp_path):
    path = edited(tmp_path, "straight = 6\n", "straight = 5\n")
    p = load_paytable(path)
    assert p.pair_plus[Hand3.STRAIGHT] == 5 and p.source == str(path)


def test_the_ceilings_hold_every_shipped_preset_and_are_what_their_reasons_say(presets):
    """Derived from the rule sheets: the largest of each kind the presets pay is the one the
    ceiling's reason names, and no preset reaches a ceiling it would need to override."""
    top = {kind: max(v for p in presets.values() for v in (getattr(p, kind) or {}).values())
           for kind in ("pair_plus", "ante_bonus", "six_card_bonus")}
    assert top == {"pair_plus": 40, "ante_bonus": 5, "six_card_bonus": 1000}
    for kind, most in top.items():
        assert f"at most {most:,} to 1" in CEILINGS[kind].why and most <= CEILINGS[kind].most
    limits = max(lim.max for p in presets.values() for lim in p.limits.values())
    assert limits == 10_000 and "$100" in CEILINGS["limit"].why and limits <= CEILINGS["limit"].most
    caps = [p.max_aggregate_payout for p in presets.values() if p.max_aggregate_payout]
    assert caps == [500_000] and "$5,000" in CEILINGS["max_aggregate_payout"].why
    ratios = {award / bet.bet for p in presets.values() for bet in (p.super6 or {}).values()
              for award in bet.awards.values() if isinstance(award, int)}
    assert max(ratios) == SUPER6_AWARD_TIMES
    if SEEDS.is_dir():                   # every "X to 1" the sheets print is within the ceilings
        printed = [int(x.replace(",", "")) for f in SEEDS.glob("*.txt")
                   for x in re.findall(r"([\d,]+) to 1", f.read_text())]
        assert max(printed) == 1000 == CEILINGS["six_card_bonus"].most


def test_a_house_that_overrides_the_ceilings_says_so(tmp_path):
    path = edited(tmp_path, "straight_flush = 40\n", "straight_flush = 250\n")
    with pytest.raises(PayTableError, match=r"250 to 1 is above the ceiling of 100 to 1"):
        load_paytable(path)
    path.write_text(path.read_text().replace("decks = 1", "decks = 1\nhouse_overrides_ceilings = true"))
    assert load_paytable(path).pair_plus[Hand3.STRAIGHT_FLUSH] == 250
    path.write_text(path.read_text().replace("straight_flush = 250\n", "straight_flush = 1000001\n", 1))
    with pytest.raises(PayTableError, match=r"above 1000000 to 1, the most allowed even with house_overrides"):
        load_paytable(path)


def test_a_super6_bet_size_is_made_of_the_tables_chips(tmp_path):
    path = edited(tmp_path, "bet = 500\n", "bet = 750\n")
    path.write_text(path.read_text().replace("decks = 1", "decks = 1\nsmallest_chip = 250", 1))
    assert load_paytable(path).smallest_chip == 250                       # 750 is three $2.50 chips
    path.write_text(path.read_text().replace("smallest_chip = 250", "smallest_chip = 500", 1))
    with pytest.raises(PayTableError, match=r"super6\[\d\]\.bet': bet size 750 cannot be made of chips"):
        load_paytable(path)


def test_sheet_000_takes_whole_dollars_as_its_chips_are():
    """Sheet 000: "Gaming chips of denominations of $1, $2, $3, $4, $5, $25": a stack read as $2.50 is a
    misread or a foreign chip, flagged like a stack under the minimum (it was taken as a wager)."""
    from controller.round.stacks import stack_problem
    sheet = load_preset("sheet-000")
    assert sheet.smallest_chip == 100 and load_preset("sheet-004").smallest_chip == 1
    assert stack_problem(sheet, "ante", 250, None) == \
        "$2.50 cannot be made of this table's chips (the smallest is $1.00)"
    assert stack_problem(sheet, "pair_plus", 300, None) is None
    from controller.page.i18n import Words  # and the Spanish page says it in Spanish
    assert Words("es").text(stack_problem(sheet, "ante", 250, None)) == \
        "$2.50 no se puede formar con las fichas de esta mesa (la más pequeña es de $1.00)"
