"""Verifying the journal: the keyed chain of every fact, and the rounds' status against their records.

Owns the reading side of controller/store/chain.py. ``verify_journal`` walks
all of it (``table-controller verify``, and ``recall``, ``meters`` and
``jackpot`` before they show anything, and the start-up check: the table never
plays on a journal ``verify`` rejects); ``verify_from`` walks from a chain
number on. Each raises JournalError naming the first fact that does not
hold: an edited, removed, inserted or reordered record or table event, a
round whose status, pay table or void reason its records do not give, a trigger or a
view in the database (controller/store/journal_schema.py).
"""

from __future__ import annotations

import hashlib
import hmac
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from controller.errors import JournalError
from controller.store.audit_head import KEYED_FROM, keyed_from
from controller.store.chain import GENESIS, boundary_mac, keyed_digest, plain_digest
from controller.store.journal_schema import check_no_foreign_objects

if TYPE_CHECKING:
    from controller.store.journal import Journal

KEYED = ("SELECT chain, 'records', seq, round_id, at, kind, data, digest FROM records WHERE chain >= ? "
         "UNION ALL SELECT chain, 'table_events', seq, NULL, at, kind, data, digest FROM table_events "
         "WHERE chain >= ? ORDER BY 1")
# each round's columns beside what its records say: its first record's kind, the opening's preset,
# the last closing record's kind and reason (journal.py writes the columns from those records)
ROUNDS = ("SELECT r.id, r.status, r.preset, r.void_reason, f.kind, "
          "CASE f.kind WHEN 'opened' THEN json_extract(f.data, '$.preset') END, c.kind, "
          "json_extract(c.data, '$.reason') FROM rounds r "
          "LEFT JOIN records f ON f.seq = (SELECT MIN(seq) FROM records WHERE round_id = r.id) "
          "LEFT JOIN records c ON c.seq = (SELECT MAX(seq) FROM records WHERE round_id = r.id "
          "AND kind IN ('complete', 'void')) ORDER BY r.id")
PROGRESS_EVERY = 1000        # facts between two reports to a progress line
OPENED_BEFORE = 1.0          # seconds: a round's time before its opening record's, in older journals
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Verified:
    legacy_records: int         # schema-1 records on the plain SHA-256 chain
    legacy_events: int          # schema-1 table events, which had no chain at all
    keyed: int                  # facts on the keyed chain
    rounds: int


def verify_journal(journal: Journal, progress: Progress | None = None) -> Verified:
    """All of it, as of one commit (a table may be playing meanwhile); ``progress(done, total)`` is
    told of the keyed facts checked now and then."""
    with journal.reading():
        check_no_foreign_objects(journal)
        legacy_records, previous = _verify_legacy(journal)
        keyed = verify_from(journal, 1, previous, progress)
        rounds = _verify_rounds(journal)
        legacy_events = journal.db.execute("SELECT COUNT(*) FROM table_events WHERE chain IS NULL").fetchone()[0]
    return Verified(legacy_records, legacy_events, keyed, rounds)


def verify_from(journal: Journal, first: int, previous: str | None = None,
                progress: Progress | None = None) -> int:
    """The keyed chain from fact ``first`` on (``previous``: the digest before it, read when None)."""
    if previous is None:
        previous = journal.digest_before(first)
    expected, count = first, 0
    total = (journal.chain_head[0] - first + 1) if progress else 0
    for chain, stored_in, seq, round_id, at, kind, text, digest in journal.db.execute(KEYED, (first, first)):
        if chain != expected:
            raise JournalError(f"{journal.path}: fact {expected} of the chain is missing (the next is "
                               f"{_where(stored_in, seq, round_id, kind)})")
        if not hmac.compare_digest(keyed_digest(journal.key, previous, chain, stored_in, round_id, at, kind, text),
                                   digest):
            raise JournalError(f"{journal.path}: {_where(stored_in, seq, round_id, kind)} was altered, or does not "
                               "follow the fact before it")
        previous, expected, count = digest, expected + 1, count + 1
        if progress and count % PROGRESS_EVERY == 0:
            progress(count, total)
    if progress:
        progress(count, total)
    return count


