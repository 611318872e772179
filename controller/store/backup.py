"""Backups of a table's records, taken while the table runs, and checked before they count.

Owns ``table-controller backup DEST``'s work. One backup is a folder
``DEST/<table>-<UTC time>`` holding:

  journal.sqlite   the journal, copied with SQLite's online backup API in one step, so the copy
                   is one consistent snapshot even while the controller commits (a plain copy of
                   a WAL database can miss or tear commits still in its -wal file); saved in
                   rollback mode, so the copy is one self-contained file
  pins.json        the PIN store (salted scrypt hashes and the lockout), read under its lock
  audit/           the audit trail's files (rotated ones as they are, compressed or not), cut
                   just before the first ``journal.anchor`` of a commit the journal copy does not
                   hold: the copy is a consistent pair the controller starts on
  BACKUP.json      what the backup holds: each file's SHA-256 and size, the journal's last fact,
                   its rounds, the key's fingerprint, the program's version

The jackpot's posted values and hits are table events in the journal: no separate store.

The journal's key is a secret and is NOT copied unless asked (``include_key``): whoever holds
the key and a copy of the journal can rewrite the copy so that it verifies. Keep the key as the
casino keeps other secrets (docs/deploy.md, "Backups"); ``BACKUP.json`` carries its fingerprint
(an HMAC under the key of a fixed text, which says nothing about the key) so a restore can tell
whether it has the right one.

The backup is written into ``DEST/.<name>.partial`` and renamed only after it was checked from
the disk: the copy opened read-only and verified in full with the table's key
(controller/store/verify.py), its audit trail's chain, the anchors between the two, the PIN
file, and every file against ``BACKUP.json``. A backup that does not check out is removed and
the error names why; a folder without ``.partial`` in DEST is always a checked backup. A
``.partial`` left by a backup killed mid-copy is removed by the next backup of that table
(which holds a lock on DEST while it writes: a partial found then is no one's).
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import hashlib
import hmac
import json
import os
import re
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from controller.errors import InputError, IntegrityError
from controller.store.anchors import ANCHOR, check_trail
from controller.store.audit import files_in_order
from controller.store.journal import Journal
from controller.store.verify import verify_journal

MANIFEST = "BACKUP.json"
JOURNAL = "journal.sqlite"
PINS = "pins.json"
AUDIT = "audit"
KEY = "journal.key"
NAME = re.compile(r"(?P<table>.+)-(?P<at>\d{8}T\d{6}Z)$")
ATTEMPTS = 3            # a rotation of the audit trail during the copy is met by taking it again


class BackupError(IntegrityError):
    """A backup that could not be written or does not check out; the message says which part."""


@dataclass(frozen=True)
class Sources:
    table_id: str
    journal: Path
    key: bytes
    pins: Path
    audit_dir: Path
    key_file: Path                      # where the key was read (controller/store/chain.py: key_path)


def key_fingerprint(key: bytes) -> str:
    return hmac.new(key, b"table-controller journal key fingerprint", hashlib.sha256).hexdigest()[:16]


def backup(sources: Sources, dest: Path, *, include_key: bool = False, version: str = "unknown",
           now: datetime | None = None) -> dict:
    """Write one checked backup under ``dest``; returns its BACKUP.json (with ``path``)."""
    if not sources.journal.exists():
        raise InputError(f"{sources.journal}: no journal here to back up")
    at = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    name = f"{sources.table_id}-{at}"
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        why = "it is a file, not a folder" if isinstance(err, FileExistsError) else err.strerror or err
        raise InputError(f"{dest}: cannot write backups here: {why}") from None
    final = dest / name
    with _writing_backups(dest, sources.table_id):
        if final.exists():
            raise InputError(f"{final} exists already (one backup per second)")
        return _backup(sources, dest, name, include_key, version)


@contextlib.contextmanager
def _writing_backups(dest: Path, table_id: str) -> Iterator[None]:
    """One backup at a time in ``dest`` (a lock on the folder itself); under it every
    ``.<table>-<time>.partial`` left there is a backup whose writer died (killed mid-copy): removed."""
    fd = os.open(dest, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InputError(f"{dest}: another backup is being written there") from None
        for stale in dest.glob(f".{glob.escape(table_id)}-*.partial"):
            if NAME.match(stale.name[1:-len(".partial")]):
                shutil.rmtree(stale, ignore_errors=True)
        yield
    finally:
        os.close(fd)


def _backup(sources: Sources, dest: Path, name: str, include_key: bool, version: str) -> dict:
    final = dest / name
    problem: Exception | None = None
    for _ in range(ATTEMPTS):
        partial = dest / f".{name}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        try:
            partial.mkdir(mode=0o750)
            manifest = _write(sources, partial, include_key, version, name)
            _check(sources, partial, manifest)
        except (IntegrityError, sqlite3.DatabaseError, OSError) as err:
            shutil.rmtree(partial, ignore_errors=True)
            problem = err
            if isinstance(err, OSError | sqlite3.DatabaseError):
                break                   # the disk or the database: trying again would not help
            continue
        partial.rename(final)
        _fsync_dir(dest)
        return {**manifest, "path": str(final)}
    full = _destination_problem(sources, dest, problem)
    if full:                            # a destination that cannot be written: a usage error (docs/cli.md)
        raise InputError(f"{final}: the backup was not written: {full}")
    raise BackupError(f"{final}: the backup was not written: {problem}")


def _destination_problem(sources: Sources, dest: Path, problem: Exception | None) -> str | None:
    """Why ``dest`` could not take the backup, in words, when that is what went wrong: it is read-only,
    not ours to write, or too full (SQLite says only "disk I/O error" for a full disk)."""
    if isinstance(problem, OSError) and problem.filename and Path(problem.filename).is_relative_to(dest):
        return f"{dest}: {problem.strerror or problem}"
    if isinstance(problem, sqlite3.DatabaseError | OSError):
        needed = sum(p.stat().st_size for p in (sources.journal, sources.pins, *sources.audit_dir.glob("*"))
                     if p.is_file())
        free = shutil.disk_usage(dest).free
        if free < needed:
            return (f"{dest} is too full: the backup needs about {needed // 1024 + 1} KiB, it has "
                    f"{free // 1024} KiB free")
    return None


def prune(dest: Path, table_id: str, keep: int) -> list[Path]:
    """Remove all but the newest ``keep`` checked backups of this table in ``dest``; the removed."""
    mine = sorted(p for p in dest.iterdir() if p.is_dir() and (m := NAME.match(p.name))
                  and m["table"] == table_id and (p / MANIFEST).exists())
    removed = mine[:-keep] if keep > 0 else []
    for path in removed:
        shutil.rmtree(path)
    return removed


def _write(sources: Sources, folder: Path, include_key: bool, version: str, name: str) -> dict:
    journal = folder / JOURNAL
    source = sqlite3.connect(f"{sources.journal.resolve().as_uri()}?mode=ro", uri=True)
    target = sqlite3.connect(journal)
    try:
        source.backup(target)           # pages=-1: every page in one step, under one read snapshot
        target.execute("PRAGMA journal_mode=DELETE")
    finally:
        source.close()
        target.close()
    head = _journal_head(journal)
    if sources.pins.exists():
        with open(sources.pins.with_suffix(".lock"), "a") as lock:      # as controller/store/pins.py does
            fcntl.flock(lock, fcntl.LOCK_SH)
            shutil.copyfile(sources.pins, folder / PINS)
        os.chmod(folder / PINS, 0o600)          # as the table keeps it: salted hashes, still not for everyone
    _copy_audit(sources.audit_dir, folder / AUDIT, head)
    if include_key:
        fd = os.open(folder / KEY, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(sources.key_file.read_bytes())
    files = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        files[path.relative_to(folder).as_posix()] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
        _fsync(path)
    rounds = _count(journal, "SELECT COUNT(*) FROM rounds")
    manifest = {"backup": name, "table": sources.table_id, "taken_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "program_version": version, "journal_last_fact": head, "rounds": rounds,
                "key_included": include_key, "key_fingerprint": key_fingerprint(sources.key), "files": files}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    _fsync(folder / MANIFEST)
    _fsync_dir(folder / AUDIT)
    _fsync_dir(folder)
    return manifest


def _copy_audit(source: Path, target: Path, head: int) -> None:
    """The trail's files oldest first, whole lines only, up to (not including) the first anchor of
    a commit after fact ``head``: those lines are the next backup's."""
    target.mkdir()
    for path in files_in_order(source) if source.is_dir() else []:
        data = path.read_bytes()
        if path.suffix == ".gz":
            (target / path.name).write_bytes(data)
            continue
        kept = data[:data.rfind(b"\n") + 1]               # a line still being written is not taken
        offset = 0
        for line in kept.splitlines(keepends=True):
            if ANCHOR.encode() in line and _anchor_after(line, head):
                (target / path.name).write_bytes(kept[:offset])
                return
            offset += len(line)
        (target / path.name).write_bytes(kept)


