"""The maximum aggregate payout (rule sheet 004: at most $5,000 to one player on one hand, Super 6
excluded) in the dealer's instructions on a real round: each line says what to pay on that wager.

The dealer pays from the Play to the Super 6 in the sheet's order, one line after the other; a line
that says "Pay 6 Card Bonus $10,000.00" is paid in full before a "reduce by" line further down can be
read. So the cap is applied where it is reached: the wagers paid last (Super 6 never) are cut, and
the lines' amounts add up to what the position is paid.
"""

from __future__ import annotations

import re

from controller.rules.cards import parse_cards
from tests.round.test_settlement_words import position, ready
from tests.rules.sheet_reading import SHEETS, settle_seat

MINOR = 250000          # the posted MINOR of tests/round/test_settlement_words.ready
BETS = {1: {"ante": 1000, "pair_plus": 1000, "six_card_bonus": 1000, "super6": 1000},
        3: {"ante": 500, "six_card_bonus": 500},
        5: {"pair_plus": 500, "super6": 500}}


def amounts(lines: list[str], verb: str) -> dict[str, int]:
    """{wager: cents} of the lines "Pay Ante $10.00", "Pay 6 Card Bonus $4,550.00 (...)"."""
    out = {}
    for line in lines:
        m = re.match(rf"{verb} (.+?) \$([\d,]+)\.(\d\d)", line)
        if m:
            out[m.group(1)] = int(m.group(2).replace(",", "")) * 100 + int(m.group(3))
    return out


def test_a_capped_position_is_told_the_capped_amount_on_the_wager_that_reaches_the_cap(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet(BETS)
    bench.deal("Ad Kd Qd", "2c 2h 7s", "9c 9h 4s", "Jd Td 3c")     # position 1: a royal flush on six cards
    bench.decide({1: True, 3: False})
    assert bench.snap["settlement_order"] == [5, 3, 1]              # from the dealer's right
    settlement = position(bench, 1)["settlement"]
    want, cut = settle_seat(SHEETS["sheet-004"], parse_cards("Jd Td 3c"), parse_cards("Ad Kd Qd"), 1000, 1000,
                            1000, 1000, True, {"minor": MINOR})
    assert cut == 545000 and settlement["cap_reduction"] == cut and settlement["net"] == sum(want.values()) - cut
    assert settlement["lines"] == [
        "Push Play", "Pay Ante Bonus $40.00", "Pay Ante $10.00", "Pay Pair Plus $400.00",
        "Pay 6 Card Bonus $4,550.00 (maximum payout reached: $5,450.00 not paid)", "Pay Super 6 $2,500.00"]
    paid = amounts(settlement["lines"], "Pay")
    assert sum(paid.values()) == settlement["to_pay"] == settlement["net"]
    assert sum(v for k, v in paid.items() if k != "Super 6") == 500000          # exactly the cap
    for p in (3, 5):                                                            # the others: untouched
        lines = position(bench, p)["settlement"]["lines"]
        assert not any("maximum payout" in line.lower() for line in lines)


def test_the_capped_line_is_translated_for_the_page():
    from controller.page.i18n import Words
    line = "Pay 6 Card Bonus $4,550.00 (maximum payout reached: $5,450.00 not paid)"
    said = Words("es").text(line)
    assert said is not None and said.startswith("Pagar ") and "$4,550.00" in said and "$5,450.00" in said


def test_several_positions_capped_in_one_round_are_each_told_their_own_cut(tmp_path):
    """A house pay table with a $50.00 cap (sheet 004's otherwise): three winners over it in one round."""
    from importlib import resources
    text = (resources.files("controller.rules") / "presets" / "sheet-004.toml").read_text(encoding="utf-8")
    paytable = tmp_path / "house.toml"
    paytable.write_text(text.replace('name = "sheet-004"', 'name = "house-cap"')
                        .replace("max_aggregate_payout = 500000", "max_aggregate_payout = 5000"), encoding="utf-8")
    bench = ready(tmp_path, paytable=paytable)
    assert bench.config.preset.max_aggregate_payout == 5000
    bets = {1: {"ante": 1000, "pair_plus": 1000}, 2: {"ante": 1000, "pair_plus": 500},
            4: {"pair_plus": 1000, "six_card_bonus": 500}, 6: {"ante": 500}}
    bench.open_and_bet(bets)
    bench.deal("7c 7h 7s", "5d 6d 7d", "Kc Ks 2h", "Ah 2c 3d", "Qd 9s 4c")   # 1, 2, 4, 6, the dealer (Q high)
    bench.decide({1: True, 2: True, 6: True})
    assert bench.snap["settlement_order"] == [6, 4, 2, 1]
    lines = {p: position(bench, p)["settlement"]["lines"] for p in (1, 2, 4, 6)}
    assert lines[1] == ["Pay Play $10.00", "Pay Ante Bonus $30.00", "Pay Ante $10.00",             # trips
                        "Pay Pair Plus $0.00 (maximum payout reached: $300.00 not paid)"]
    assert lines[2] == ["Pay Play $10.00", "Pay Ante Bonus $40.00",                               # straight flush
                        "Pay Ante $0.00 (maximum payout reached: $10.00 not paid)",
                        "Pay Pair Plus $0.00 (maximum payout reached: $200.00 not paid)"]
    assert lines[4] == ["Pay Pair Plus $10.00",                                                   # Kings, 6 cards
                        "Take 6 Card Bonus $5.00"]                                                # one pair: lost
    assert lines[6] == ["Pay Play $5.00", "Pay Ante Bonus $5.00", "Pay Ante $5.00"]               # A-2-3: under
    for p in (1, 2, 4, 6):
        settlement = position(bench, p)["settlement"]
        paid = amounts(settlement["lines"], "Pay")
        assert sum(paid.values()) == settlement["to_pay"]
        assert settlement["to_pay"] - settlement["to_take"] == settlement["net"]
        assert sum(paid.values()) <= 5000
