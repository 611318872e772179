"""A simulated campaign's ledger: each finished seed's figures, kept in its work folder as it ends.

Owns ``seeds.jsonl`` in the campaign's ``--work-dir``: a first line naming the campaign (every
option that decides what its seeds play), then one line per finished seed (its figures, as
simulators/sim/campaign.py ``play_seed`` gives them), each flushed and fsynced before the next seed
is counted. A campaign of a million rounds takes hours; a reboot or a kill must not cost them:
``--resume`` reads the ledger back and plays only the seeds it does not hold (a seed under way when
the process ended is played again from its start, exactly as before: a seed is deterministic).

A ledger of another campaign (other options) is refused in words, never mixed into this one's
summary; a last line cut short by the crash is the seed under way, played again.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

LEDGER_FILE = "seeds.jsonl"


class LedgerError(ValueError):
    """A ledger that cannot be gone on with, in words."""


def campaign_identity(options: Any) -> dict[str, Any]:
    """What decides the seeds a campaign plays and how (not where, nor on how many processes)."""
    doc = asdict(options)
    for key in ("work_dir", "jobs", "keep"):
        doc.pop(key, None)
    return doc


class Ledger:
    def __init__(self, work_dir: str | Path, options: Any, *, resume: bool):
        """A new ledger (any old one replaced), or with ``resume`` the one in ``work_dir`` read back."""
        self.path = Path(work_dir).resolve() / LEDGER_FILE
        self.identity = json.loads(json.dumps(campaign_identity(options)))     # as JSON keeps it
        self.done: list[dict[str, Any]] = []
        self.elapsed_before = 0.0
        if resume:
            self._read()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._write_line({"campaign": self.identity}, mode="w")

    def _read(self) -> None:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            raise LedgerError(f"--resume: no campaign to go on with in {self.path.parent} ({LEDGER_FILE} "
                              "is not there)") from None
        except (OSError, UnicodeDecodeError) as err:
            raise LedgerError(f"--resume: {self.path} cannot be read ({err})") from None
        try:
            head = json.loads(lines[0])["campaign"] if lines else None
        except (ValueError, KeyError, TypeError):
            head = None
        if head is None:
            raise LedgerError(f"--resume: {self.path} does not begin with a campaign's options")
        if head != self.identity:
            differ = sorted(k for k in {*head, *self.identity} if head.get(k) != self.identity.get(k))
            raise LedgerError(f"--resume: the campaign in {self.path.parent} was started with other options "
                              f"({', '.join(differ)}); give the same ones, or a new --work-dir")
        kept = lines[:1]
        for number, line in enumerate(lines[1:], start=2):
            try:
                doc = json.loads(line)
            except ValueError:
                if number == len(lines):
                    break                       # cut short by the crash: that seed is played again
                raise LedgerError(f"--resume: {self.path} line {number} is not a seed's figures") from None
            self.done.append(doc)
            kept.append(line)
        if len(kept) < len(lines):              # the cut line goes, so the next seed's line stands alone
            spare = self.path.with_suffix(".tmp")
            spare.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
            with open(spare, "rb") as f:
                os.fsync(f.fileno())
            spare.replace(self.path)
        self.elapsed_before = max((d.get("campaign_elapsed_s", 0.0) for d in self.done), default=0.0)

    def finished(self) -> set[int]:
        return {d["seed"] for d in self.done}

    def add(self, doc: dict[str, Any]) -> None:
        self._write_line(doc)
        self.done.append(doc)

    def _write_line(self, doc: dict[str, Any], mode: str = "a") -> None:
        with open(self.path, mode, encoding="utf-8") as f:
            f.write(json.dumps(doc, separators=(",", ":")) + "\n")
            f.flush()
            os.fsync(f.fileno())