def _anchor_after(text: bytes, head: int) -> bool:
    try:
        entry = json.loads(text)
    except ValueError:
        return False
    return isinstance(entry, dict) and entry.get("event") == ANCHOR and int(entry.get("chain", 0)) > head


def _check(sources: Sources, folder: Path, manifest: dict) -> None:
    for name, expected in manifest["files"].items():
        if hashlib.sha256((folder / name).read_bytes()).hexdigest() != expected["sha256"]:
            raise BackupError(f"{folder / name}: differs from what was written")
    copy = sqlite3.connect(f"{(folder / JOURNAL).resolve().as_uri()}?mode=ro", uri=True)
    try:
        problem = copy.execute("PRAGMA integrity_check(1)").fetchone()[0]
    finally:
        copy.close()
    if problem != "ok":
        raise BackupError(f"{folder / JOURNAL}: the copy is damaged: {problem}")
    journal = Journal.read_only(folder / JOURNAL, key_file=_key_path(sources, folder))
    with contextlib.closing(journal):
        verify_journal(journal)
        check_trail(journal, folder / AUDIT)
    if (folder / PINS).exists():
        try:
            json.loads((folder / PINS).read_text(encoding="utf-8"))["holders"]
        except (ValueError, KeyError, TypeError) as err:
            raise BackupError(f"{folder / PINS}: not a PIN file: {err}") from None


def _key_path(sources: Sources, folder: Path) -> Path:
    """The key the copy is checked with: the copied one (so the copy is proved to carry the right
    key), else the table's own."""
    return folder / KEY if (folder / KEY).exists() else sources.key_file


def _journal_head(path: Path) -> int:
    return _count(path, "SELECT MAX(c) FROM (SELECT COALESCE(MAX(chain), 0) AS c FROM records "
                        "UNION ALL SELECT COALESCE(MAX(chain), 0) FROM table_events)")


def _count(path: Path, sql: str) -> int:
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return int(db.execute(sql).fetchone()[0] or 0)
    finally:
        db.close()


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    _fsync(path)
