"""The journal and the audit trail vouch for each other; either going back in time is refused.

Owns the cross-checks at start-up. After every committed engine event the
engine writes a ``journal.anchor`` entry (the last record's sequence number,
the first ``ANCHOR_DIGITS`` hex digits of its digest, the event that caused
it and the kinds of the facts it wrote) to the audit trail, a separate file chain; and every commit keeps
in the journal (meta ``audit_head``) the hash of the audit trail's last line
on the disk then (controller/store/audit_sync.py: the trail is fsynced a moment
after it is written, off the engine's path). A journal that lost commits (its WAL deleted after a crash, an
old copy restored) ends before the last anchor, or holds a different record
there; an audit trail cut short, deleted, or whose last lines were edited no
longer holds the line the journal saw: either way the start is refused,
naming both. Each is first checked on its own chain. The head the journal keeps
is under the table's key, bound to the journal's last fact, and after a clean
stop names the trail's very last line (controller/store/audit_head.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from controller.store.audit import GENESIS, AuditError, files_in_order, line_hash, open_lines
from controller.store.audit import verify as verify_audit
from controller.store.audit_head import AT_STOP, held
from controller.store.journal import FACTS, Journal, JournalError

ANCHOR = "journal.anchor"
# An anchor carries the first 128 bits of the fact's keyed digest (HMAC-SHA256): as strong as a
# 128-bit MAC, half the bytes of the trail's busiest line. Anchors written in full still compare.
ANCHOR_DIGITS = 32


def last_anchor(audit_dir: Path) -> tuple[int, str, str] | None:
    """(seq, digest, where) of the newest anchor in the trail, newest file first."""
    for path in reversed(files_in_order(audit_dir)):
        lines = _lines(path)
        for number in range(len(lines), 0, -1):
            text = lines[number - 1]
            if ANCHOR not in text:
                continue
            try:
                entry = json.loads(text)
            except json.JSONDecodeError:
                continue
            if entry.get("event") == ANCHOR and "chain" in entry:
                return int(entry["chain"]), str(entry["digest"]), f"{path.name}, line {number}"
    return None


def check_journal_against_audit(journal: Journal, audit_dir: Path) -> None:
    """Raises JournalError when the journal lacks or differs from what the trail says was committed."""
    anchor = last_anchor(audit_dir)
    if anchor is None:
        return
    chain, digest, where = anchor
    if journal.chain_head[0] < chain:
        raise JournalError(f"{journal.path}: the journal ends at fact {journal.chain_head[0]}, but the audit "
                           f"trail ({where}) saw fact {chain} committed: commits were lost (a deleted "
                           "write-ahead log or an older copy of the journal); call a technician")
    if len(digest) < ANCHOR_DIGITS or not journal.digest_before(chain + 1).startswith(digest):
        raise JournalError(f"{journal.path}: fact {chain} differs from the one the audit trail ({where}) "
                           "saw committed")


def check_every_anchor(journal: Journal, audit_dir: Path) -> int:
    """Every anchor of the trail, oldest first, against the fact it names (``verify``; the start-up
    check reads only the newest). A journal rewritten in the middle by someone holding the table's
    key verifies on its own chain, but no longer holds the digests the trail saw committed then.
    Returns the anchors checked; raises JournalError naming the first that does not hold."""
    facts = journal.db.execute(f"SELECT chain, digest FROM ({FACTS}) ORDER BY 1")
    at, held = 0, GENESIS
    checked = 0
    for chain, digest, where in _anchors(audit_dir):
        if chain < at:                      # out of order (not written so): looked up on its own
            held_then = journal.digest_before(chain + 1) if chain > 0 else GENESIS
        else:
            while at < chain:
                row = facts.fetchone()
                if row is None:
                    # a table playing meanwhile commits each fact before its anchor: a fact this reading
                    # began before is in the journal by the time its anchor was read; read again from here
                    facts = journal.db.execute(f"SELECT chain, digest FROM ({FACTS}) WHERE chain > ? ORDER BY 1",
                                               (at,))
                    row = facts.fetchone()
                if row is None:
                    raise JournalError(f"{journal.path}: the journal ends at fact {at}, but the audit trail "
                                       f"({where}) saw fact {chain} committed: commits were lost; call a technician")
                at, held = int(row[0]), str(row[1])
            held_then = held
        if chain > 0 and (len(digest) < ANCHOR_DIGITS or not held_then.startswith(digest)):
            raise JournalError(f"{journal.path}: fact {chain} differs from the one the audit trail ({where}) saw "
                               "committed: the journal was rewritten after the fact; call a technician")
        checked += 1
    return checked


def _anchors(audit_dir: Path) -> Iterator[tuple[int, str, str]]:
    """(chain, digest, where) of every anchor in the trail, oldest file and line first."""
    for path in files_in_order(audit_dir):
        with open_lines(path, errors="replace") as f:
            for number, text in enumerate(f, 1):
                if ANCHOR not in text:
                    continue
                try:
                    entry = json.loads(text)
                except json.JSONDecodeError:
                    continue
                if entry.get("event") == ANCHOR and "chain" in entry:
                    yield int(entry["chain"]), str(entry["digest"]), f"{path.name}, line {number}"


def check_audit_against_journal(journal: Journal, audit_dir: Path, last: str | None = None) -> None:
    """Raises when the trail no longer holds the line the journal's last commit saw, when that head
    is not under the key for the journal's end (JournalError, controller/store/audit_head.py), or,
    after a clean stop, when any line follows it (``last``: the hash of the trail's last line, as
    the table found it before writing any; read from the files when None)."""
    with journal.reading():             # the head and the chain's end it is bound to, from one commit;
        seen, at = held(journal)        # the trail, read after, holds the line it names
    if not seen or seen == GENESIS:     # committed before any line of the trail was on the disk
        return
    files = files_in_order(audit_dir)
    if at == AT_STOP:
        if last is None:
            final = next((lines[-1] for path in reversed(files) if (lines := _lines(path))), None)
            last = line_hash(final) if final is not None else GENESIS
        if last != seen:
            raise AuditError(f"{audit_dir}: the audit trail does not end with the line the table wrote when it "
                             f"last stopped (hash {seen[:16]}...): lines were added, cut or edited after it "
                             "stopped; call a technician")
        return
    for path in reversed(files[-2:]):      # the current file, or the one before
        for text in reversed(_lines(path)):
            if line_hash(text) == seen:
                return
    raise AuditError(f"{audit_dir}: the audit trail no longer holds the line the journal's last commit saw "
                     f"(hash {seen[:16]}...): lines were cut, edited or the file deleted; call a technician")


def check_trail(journal: Journal, audit_dir: Path, last: str | None = None) -> tuple[int, int, int]:
    """Everything ``verify`` checks between the journal and its trail: the trail's own chain, every
    anchor against its fact, the head the journal kept. (lines, files, anchors); raises naming the
    first thing that does not hold. The start-up check, ``verify``, ``recall``, ``meters``."""
    lines, files = verify_audit(audit_dir) if audit_dir.is_dir() else (0, 0)
    anchors = check_every_anchor(journal, audit_dir) if audit_dir.is_dir() else 0
    check_audit_against_journal(journal, audit_dir, last)
    return lines, files, anchors


def _lines(path: Path) -> list[str]:
    """A trail file's lines (compressed or not), without their newlines."""
    with open_lines(path, errors="replace") as f:
        return f.read().splitlines()
