"""The failpoint switches' own arithmetic (controller/store/failpoints.py), with the kill taken out:
which commit a ``journal.record=KIND[*N]`` switch reaches, and the switch refused in words when
it cannot mean anything."""

from __future__ import annotations

import sqlite3

import pytest

from controller.store import failpoints as fp
from controller.store.failpoints import Failpoints


def test_the_nth_record_of_a_kind_is_the_commit_that_holds_it(monkeypatch):
    killed: list[int] = []
    monkeypatch.setattr(fp.os, "kill", lambda pid, sig: killed.append(sig))
    points = Failpoints("journal.record=hand*3:kill")
    for kinds in (["opened", "state"], ["hand"], ["hand", "decision"], ["state"]):
        points.committed(kinds)
    assert killed == []                                     # two hands so far
    points.committed(["hand", "hand"])                       # holds the third (and a fourth)
    assert len(killed) == 1
    points.committed(["hand"])                               # said once: not again
    assert len(killed) == 1


def test_a_fail_switch_fails_the_commit_that_would_hold_the_nth_record():
    points = Failpoints("journal.record=paid*2:fail")
    points.before_commit(["paid"])
    points.committed(["paid"])
    with pytest.raises(sqlite3.OperationalError, match="disk is full"):
        points.before_commit(["paid", "state"])
    points.before_commit(["paid"])                           # once only


@pytest.mark.parametrize("spec, why", [
    ("journal.record=hand*0:kill", "KIND or KIND\\*N, N from 1"), ("journal.record=hand*x:kill", "N from 1"),
    ("journal.record=*2:kill", "N from 1"), ("journal.record=hand:explode", "kill\\|fail"),
    ("journal.nothing=1:kill", "unknown failpoint 'journal.nothing'")])
def test_a_switch_that_means_nothing_is_refused_naming_it(spec, why):
    with pytest.raises(ValueError, match=f"TABLE_FAILPOINTS: '{spec.replace('*', '[*]')}': .*{why}"):
        Failpoints(spec)


def test_without_a_switch_the_commit_path_asks_nothing(monkeypatch):
    killed: list[int] = []
    monkeypatch.setattr(fp.os, "kill", lambda pid, sig: killed.append(sig))
    assert not Failpoints(None).armed and not Failpoints("").armed
    points = Failpoints("journal.record=paid:kill")
    assert points.armed
    points.committed(["paid"])
    assert killed and not points.armed                       # spent: nothing left to trip
    assert Failpoints("journal.commit=9:fail").armed
