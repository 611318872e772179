"""The audit trail's head as the journal keeps it, under the table's key.

Owns meta ``audit_head`` and ``audit_head_mac``. Every commit that adds facts keeps the hash of
the audit trail's last line on the disk then (controller/store/audit_sync.py), and a MAC under
the table's key over that hash, the keyed chain's head (fact number and digest) and ``at``:
``commit``, or ``stop`` when the table stopped cleanly and the head is the trail's very last
line. Without the key nobody can make the journal vouch for another trail: a trail cut,
edited, given a forged line, stripped of its anchors and re-chained (its plain SHA-256 chain
needs no key) no longer holds the line, and a journal whose tail was cut no longer ends where
the MAC says. After a clean stop no line may follow the head (the shutdown's lines are covered
too); after a crash the lines after the last commit's head are vouched for by nobody.

Journals from before the head was keyed (issue 33) carry no MAC; meta ``keyed_boundary``,
itself under the key (controller/store/verify.py), says from which fact on the heads are keyed
(``KEYED_FROM``), so removing the MAC does not make a journal look older: the first commit of
this release on such a journal adds the marker, once.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import TYPE_CHECKING

from controller.errors import JournalError
from controller.store.chain import boundary_mac

if TYPE_CHECKING:
    from controller.store.journal import Journal

GENESIS = "0" * 64
KEYED_FROM = "|keyed heads from "          # the marker's text inside meta keyed_boundary
AT_COMMIT, AT_STOP = "commit", "stop"


def head_mac(key: bytes, chain: int, digest: str, head: str, at: str) -> str:
    return hmac.new(key, f"audit_head|{chain}|{digest}|{head}|{at}".encode(), hashlib.sha256).hexdigest()


def keyed_from(boundary: str | None) -> int | None:
    """The first fact whose commit keyed the audit head (and whose round opening is exact), from meta
    ``keyed_boundary``; None for a journal written before."""
    _, marked, first = (boundary or "").partition(KEYED_FROM)
    return int(first) if marked and first.isascii() and first.isdigit() else None


def boundary_with_marker(boundary: str, first: int) -> str:
    return f"{boundary}{KEYED_FROM}{first}"


def bind(journal: Journal, head: str | None, at: str | None) -> None:
    """Inside the journal's open transaction, after its facts: the trail's ``head`` and ``at`` (None:
    keep the ones the journal holds, for a writer without the trail, ``table-controller pin set``)
    under the key, bound to the chain's head now."""
    if not journal.heads_keyed:         # looked up until marked (then once per connection's commit by another)
        boundary = journal.meta("keyed_boundary")
        if boundary is not None and keyed_from(boundary) is None:   # a journal of the release before
            marked = boundary_with_marker(boundary, journal.chain_head[0] + 1)
            journal.set_meta("keyed_boundary", marked)
            journal.set_meta("keyed_boundary_mac", boundary_mac(journal.key, marked))
        journal.heads_keyed = boundary is not None
    if head is None:
        head = journal.meta("audit_head") or GENESIS
    if at is None:
        at = (journal.meta("audit_head_mac") or AT_COMMIT).partition(":")[0]
    chain, digest = journal.chain_head
    mac = head_mac(journal.key, chain, digest, head, at)
    journal.set_metas(("audit_head", head), ("audit_head_mac", f"{at}:{mac}"))


def held(journal: Journal) -> tuple[str | None, str]:
    """(the head the journal holds, ``at``), once its MAC holds for the chain's head now; raises
    JournalError naming what does not hold. A journal of the release before: its head, ``commit``."""
    seen = journal.meta("audit_head")
    if keyed_from(journal.meta("keyed_boundary")) is None:
        return seen, AT_COMMIT
    at, _, mac = (journal.meta("audit_head_mac") or "").partition(":")
    chain, digest = journal.chain_head
    if seen is None and not mac and chain == 0:
        return None, AT_COMMIT                  # a new journal: nothing committed yet
    if seen is None or not mac or at not in (AT_COMMIT, AT_STOP) or \
            not hmac.compare_digest(head_mac(journal.key, chain, digest, seen, at), mac):
        raise JournalError(f"{journal.path}: the audit trail's head kept with the journal is missing or not "
                           f"under the table's key for the journal's last fact ({chain}): the journal's end was "
                           "cut, or the trail's head replaced; call a technician")
    return seen, at
