"""Failpoints: the process killed (or a write refused) at a chosen journal commit, on purpose.

Owns the crash switches a test lab and the project's own tests use to prove
that every commit is a safe place to die (as etcd's and TiKV's failpoints
do). Off unless the environment says otherwise:

    TABLE_FAILPOINTS="journal.commit=27:kill"          SIGKILL right after the 27th commit
    TABLE_FAILPOINTS="journal.record=settlement:kill"  ... after the commit holding the first
                                                       ``settlement`` record of this process
    TABLE_FAILPOINTS="journal.record=hand*2:kill"      ... the second ``hand`` record's commit
    TABLE_FAILPOINTS="journal.commit=5:fail"           the 5th commit fails as a full disk would

Several switches are separated by ``;``. Commits are counted from the start of
the process, so a restart with the same variable crashes again at the same
point of the new run (tests clear it before restarting).
"""

from __future__ import annotations

import os
import signal
import sqlite3
from collections import Counter
from collections.abc import Iterable

VARIABLE = "TABLE_FAILPOINTS"


class Failpoints:
    def __init__(self, spec: str | None = None):
        self.at_commit: dict[int, str] = {}
        self.at_record: dict[str, tuple[int, str]] = {}     # kind -> (its nth record, action)
        self.records: Counter[str] = Counter()              # records committed so far, by kind
        self.commits = 0
        for item in filter(None, (s.strip() for s in (spec or "").split(";"))):
            name, _, rest = item.partition("=")
            where, _, action = rest.partition(":")
            if action not in ("kill", "fail") or not where:
                raise ValueError(f"{VARIABLE}: {item!r}: expected journal.commit=N:kill|fail or "
                                 "journal.record=KIND[*N]:kill|fail")
            kind, _, nth = where.partition("*")
            if name == "journal.commit" and where.isdigit():
                self.at_commit[int(where)] = action
            elif name == "journal.record":
                if not kind or not (not nth or (nth.isdigit() and int(nth) > 0)):
                    raise ValueError(f"{VARIABLE}: {item!r}: expected journal.record=KIND or KIND*N, N from 1")
                self.at_record[kind] = (int(nth or 1), action)
            else:
                raise ValueError(f"{VARIABLE}: {item!r}: unknown failpoint {name!r}")

    @property
    def armed(self) -> bool:
        """Any switch left to trip (off in service: the commit path then asks nothing more)."""
        return bool(self.at_commit or self.at_record)

    @classmethod
    def from_environment(cls) -> Failpoints:
        return cls(os.environ.get(VARIABLE))

    def before_commit(self, kinds: Iterable[str]) -> None:
        """A "fail" switch at the coming commit makes it fail, as a disk with no room would."""
        kinds = list(kinds)
        due = self._due(kinds)
        if self.at_commit.get(self.commits + 1) == "fail" or any(self.at_record[k][1] == "fail" for k in due):
            for kind in due:
                if self.at_record[kind][1] == "fail":
                    del self.at_record[kind]
            raise sqlite3.OperationalError("database or disk is full (failpoint)")

    def committed(self, kinds: Iterable[str]) -> None:
        """After each successful commit, with the record kinds it held."""
        self.commits += 1
        kinds = list(kinds)
        actions = [self.at_commit.get(self.commits)] + [self.at_record.pop(k)[1] for k in self._due(kinds)]
        self.records.update(kinds)
        if "kill" in actions:
            os.kill(os.getpid(), signal.SIGKILL)

    def _due(self, kinds: list[str]) -> list[str]:
        """The record switches this commit reaches: it holds their kind's nth record."""
        here = Counter(kinds)
        return [k for k, (nth, _) in self.at_record.items() if here[k] and self.records[k] + here[k] >= nth]
