"""The audit trail: every structlog entry as a JSON line chained to the line before it.

Owns the trail's files, their rotation, compression and retention, and their integrity.
Each line is one JSON object (the log entry) with ``prev``: the SHA-256 of the previous
line's text, so changing, removing or reordering any line breaks the chain at that point.
``prev`` is written as the hash's first 128 bits (``PREV_DIGITS`` hex digits: a tenth of an
anchor line's bytes saved, and the audit's bytes per round are a target); a trail written
with the whole hash still verifies (a link compares the digits it has, never fewer than 32).
The current file is ``audit.jsonl``; past the size limit it is renamed ``audit.jsonl.1``
(older ones shift to ``.2``, ``.3`` ...), compressed to ``audit.jsonl.1.gz`` (written
whole and made durable before the plain file goes), and the chain continues into the new
file. ``verify`` walks all files oldest first, compressed or not, and names the first bad line.

Retention (``Retention``, the configuration's ``log.audit_keep_files`` and
``log.audit_keep_days``; by default every file is kept: removing the regulator's records
is the casino's decision) removes the oldest rotated files beyond the count or older than
the age, and then writes an ``audit.retention`` entry naming the files removed and the
hash the oldest kept file continues from. ``verify`` accepts a trail whose first line does
not start the chain only when such an entry, on the chain, accounts for it: a trail whose
beginning was deleted by hand is still refused.

A power cut can leave a final line half written. At start such a tail is set
aside in ``audit.jsonl.torn-N`` and an entry saying so starts the chain again
from the last whole line: nothing is dropped silently.

A line the disk will not take (a full disk) is never left half written: the file is cut back to
its last whole line, the failure is kept (``failure``; the next journal commit is refused,
controller/store/audit_sync.py, and the engine halts on it) and, written as a logger's processor,
the entry still goes on to the console: a log call never raises because the trail's disk is full.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.errors import IntegrityError
from controller.store.audit_files import (
    CURRENT,
    compress,
    files_in_order,
    fsync_dir,
    gzip_into,
    last_compressed_line,
    last_line,
    open_lines,
    rotation_number,
)
from controller.store.audit_sync import DurableHead

__all__ = ["CURRENT", "GENESIS", "AuditError", "AuditTrail", "AuditWriteError", "Retention", "files_in_order",
           "line_hash", "links", "open_lines", "verify"]

GENESIS = "0" * 64
PREV_DIGITS = 32                        # of the previous line's SHA-256 kept in ``prev``
RETENTION = "audit.retention"


@dataclass(frozen=True)
class Retention:
    """How much of the trail is kept and how: 0 keeps every rotated file (by count, by age)."""
    max_bytes: int = 10_000_000         # the current file is rotated past this size
    keep_files: int = 0                 # rotated files kept, the newest; 0: all
    keep_days: float = 0                # rotated files last written longer ago are removed; 0: never


class AuditError(IntegrityError, RuntimeError):
    """An audit trail that does not verify; the message names the file and line."""


class AuditWriteError(OSError):
    """A line the trail's disk did not take (nothing of it stays in the file)."""


# a line's JSON (json.dumps with these options builds a new encoder per call)
LINE_JSON = json.JSONEncoder(default=str, separators=(",", ":")).encode


def line_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def links(recorded: object, full: str) -> bool:
    """``recorded`` (a ``prev`` or ``continues_from`` as written) names the line whose hash is
    ``full``: the same digits, at least ``PREV_DIGITS`` of them."""
    if not isinstance(recorded, str):
        return False
    n = min(len(recorded), len(full))
    return n >= PREV_DIGITS and recorded[:n] == full[:n]


def verify(directory: str | Path) -> tuple[int, int]:
    """(lines, files) when the whole trail chains from its first line, or from where an
    ``audit.retention`` entry on the chain says the kept files continue; raises AuditError otherwise."""
    lines, continues = 0, set[str]()
    files = files_in_order(Path(directory))
    previous: str | None = GENESIS
    start = _first_prev(files[0]) if files else None
    if start is not None and not links(start, GENESIS):
        previous = start
    for path in files:
        previous, count = _verify_file(path, previous, continues)
        lines += count
    if start is not None and not links(start, GENESIS) and not any(links(start, c) for c in continues):
        raise AuditError(f"{files[0]}, line 1: the trail does not begin here and no {RETENTION} entry accounts "
                         "for the files before it (files were removed outside the retention policy)")
    return lines, len(files)


def _first_prev(path: Path) -> str | None:
    with open_lines(path) as f:
        first = f.readline()
    try:
        return str(json.loads(first).get("prev")) if first.endswith("\n") else None
    except (json.JSONDecodeError, AttributeError):
        return None


