"""The tallest settlement the dealer meets, measured in Chromium at every screen and in both languages:
a Super 6 jackpot hit waiting for the supervisor (the prompt's extra line and the gold band over the
positions), a position capped by the $5,000 maximum payout with its jackpot problem in red, a Super 6
straight flush, and six busy positions. Nothing may be cut or scrolled away: at 1366x768 (a wide, short
screen) the positions were cut at the bottom, the net and the Settled button of the position to pay
out of view."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from controller.rules.cards import parse_card
from tests.page.test_page_layout import trouble_at_every_size
from tests.support.browser import open_page
from tests.support.rig import table

# dealt in this order: positions 1, 2, 4, 6 (3 and 5 fold), then the dealer's Js Ts 9s
CARDS = ("As Ks Qs 8s 7s 2d 2c 2h 5d Kh Kd 3c 6c 9d Jd 4h 4c 4d Js Ts 9s").split()
BETS = {1: {"ante": 1000, "pair_plus": 1000, "six_card_bonus": 1000, "super6": 1000},
        2: {"ante": 1000, "six_card_bonus": 1000, "super6": 1000},
        3: {"ante": 500, "pair_plus": 500},
        4: {"ante": 500, "pair_plus": 500, "six_card_bonus": 500},
        5: {"ante": 500},
        6: {"ante": 1000, "pair_plus": 1000, "six_card_bonus": 1000}}


@pytest.mark.parametrize("language", ["en", "es"])
def test_a_jackpot_hit_waiting_beside_a_capped_win_fits_every_screen(tmp_path, page, language):
    def stack(run):
        run.sim.shoe.planned = [parse_card(c) for c in CARDS]

    with table(tmp_path, "sheet-004", page=True, seed=3, prepare=stack,
               page_settings=f'language = "{language}"\n') as rig:
        open_page(page, rig) if language == "en" else page.goto(rig.run.page.url)
        rig.open_and_bet(BETS)
        rig.deal()
        rig.state("decisions")
        for position in (1, 2, 4, 6):
            rig.play(position)
        for position in (3, 5):
            rig.act("fold", position=position)
        snap = rig.reveal()
        assert [h["jackpot"] for h in snap["jackpot_pending"]] == ["major"]
        assert "maximum payout reached" in " ".join(snap["positions"][0]["settlement"]["lines"])
        page.wait_for_selector("#jackpot-pending:not([hidden])")
        page.wait_for_selector(".pos.next")
        assert trouble_at_every_size(page) == {}
        # the hit is the position's problem while it waits; verified, the position is settled as any other
        # (its red box kept saying "a supervisor verifies the six cards before anything is paid")
        assert snap["positions"][0]["problems"] and page.locator("#pos-1.trouble").count() == 1
        rig.act("verify_jackpot", role="supervisor", who="supervisor Ana", reason="six cards checked")
        assert rig.wait(lambda s: not s["jackpot_pending"], what="verified")["positions"][0]["problems"] == []
        expect(page.locator("#pos-1 .problems")).to_have_count(0)
        expect(page.locator("#pos-1")).not_to_have_class(re.compile(r"\btrouble\b"))