def checkpoint_mac(key: bytes, chain: int, digest: str) -> str:
    return hmac.new(key, f"checkpoint|{chain}|{digest}".encode(), hashlib.sha256).hexdigest()


def check_at_start(journal: Journal) -> int:
    """SQLite's own check, the last checkpoint's own MAC, then all of the journal as ``verify`` checks
    it; then the checkpoint moves to the chain's head. Returns how many facts were checked."""
    try:
        return _check_at_start(journal)
    except sqlite3.DatabaseError as err:        # a damaged file SQLite's own check did not catch first
        raise JournalError(f"{journal.path}: the database is damaged: {err}") from None


def _check_at_start(journal: Journal) -> int:
    row = journal.db.execute("PRAGMA quick_check(1)").fetchone()
    if row[0] != "ok":
        raise JournalError(f"{journal.path}: the database is damaged: {row[0]}")
    through, digest, mac = (journal.meta(k) for k in ("checked_through", "checked_digest", "checked_mac"))
    if through and digest and mac and (
            not hmac.compare_digest(checkpoint_mac(journal.key, int(through), digest), mac) or
            journal.digest_before(int(through) + 1) != digest):
        raise JournalError(f"{journal.path}: fact {through} no longer matches the digest recorded "
                           "when it was last checked")
    # all of it, as ``verify`` does (issue 33: a walk from the checkpoint on let a fact edited
    # behind it, a changed status or a deleted round's row play on), once per start: the run
    # checks before the table is made, and the table's own check finds it done at this head
    done = getattr(journal, "verified", None)
    if done is not None and done[0] == journal.chain_head:
        checked = done[1]
    else:
        result = verify_journal(journal)
        checked = result.legacy_records + result.keyed
        journal.verified = (journal.chain_head, checked)
    last, head = journal.chain_head
    if last > 0:
        with journal.event():           # one commit: a checkpoint half written would read as tampering
            journal.set_meta("checked_through", str(last))
            journal.set_meta("checked_digest", head)
            journal.set_meta("checked_mac", checkpoint_mac(journal.key, last, head))
    return checked


def _verify_legacy(journal: Journal) -> tuple[int, str]:
    """Schema-1 records (before the chain was keyed) on their plain chain, exactly as many as the
    journal held when its keyed chain began (that boundary is under the key), none after a keyed one."""
    boundary, mac = journal.meta("keyed_boundary"), journal.meta("keyed_boundary_mac")
    if not boundary or not mac or not hmac.compare_digest(boundary_mac(journal.key, boundary), mac):
        # the first thing a key that is not this journal's fails: say so, it is what a technician meets
        raise JournalError(f"{journal.path}: where the journal's unkeyed part ends is missing or altered, or the "
                           "key it is read with is not this journal's (another table's key?)")
    count, previous, broken = plain_chain(journal.db.execute(
        "SELECT seq, round_id, kind, data, digest FROM records WHERE chain IS NULL ORDER BY seq"))
    if broken is not None:
        raise JournalError(f"{journal.path}: {_where('records', *broken)} was altered, "
                           "removed or inserted (before the chain was keyed)")
    for table in ("records", "table_events"):
        row = journal.db.execute(f"SELECT MIN(seq) FROM {table} WHERE chain IS NOT NULL").fetchone()
        late = row[0] is not None and journal.db.execute(
            f"SELECT seq FROM {table} WHERE chain IS NULL AND seq > ? LIMIT 1", (row[0],)).fetchone()
        if late:
            raise JournalError(f"{journal.path}: {table} row {late[0]} is outside the keyed chain "
                               "but was written after it began: inserted")
    events = journal.db.execute("SELECT COUNT(*) FROM table_events WHERE chain IS NULL").fetchone()[0]
    if boundary.partition(KEYED_FROM)[0] != f"{count}|{previous}|{events}":
        raise JournalError(f"{journal.path}: the journal's unkeyed part is not what it was when the keyed "
                           f"chain began ({boundary.split('|')[0]} records then, {count} now): facts were "
                           "rewritten in the older, unkeyed form")
    return count, previous


