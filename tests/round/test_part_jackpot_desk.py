"""The jackpot desks alone: Super 6 closing and opening with the sign (said once, the felt told),
values posted only with a reason, a hit verified before anything is paid; the local desk ignores
the floor. The desk's board keeps its postings in a journal file (its own store); the round's
facts go to a clerk on a journal in memory; no engine."""

from __future__ import annotations

import inspect

import pytest

from controller.round.floor_desk import LinkedJackpotDesk
from controller.round.jackpot_desk import JackpotDesk, LocalJackpotDesk
from controller.round.ports import ShowJackpots, ShowMessage
from controller.store.jackpot import JackpotBoard
from controller.store.journal import Journal
from tests.round.parts import Desk, table_config

CONFIG = table_config()
POSTED = {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000}


class FeltSeen:
    """Stands for the felt: counts how often it was told Super 6 changed."""

    def __init__(self) -> None:
        self.told = 0

    def on_super6_changed(self) -> None:
        self.told += 1


@pytest.fixture
def local(tmp_path):
    desk = Desk("ready")
    felt = FeltSeen()
    board = JackpotBoard(Journal(tmp_path / "journal.sqlite"), CONFIG.preset, CONFIG.jackpots)
    return desk, felt, LocalJackpotDesk(desk.clerk, board, felt)      # type: ignore[arg-type]


def test_super6_opens_when_the_sign_shows_the_posted_values_and_closes_when_it_fails(local):
    desk, felt, jackpots = local
    assert jackpots.super6_closed().startswith("the jackpot sign is not showing the posted values")
    jackpots.on_sign_showing(POSTED)
    assert jackpots.super6_closed() is None and desk.alerts() == []      # never said shut: nothing to reopen
    jackpots.on_sign_failed("sign offline: no answer")
    jackpots.on_sign_failed("sign offline: no answer")
    assert desk.alerts("super6_closed") == ["Super 6 closed: the jackpot sign is not showing the posted values "
                                            "(sign offline: no answer). No new Super 6 wagers."]
    jackpots.on_sign_showing(POSTED)
    assert desk.alerts("super6_open") == ["Super 6 open again: the sign shows the posted jackpot values"]
    assert felt.told == 3                               # each change, and only a change


def test_new_values_are_posted_between_rounds_with_a_reason_and_shown_on_the_sign(local):
    desk, _, jackpots = local
    new = dict(POSTED, mega=12_000_000)
    assert jackpots.post(new, "supervisor Ana", "") == "say why the jackpot values change"
    desk.clerk.state = "betting"
    assert jackpots.post(new, "supervisor Ana", "weekly") == \
        "jackpot values are changed between rounds, not while a round is in play"
    desk.clerk.state = "ready"
    assert jackpots.post(new, "supervisor Ana", "weekly") is None
    assert jackpots.values() == new and jackpots.offers_posting()
    assert desk.commands() == [ShowJackpots(12_000_000, 2_500_000, 250_000, (), ()), ShowMessage("")]
    assert desk.alerts("jackpot_posted") == ["Jackpot values posted by the supervisor Ana: MEGA $100,000.00 -> "
                                             "$120,000.00"]


def test_the_local_desk_has_nothing_to_claim_or_refer_on_a_floor(local):
    desk, _, jackpots = local
    jackpots.on_floor_levels({"minor": {"generation": 2, "value": 1, "state": "pending"}})
    jackpots.on_jackpot_claimed(1, "minor", {"amount": 1}, None)
    jackpots.floor_duties()
    assert desk.journal.written == [] and desk.journal.table_events == [] and desk.commands() == []
    assert jackpots.floor_claims() == [] and not jackpots.linked
    assert jackpots.refer_problem() == "no linked jackpot claim of this round was refused by the floor"
    assert jackpots.opening() == {"jackpots": POSTED}


@pytest.mark.parametrize("desk_class", [LocalJackpotDesk, LinkedJackpotDesk])
def test_each_desk_answers_all_the_interface_with_its_signatures(desk_class):
    members = {n for n in vars(JackpotDesk) if not n.startswith("_")}
    for name in members:
        assert hasattr(desk_class, name), name
        if callable(getattr(JackpotDesk, name)):
            assert inspect.signature(getattr(desk_class, name)) == inspect.signature(getattr(JackpotDesk, name)), name
