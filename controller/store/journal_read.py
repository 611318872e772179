"""Opening the journal to read it only: ``recall``, ``meters``, ``verify``, the page's recall.

Owns how a journal is opened without changing anything: SQLite ``mode=ro``, nothing created,
upgraded or written, no key made. A journal in WAL mode needs its ``-shm`` file, which a
reader makes when it is missing; in a folder it cannot write (an inspector's copy on
read-only media) that fails with "unable to open database file". Such a journal is read
instead as ``immutable=1`` when it has no write-ahead log beside it (a table stopped
cleanly leaves none: everything is in the main file), or, when it has one, from a copy of
the file and its log made in a temporary folder (the log holds committed facts: immutable
mode would ignore them). Either way what is read is exactly what the folder holds.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from controller.errors import JournalError
from controller.store.chain import GENESIS, load_key
from controller.store.journal_schema import DOWNGRADED, SCHEMA_VERSION, UNKEYED

if TYPE_CHECKING:
    from controller.store.journal import Journal


def open_read_only(self: Journal, path: Path, key_file: Path | None, keyed: bool) -> Journal:
    self.path = path
    self._depth = 0                         # no transaction of its own: it writes none
    try:
        self.db = _connect(path)
        version = self.meta("schema_version")
        if keyed:
            if version == "1":
                try:
                    load_key(self.path.parent, key_file, create=False)
                except ValueError:          # no key yet: a journal of the previous release
                    raise JournalError(f"{self.path}: {UNKEYED}") from None
                raise JournalError(f"{self.path}: {DOWNGRADED}")
            if version != str(SCHEMA_VERSION):
                raise JournalError(f"{self.path}: journal schema version {version}, this controller "
                                   f"reads version {SCHEMA_VERSION}")
            self.key, _ = load_key(self.path.parent, key_file, create=False)
        row = self.db.execute("SELECT seq, digest FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        self.head = (row[0], row[1]) if row else (0, GENESIS)
        self._next_chain, self._last_digest = 1, GENESIS
        if version == str(SCHEMA_VERSION):
            self._read_chain_head()
    except (sqlite3.DatabaseError, OSError, ValueError) as err:
        raise JournalError(f"{self.path}: cannot open the journal: {err}") from None
    return self


def _connect(path: Path) -> sqlite3.Connection:
    uri = path.resolve().as_uri()
    try:
        return _checked(sqlite3.connect(f"{uri}?mode=ro", uri=True, check_same_thread=False))
    except sqlite3.OperationalError:
        if not path.is_file():
            raise
    # the file is there but cannot be opened so: a folder where its ``-shm`` cannot be made
    wal = path.with_name(path.name + "-wal")
    if wal.is_file() and wal.stat().st_size > 0:
        return _from_a_copy(path, wal)
    return _checked(sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, check_same_thread=False))


def _from_a_copy(path: Path, wal: Path) -> sqlite3.Connection:
    """The file and its write-ahead log copied where a reader can make the ``-shm`` (removed once
    opened: on Linux the connection keeps the open files)."""
    folder = Path(tempfile.mkdtemp(prefix="journal-read-"))
    try:
        shutil.copyfile(path, folder / path.name)
        shutil.copyfile(wal, folder / wal.name)
        db = _checked(sqlite3.connect(f"{(folder / path.name).as_uri()}?mode=ro", uri=True,
                                      check_same_thread=False))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return db


def _checked(db: sqlite3.Connection) -> sqlite3.Connection:
    db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()     # opening is lazy: fail here, in words
    return db
