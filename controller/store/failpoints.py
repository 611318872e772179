"""Failpoints: the process killed (or a write refused) at a chosen journal commit, on purpose.

Owns the crash switches a test lab and the project's own tests use to prove
that every commit is a safe place to die (as etcd's and TiKV's failpoints
do). Off unless the environment says otherwise:

    TABLE_FAILPOINTS="journal.commit=27:kill"          SIGKILL right after the 27th commit
    TABLE_FAILPOINTS="journal.record=settlement:kill"  ... after the commit holding the first
                                                       ``settlement`` record of this process
    TABLE_FAILPOINTS="journal.commit=5:fail"           the 5th commit fails as a full disk would

Several switches are separated by ``;``. Commits are counted from the start of
the process, so a restart with the same variable crashes again at the same
point of the new run (tests clear it before restarting).
"""

from __future__ import annotations

import os
import signal
import sqlite3
from collections.abc import Iterable

VARIABLE = "TABLE_FAILPOINTS"


class Failpoints:
    def __init__(self, spec: str | None = None):
        self.at_commit: dict[int, str] = {}
        self.at_record: dict[str, str] = {}
        self.commits = 0
        for item in filter(None, (s.strip() for s in (spec or "").split(";"))):
            name, _, rest = item.partition("=")
            where, _, action = rest.partition(":")
            if action not in ("kill", "fail") or not where:
                raise ValueError(f"{VARIABLE}: {item!r}: expected journal.commit=N:kill|fail or "
                                 "journal.record=KIND:kill|fail")
            if name == "journal.commit" and where.isdigit():
                self.at_commit[int(where)] = action
            elif name == "journal.record":
                self.at_record[where] = action
            else:
                raise ValueError(f"{VARIABLE}: {item!r}: unknown failpoint {name!r}")

    @classmethod
    def from_environment(cls) -> Failpoints:
        return cls(os.environ.get(VARIABLE))

    def before_commit(self, kinds: Iterable[str]) -> None:
        """A "fail" switch at the coming commit makes it fail, as a disk with no room would."""
        actions = [self.at_commit.get(self.commits + 1)] + [self.at_record.get(k) for k in set(kinds)]
        if "fail" in actions:
            for kind in set(kinds):
                if self.at_record.get(kind) == "fail":
                    del self.at_record[kind]
            raise sqlite3.OperationalError("database or disk is full (failpoint)")

    def committed(self, kinds: Iterable[str]) -> None:
        """After each successful commit, with the record kinds it held."""
        self.commits += 1
        actions = [self.at_commit.get(self.commits)] + [self.at_record.pop(k, None) for k in set(kinds)]
        if "kill" in actions:
            os.kill(os.getpid(), signal.SIGKILL)