def plain_chain(rows: Iterable[tuple[int, int, str, str, str]]) -> tuple[int, str, tuple[int, int, str] | None]:
    """Schema-1 records ``(seq, round_id, kind, data, digest)`` in order on their plain SHA-256 chain:
    how many hold, the last digest, and the first that does not (``(seq, round_id, kind)``), or None."""
    previous, count = GENESIS, 0
    for seq, round_id, kind, text, digest in rows:
        if plain_digest(previous, round_id, kind, text) != digest or seq != count + 1:
            return count, previous, (seq, round_id, kind)
        previous, count = digest, count + 1
    return count, previous, None


def _verify_rounds(journal: Journal) -> int:
    """Every round's status and closing time are what its records say, every round has its opening
    record, and every record's round exists (the rounds table is derived; it must agree)."""
    orphan = journal.db.execute("SELECT seq, round_id FROM records WHERE round_id NOT IN "
                                "(SELECT id FROM rounds) LIMIT 1").fetchone()
    if orphan:
        raise JournalError(f"{journal.path}: record {orphan[0]} belongs to round {orphan[1]}, which the "
                           "rounds table no longer has")
    for round_id, closed_at, at in journal.db.execute(
            "SELECT r.id, r.closed_at, (SELECT at FROM records WHERE round_id = r.id AND kind IN "
            "('complete', 'void') ORDER BY seq DESC LIMIT 1) FROM rounds r WHERE r.closed_at IS NOT NULL"):
        if closed_at != at:
            raise JournalError(f"{journal.path}: round {round_id} closed at {closed_at}, but its records "
                               f"say {at}")
    _verify_openings(journal, keyed_from(journal.meta("keyed_boundary")))
    count = 0
    for round_id, status, preset, void_reason, first, opened_preset, last, reason in journal.db.execute(ROUNDS):
        if first not in (None, "opened"):
            raise JournalError(f"{journal.path}: round {round_id} does not begin with its opening record")
        if status != (last or "open"):
            raise JournalError(f"{journal.path}: round {round_id} is marked {status}, but its records "
                               f"say {last or 'open'}")
        # the report reads a round's pay table (its theoretical hold) and a void's reason from these
        # columns: each is what the round's records say, or an edit of them would be shown as true
        if opened_preset is not None and preset != opened_preset:
            raise JournalError(f"{journal.path}: round {round_id} is marked as played under {preset}, but its "
                               f"records say {opened_preset}")
        if void_reason != reason:
            raise JournalError(f"{journal.path}: round {round_id}'s void reason is {void_reason!r}, but its "
                               f"records say {reason!r}")
        count += 1
    return count


def _verify_openings(journal: Journal, exact_from: int | None) -> None:
    """Every round's opening time is its opening record's (which is under the key): the report picks
    a gaming day's rounds by it, so an edit would move a round to another day unseen. A round opened
    before the journal kept the two equal (issue 33; ``exact_from``, the first such fact) was given its
    time a moment before its record's: within ``OPENED_BEFORE`` of it, never after."""
    for round_id, opened_at, at, chain in journal.db.execute(
            "SELECT r.id, r.opened_at, o.at, o.chain FROM rounds r JOIN records o ON o.seq = "
            "(SELECT MIN(seq) FROM records WHERE round_id = r.id) WHERE o.kind = 'opened'"):
        if opened_at == at:
            continue
        if exact_from is None or chain is None or chain < exact_from:
            try:
                ahead = (datetime.fromisoformat(at) - datetime.fromisoformat(opened_at)).total_seconds()
            except (TypeError, ValueError):
                ahead = -1.0
            if 0 <= ahead < OPENED_BEFORE:
                continue
        raise JournalError(f"{journal.path}: round {round_id} opened at {opened_at}, but its records say {at}")


def _where(stored_in: str, seq: int, round_id: int | None, kind: str) -> str:
    if stored_in == "records":
        return f"record {seq} (round {round_id}, {kind})"
    return f"table event {seq} ({kind})"
