"""Dealing alone: one hand asked at a time, every card checked, a repeated hand ignored, the shoe's
holds, and after a restart the count checked before the deal goes on (``RestartCount``, one small
state in place of three flags). A clerk on a journal in memory; no engine, no shoe."""

from __future__ import annotations

from controller.round.dealing import HAND_TIMER, Dealing, RestartCount, card_problem
from controller.round.ports import AskShoeStatus, CheckDeck, DealHand, Shuffle
from controller.rules.cards import parse_cards
from drivers.events import HandDealt, ShoeCount, ShoeJam
from tests.round.parts import Desk, table_config

CONFIG = table_config()


def dealing_round(**wagers: int) -> tuple[Desk, Dealing]:
    """A round in ``dealing``, shuffled with deck 1 (52 cards), with an Ante at each position given."""
    desk = Desk("dealing", round_id=1)
    desk.clerk.fact("shuffled", deck=1, count=52)
    positions = {p[1:]: {"ante": a, "pair_plus": 0, "six_card_bonus": 0, "super6": 0} for p, a in wagers.items()}
    desk.clerk.fact("wagers", positions=positions, linked=[])
    return desk, Dealing(desk.clerk, desk.holds, CONFIG)


def hand(hand_no: int, text: str, deck: int = 1) -> HandDealt:
    return HandDealt("shoe", hand_no, tuple((c, deck) for c in parse_cards(text)))


def test_hands_are_asked_one_at_a_time_each_with_a_deadline():
    desk, dealing = dealing_round(p1=500, p2=500)
    dealing.deal(recovering=False)
    assert desk.commands() == [DealHand(1)] and desk.timers == {HAND_TIMER: CONFIG.hand_timeout}
    dealing.on_shoe(hand(1, "As Kd 3c"))
    assert desk.commands() == [DealHand(2)]
    assert desk.clerk.open_round.hands == {1: tuple(parse_cards("As Kd 3c"))}


def test_a_card_read_twice_is_a_misdeal_and_the_same_hand_reported_again_is_ignored():
    desk, dealing = dealing_round(p1=500, p2=500)
    dealing.deal(recovering=False)
    dealing.on_shoe(hand(1, "As Kd 3c"))
    dealing.on_shoe(hand(1, "As Kd 3c"))                # a reconnect lost its ACK: the same hand
    assert [r.kind for r in desk.journal.written].count("hand") == 1 and desk.fired == []
    dealing.on_shoe(hand(2, "As 7d 9s"))
    assert desk.fired == [("misdeal", {"reason": "As was read twice (position 2's hand)"})]


def test_a_late_hand_is_asked_again_and_a_jam_holds_the_round_until_it_is_cleared():
    desk, dealing = dealing_round(p1=500)
    dealing.deal(recovering=False)
    desk.commands()
    dealing.on_hand_late()
    assert desk.commands() == [DealHand(1)] and desk.alerts("shoe_slow")
    dealing.on_shoe(ShoeJam("shoe", True, "card stuck", 3))
    assert desk.holds.shoe_problem() == "Shoe jammed (card stuck): clear the jam and close the shoe's door"
    assert desk.journal.table_events == [("jam", {"code": 3, "description": "card stuck"})]
    dealing.on_shoe(ShoeJam("shoe", False, "", 0))
    assert not desk.holds


def test_after_a_restart_the_count_comes_first_and_a_count_that_agrees_lets_the_deal_go_on():
    desk, dealing = dealing_round(p1=500)
    dealing.deal(recovering=True)
    assert desk.commands() == [AskShoeStatus()] and dealing.counting()
    dealing.on_shoe(ShoeCount("shoe", 52, 1, True))
    assert not dealing.counting() and desk.commands() == [DealHand(1)]


def test_after_a_restart_cards_gone_unrecorded_are_a_misdeal():
    desk, dealing = dealing_round(p1=500)
    dealing.deal(recovering=True)
    dealing.on_shoe(ShoeCount("shoe", 46, 1, True))
    assert desk.fired[0][0] == "misdeal" and "the shoe holds 46, the journal expects 52" in desk.fired[0][1]["reason"]


def test_the_restart_count_allows_one_hand_formed_before_it_and_counts_again_once_that_hand_is_in():
    count = RestartCount()
    count.begin()
    assert count.counting() and count.hand_may_come_first()
    assert count.counted() is True                      # the count came one hand short: allowed once
    count.one_hand_short()
    assert not count.counting()
    assert count.count_after_hand() is True             # that hand is in: counted again
    assert count.counted() is False and count.count_after_hand() is False
    count.begin()
    count.reset()                                       # the round is void: nothing is awaited
    assert not count.counting() and not count.hand_may_come_first()


def test_the_shoe_back_is_asked_its_status_and_the_shuffle_it_may_have_lost():
    desk = Desk("betting", round_id=1)
    desk.clerk.fact("opened", preset="sheet-004", deck=2, jackpots={})
    Dealing(desk.clerk, desk.holds, CONFIG).shoe_back()
    assert desk.commands() == [AskShoeStatus(), Shuffle(2)]


def test_a_shuffle_or_deck_check_the_shoe_never_acknowledged_is_asked_again_while_the_round_waits():
    """A shoe quiet for under the silence timeout drops the command and is never offline, so no return
    asks again: the round stood at "Shoe shuffling" until voided (the million-round campaign)."""
    desk = Desk("betting", round_id=1)
    desk.clerk.fact("opened", preset="sheet-004", deck=2, jackpots={})
    dealing = Dealing(desk.clerk, desk.holds, CONFIG)
    dealing.command_failed("Shuffle")
    dealing.command_failed("DeliverHand")                    # not one the round waits for between hands
    assert desk.commands() == [Shuffle(2)]
    desk.clerk.fact("shuffled", deck=2, count=52)
    dealing.command_failed("Shuffle")                       # shuffled meanwhile: nothing to ask
    dealing.command_failed("DeckCheck")
    assert desk.commands() == [CheckDeck()]


def test_a_hand_is_three_readable_cards_of_the_deck_in_play_none_seen_before():
    good = tuple((c, 1) for c in parse_cards("2c 3c 4c"))
    assert card_problem(good, 1, set(), 1) is None
    assert card_problem(good[:2], 0, set(), 1) == "the dealer was dealt 2 cards"
    assert card_problem(((None, 1), *good[1:]), 2, set(), 1) == "the shoe could not read a card of position 2's hand"
    assert card_problem(good, 1, set(), 2).endswith("is from deck 1, not the deck in play (2)")
