"""The audit trail: every structlog entry as a JSON line chained to the line before it.

Owns the trail's files and their integrity. Each line is one JSON object
(the log entry) with ``prev``: the SHA-256 of the previous line's text, so
changing, removing or reordering any line breaks the chain at that point.
The current file is ``audit.jsonl``; past the size limit it is renamed
``audit.jsonl.1`` (older ones shift to ``.2``, ``.3`` ...; none is deleted:
archiving them is the operator's decision) and the chain continues into the
new file. ``verify`` walks all files oldest first and names the first bad line.

A power cut can leave a final line half written. At start such a tail is set
aside in ``audit.jsonl.torn-N`` and an entry saying so starts the chain again
from the last whole line: nothing is dropped silently.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

from controller.errors import IntegrityError

GENESIS = "0" * 64
CURRENT = "audit.jsonl"


class AuditError(IntegrityError, RuntimeError):
    """An audit trail that does not verify; the message names the file and line."""


def line_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def files_in_order(directory: Path) -> list[Path]:
    """Oldest first: audit.jsonl.N ... audit.jsonl.1, audit.jsonl."""
    rotated = sorted((p for p in directory.glob(f"{CURRENT}.*") if re.fullmatch(r"\d+", p.suffix[1:])),
                     key=lambda p: -int(p.suffix[1:]))
    current = directory / CURRENT
    return rotated + ([current] if current.exists() else [])


def verify(directory: str | Path) -> tuple[int, int]:
    """(lines, files) when the whole trail chains from its first line; raises AuditError otherwise."""
    previous, lines = GENESIS, 0
    files = files_in_order(Path(directory))
    for path in files:
        previous, count = _verify_file(path, previous)
        lines += count
    return lines, len(files)


def _verify_file(path: Path, previous: str | None) -> tuple[str, int]:
    count = 0
    with open(path, encoding="utf-8", newline="\n") as f:
        for number, raw in enumerate(f, 1):
            if not raw.endswith("\n"):
                raise AuditError(f"{path}, line {number}: incomplete last line (a torn write)")
            text = raw[:-1]
            try:
                entry = json.loads(text)
            except json.JSONDecodeError:
                raise AuditError(f"{path}, line {number}: not a JSON entry (altered)") from None
            if previous is not None and entry.get("prev") != previous:
                before = f"line {number - 1}" if number > 1 else "the last line of the file before"
                raise AuditError(f"{path}, line {number}: does not follow {before} (that line was "
                                 "altered, or lines were removed or reordered here)")
            previous = line_hash(text)
            count += 1
    return previous or GENESIS, count


class AuditTrail:
    """A structlog processor: writes the entry to the trail, passes it on unchanged."""

    def __init__(self, directory: str | Path, max_bytes: int = 10_000_000):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self.path = self.directory / CURRENT
        torn = self._set_aside_torn_tail()
        self.last = self._last_hash()
        self._file = open(self.path, "a", encoding="utf-8", newline="\n")
        if torn:
            self.write({"event": "audit.torn_tail_set_aside", "file": str(torn), "level": "warning"})

    def check(self) -> int:
        """The current file chains (from its own first line): the start-up check."""
        if not self.path.exists():
            return 0
        return _verify_file(self.path, None)[1]

    def __call__(self, logger: Any, method_name: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
        self.write(event_dict)
        return event_dict

    def write(self, entry: Mapping[str, Any]) -> None:
        with self._lock:
            text = json.dumps({**entry, "prev": self.last}, default=str, separators=(",", ":"))
            if self._file.tell() + len(text) + 1 > self.max_bytes and self._file.tell() > 0:
                self._rotate()
                text = json.dumps({**entry, "prev": self.last}, default=str, separators=(",", ":"))
            self._file.write(text + "\n")
            self._file.flush()
            self.last = line_hash(text)

    def head(self) -> str:
        """The hash of the last line written, made durable first: the journal keeps it with each
        commit, so after a power cut the trail still holds every line a commit vouched for."""
        with self._lock:
            self._file.flush()
            descriptor, last = os.dup(self._file.fileno()), self.last
        try:                            # the disk's time is not spent holding the loggers' lock
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        return last

    def close(self) -> None:
        with self._lock:
            self._file.close()

    def _rotate(self) -> None:
        self._file.close()
        for path in files_in_order(self.directory)[:-1]:           # the oldest (highest number) first
            n = int(path.suffix[1:])
            path.rename(self.directory / f"{CURRENT}.{n + 1}")
        self.path.rename(self.directory / f"{CURRENT}.1")
        self._file = open(self.path, "a", encoding="utf-8", newline="\n")

    def _last_hash(self) -> str:
        for path in reversed(files_in_order(self.directory)):
            last = _last_line(path)
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


def _last_line(path: Path) -> str | None:
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        if size == 0:
            return None
        block = min(size, 65536)
        while True:
            f.seek(size - block)
            data = f.read(block)
            lines = data.rstrip(b"\n").split(b"\n")
            if len(lines) > 1 or block == size:
                return lines[-1].decode("utf-8")
            block = min(size, block * 4)
