"""A crash at every journal commit of a round, on every preset, with and without a misdeal.

The failpoint ``journal.commit=N:fail`` makes the N-th commit fail as a full
disk would: the event's transaction is rolled back and the engine halts, which
leaves the journal exactly as a SIGKILL just before that commit (or just after
commit N-1) would. A new engine then opens the same journal, as a restarted
controller does, and the round is driven to its end. Whatever the crash point:
the same round comes back, no position is paid twice or left unpaid, the
payments equal those of the same round played without a crash, and a misdeal
always ends void with nothing paid. (The real SIGKILL of the running process
at chosen commits is tests/system/test_failpoints.py.)
"""

from __future__ import annotations

import pytest

from controller.rules.paytable import preset_names
from controller.store.failpoints import Failpoints
from drivers.events import ShoeCount
from tests.round.bench import Bench

BETS = {1: {"ante": 500, "pair_plus": 500}, 2: {"ante": 1000}, 4: {"ante": 500, "pair_plus": 1000}}
HANDS = ["As Ad 3c", "2h 7d 9s", "Kh Qh Jh", "Ks 9c 4d"]          # positions 1, 2, 4, then the dealer
PLAYS = {1: True, 2: False, 4: True}
MISDEAL_HANDS = ["As Ad 3c", "As 7d 9s", "Kh Qh Jh", "Ks 9c 4d"]  # the ace of spades read twice


def drive(bench: Bench, hands: list[str], steps: int = 200) -> None:
    """Work the table as a dealer and players would, from whatever state it is in, to the end."""
    for _ in range(steps):
        state = bench.state
        if state in ("complete", "void") and bench.table.round is not None:
            return
        if state == "starting":
            bench.devices_up()
        elif state in ("ready",):
            bench.done("open_betting")
        elif state == "betting":
            rnd = bench.table.open_round
            if not rnd.shuffled:
                bench.shuffled()
            elif not bench.table.felt.sensed():
                for position, wagers in BETS.items():
                    for spot, value in wagers.items():
                        bench.place(position, spot, value)
            else:
                bench.done("no_more_bets")
        elif state == "closed":
            bench.done("deal")
        elif state == "dealing":
            rnd = bench.table.open_round
            if bench.table.dealing.counting():
                bench.post(ShoeCount("shoe", rnd.shoe_count - rnd.cards_dealt, rnd.deck, True))
            else:
                bench.deliver(hands[rnd.hands_received])
        elif state == "decisions":
            position = bench.table.open_round.undecided[0]
            if PLAYS[position]:
                bench.play(position)
            else:
                bench.done("fold", position=position)
        elif state == "collecting":
            bench.done("reveal")
        elif state == "settling":
            bench.done("confirm", position=bench.snap["next_to_pay"])
        else:
            raise AssertionError(f"no way on from {state}: {bench.snap['prompt']}")
    raise AssertionError(f"the round did not end: {bench.state}, {bench.snap['prompt']}")


def outcome(bench: Bench) -> dict:
    rnd = bench.table.open_round
    records = bench.journal.records(rnd.id)
    paid = [r.data["position"] for r in records if r.kind == "paid"]
    return {"round": rnd.id, "status": bench.journal.last_round()[1], "paid": sorted(paid),
            "nets": {r.data["position"]: r.data["net"] for r in records if r.kind == "paid"},
            "settlements": sum(r.kind == "settlement" for r in records), "twice": len(paid) != len(set(paid))}


def played(tmp_path, preset: str, hands: list[str]) -> tuple[dict, range]:
    """The round without a crash, and the commits (counted from the journal's opening) it took."""
    bench = Bench(tmp_path, preset)
    first = bench.journal.commits + 1
    drive(bench, hands)
    return outcome(bench), range(first, bench.journal.commits + 1)


def sampled(commits: range, preset: str) -> list[int]:
    """The default suite's share of a round's commits for ``preset``: every len(presets)-th, offset by
    the preset's place, so that the presets together still crash at every commit of the round (the
    engine commits the same events on every preset). The campaign crashes at all of them."""
    presets = preset_names()
    return [commit for i, commit in enumerate(commits) if i % len(presets) == presets.index(preset)]


@pytest.mark.parametrize("every", [False, pytest.param(True, marks=pytest.mark.campaign)], ids=["sample", "every"])
@pytest.mark.parametrize("hands", [HANDS, MISDEAL_HANDS], ids=["round", "misdeal"])
@pytest.mark.parametrize("preset", preset_names())
def test_a_crash_at_any_commit_recovers_the_same_round_and_pays_each_position_once(tmp_path, preset, hands, every):
    expected, commits = played(tmp_path / "clean", preset, hands)
    assert len(commits) >= (6 if hands is MISDEAL_HANDS else 10)     # only events that wrote facts commit
    if hands is MISDEAL_HANDS:
        assert expected["status"] == "void" and expected["paid"] == []
    else:
        assert expected["status"] == "complete" and expected["paid"] == [1, 2, 4] and not expected["twice"]
    for crash_at in commits if every else sampled(commits, preset):
        folder = tmp_path / f"crash-{crash_at}"
        bench = Bench(folder, preset)
        failpoints = Failpoints(f"journal.commit={crash_at}:fail")
        failpoints.commits = bench.journal.commits          # commits since the journal opened, as a process counts
        bench.journal.failpoints = failpoints
        drive_until_halted(bench, hands)
        bench.journal.close()
        again = Bench(folder, preset)                      # the controller restarted on its journal
        drive(again, hands)
        got = outcome(again)
        where = f"crash at commit {crash_at} of {commits.stop - 1}"
        assert not got["twice"], where
        assert got["settlements"] <= 1, where
        assert got["round"] == expected["round"], where
        assert (got["status"], got["paid"], got["nets"]) == \
            (expected["status"], expected["paid"], expected["nets"]), where


def drive_until_halted(bench: Bench, hands: list[str]) -> None:
    try:
        drive(bench, hands)
    except AssertionError:
        pass                                                # refusals once halted: expected
    assert bench.engine.halted, "the failpoint never fired"