def _verify_file(path: Path, previous: str | None, continues: set[str] | None = None) -> tuple[str, int]:
    count = 0
    with open_lines(path) as f:
        for number, raw in enumerate(f, 1):
            if not raw.endswith("\n"):
                raise AuditError(f"{path}, line {number}: incomplete last line (a torn write)")
            text = raw[:-1]
            try:
                entry = json.loads(text)
            except json.JSONDecodeError:
                raise AuditError(f"{path}, line {number}: not a JSON entry (altered)") from None
            if previous is not None and not links(entry.get("prev"), previous):
                before = f"line {number - 1}" if number > 1 else "the last line of the file before"
                raise AuditError(f"{path}, line {number}: does not follow {before} (that line was "
                                 "altered, or lines were removed or reordered here)")
            if continues is not None and entry.get("event") == RETENTION and "continues_from" in entry:
                continues.add(str(entry["continues_from"]))
            previous = line_hash(text)
            count += 1
    return previous or GENESIS, count


class AuditTrail:
    """A structlog processor: writes the entry to the trail, passes it on unchanged."""

    def __init__(self, directory: str | Path, max_bytes: int | None = None, *, retention: Retention | None = None,
                 clock=time.time, background_sync: bool = True, fsync: bool = True):
        """``background_sync`` and ``fsync``: controller/store/audit_sync.py (a table's are the defaults;
        only a simulation turns the fsync off, as it runs its journal ``synchronous=OFF``)."""
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.retention = retention or Retention()
        self.max_bytes = max_bytes or self.retention.max_bytes
        self.clock = clock
        self._lock = threading.Lock()
        self._files = threading.Lock()          # renames and removals of the rotated files
        self._workers: list[threading.Thread] = []
        self.path = self.directory / CURRENT
        self._finish_compression()
        torn = self._set_aside_torn_tail()
        self.last = self._last_hash()
        self.opened_last = self.last            # the trail as found, before this writer adds a line
        self.failure: OSError | None = None     # the first line the disk did not take
        self._fd: int | None = None
        self._size = 0
        self._open_current()
        self._durable = DurableHead(self._flush_and_dup, background=background_sync, fsync=fsync)
        if torn:
            self.write({"event": "audit.torn_tail_set_aside", "file": str(torn), "level": "warning"})

    def _open_current(self) -> None:
        # unbuffered: a line is in the file whole or, cut back after a failure, not at all
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._size = os.fstat(self._fd).st_size

    def check(self) -> int:
        """The current file chains (from its own first line): the start-up check."""
        if not self.path.exists():
            return 0
        return _verify_file(self.path, None)[1]

    def __call__(self, logger: Any, method_name: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
        try:
            self.write(event_dict)
        except OSError:                 # kept in ``failure``; the console still gets the entry
            pass
        return event_dict

    def write(self, entry: Mapping[str, Any]) -> None:
        """One line on the chain; raises AuditWriteError (and keeps it) when the disk does not take it."""
        with self._lock:
            try:
                text = LINE_JSON({**entry, "prev": self.last[:PREV_DIGITS]})
                if self._size + len(text) + 1 > self.max_bytes and self._size > 0:
                    self._rotate()
                    text = LINE_JSON({**entry, "prev": self.last[:PREV_DIGITS]})
                self._append(text)
            except OSError as err:
                raise self._failed(err) from None

    def _failed(self, err: OSError) -> AuditWriteError:
        """Kept, and told to the durable head: the next journal commit is refused (the table halts)."""
        failed = err if isinstance(err, AuditWriteError) else AuditWriteError(
            err.errno, err.strerror or str(err))
        if self.failure is None:
            self.failure = failed
        self._durable.fail(failed)
        return failed

    def _append(self, text: str) -> None:
        if self._fd is None:
            raise AuditWriteError(f"the audit trail's file {self.path} is not open")
        data = (text + "\n").encode("utf-8")
        try:
            self._write_all(self._fd, data)
        except OSError as err:
            try:                        # cutting a file back needs no free space
                os.ftruncate(self._fd, self._size)
            except OSError:
                pass
            raise AuditWriteError(err.errno, err.strerror or str(err)) from None
        self._size += len(data)
        self.last = line_hash(text)
        self._durable.written()

    @staticmethod
    def _write_all(fd: int, data: bytes) -> None:
        view = memoryview(data)
        while view:                     # a write the disk takes only in part raises on the rest
            view = view[os.write(fd, view):]

    def head(self) -> str:
        """The hash of the last line on the disk (controller/store/audit_sync.py): the journal keeps
        it with each commit, so after a power cut the trail still holds the line a commit vouched for."""
        return self._durable.head()

    def _flush_and_dup(self) -> tuple[int, str]:
        with self._lock:                # the disk's time is not spent holding the loggers' lock
            if self._fd is None:
                raise OSError(f"the audit trail's file {self.path} is not open")
            return os.dup(self._fd), self.last

    def close(self) -> None:
        for worker in self._workers:            # a compression under way is finished first
            worker.join()
        self._durable.close()
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def _rotate(self) -> None:
        """Shift the rotated files and start a new current file (under the loggers' lock: no line
        can be written between the rename and the chain's next line); compressing the file just
        closed and applying the retention policy happen on a thread of their own, so the engine's
        logging never waits for gzip (a tenth of a second or more for 10 MB)."""
        assert self._fd is not None
        os.fsync(self._fd)
        os.close(self._fd)
        self._fd = None                 # a failure from here on leaves no file open to write
        with self._files:
            for path in files_in_order(self.directory)[:-1]:           # the oldest (highest number) first
                n = rotation_number(path) or 0
                path.rename(self.directory / path.name.replace(f"{CURRENT}.{n}", f"{CURRENT}.{n + 1}", 1))
            rotated = self.directory / f"{CURRENT}.1"
            self.path.rename(rotated)
            fsync_dir(self.directory)
        self._open_current()
        worker = threading.Thread(target=self._compress_and_retain, args=(rotated.stat().st_ino,),
                                  name="audit-compress", daemon=True)
        self._workers = [w for w in self._workers if w.is_alive()] + [worker]
        worker.start()

    def _compress_and_retain(self, inode: int) -> None:
        """Compress the rotated file with this inode (a later rotation may have shifted its name
        meanwhile), then apply the retention policy and say on the chain what it removed. A disk
        too full to take the compressed copy loses nothing: the plain file stays, and the next
        start compresses it; a line the retention could not write is a failure of the trail."""
        try:
            self._compress_and_retain_now(inode)
        except AuditWriteError as err:
            self._failed(err)
        except OSError:
            pass

    def _compress_and_retain_now(self, inode: int) -> None:
        with self._files:
            source = next((p for p in files_in_order(self.directory)[:-1]
                           if p.suffix != ".gz" and p.stat().st_ino == inode), None)
            if source is None:
                return
            # opened under the lock: a later rotation may give its name to another file
            plain = open(source, "rb")
        tmp = self.directory / f"{CURRENT}.compressing-{inode}.tmp"
        with plain:
            gzip_into(plain, tmp)
        with self._files:
            source = next((p for p in files_in_order(self.directory)[:-1]
                           if p.suffix != ".gz" and p.stat().st_ino == inode), None)
            if source is None:                  # removed by the retention policy meanwhile
                tmp.unlink()
                return
            tmp.rename(source.with_name(source.name + ".gz"))
            fsync_dir(self.directory)
            source.unlink()                     # the compressed file is durable: the plain one goes
        with self._lock, self._files:
            removed, continues_from = self._apply_retention()
            if removed and self._fd is not None:
                self._append(json.dumps({"event": RETENTION, "level": "info", "removed": removed,
                                         "continues_from": continues_from, "keep_files": self.retention.keep_files,
                                         "keep_days": self.retention.keep_days, "prev": self.last[:PREV_DIGITS]},
                                        separators=(",", ":")))

    def _finish_compression(self) -> None:
        """A rotation cut short by a crash: a rotated file left plain is compressed now; one whose
        compressed copy was already made durable goes (both would be read as two files)."""
        for tmp in self.directory.glob(f"{CURRENT}.compressing-*.tmp"):
            tmp.unlink()
        for path in files_in_order(self.directory)[:-1]:
            if path.suffix != ".gz":
                if path.with_name(path.name + ".gz").exists():
                    path.unlink()
                else:
                    compress(path)

    def _apply_retention(self) -> tuple[list[str], str | None]:
        """Remove the oldest rotated files past the count or the age; their names and the hash the
        oldest kept file continues from."""
        keep, days = self.retention.keep_files, self.retention.keep_days
        rotated = files_in_order(self.directory)[:-1]               # oldest first
        doomed = set(rotated[:-keep] if keep and len(rotated) > keep else [])
        if days:
            cutoff = self.clock() - days * 86400
            doomed |= {p for p in rotated if p.stat().st_mtime < cutoff}
        kept = [p for p in rotated if p not in doomed]
        oldest_removed = [p for p in rotated if p in doomed]
        if not oldest_removed:
            return [], None
        continues_from = _first_prev(kept[0] if kept else self.path) or self.last
        for path in oldest_removed:
            path.unlink()
        fsync_dir(self.directory)
        return [p.name for p in oldest_removed], continues_from

    def _last_hash(self) -> str:
        for path in reversed(files_in_order(self.directory)):
            last = last_line(path) if path.suffix != ".gz" else last_compressed_line(path)
            if last is not None:
                return line_hash(last)
        return GENESIS

    def _set_aside_torn_tail(self) -> Path | None:
        if not self.path.exists() or self.path.stat().st_size == 0:
            return None
        with open(self.path, "rb") as f:
            data = f.read()
        if data.endswith(b"\n"):
            return None
        cut = data.rfind(b"\n") + 1
        n = 1
        while (self.directory / f"{CURRENT}.torn-{n}").exists():
            n += 1
        torn = self.directory / f"{CURRENT}.torn-{n}"
        torn.write_bytes(data[cut:])
        with open(self.path, "r+b") as f:
            f.truncate(cut)
            os.fsync(f.fileno())
        return torn
