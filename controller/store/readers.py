"""Who may read the table's live feed of facts: the surveillance room's and casino systems' tokens.

Owns ``DATA_DIR/feed-readers.json`` (mode 0600): each reader's name, when it was added, and the
SHA-256 of its token. A token is 32 random bytes (256 bits, shown once, when it is made), so a hash
without salt or stretching is enough to keep the file from being a list of credentials, and a
wrong token can be refused at once: nobody guesses 2**256. A reader can read the feed and do
nothing else (docs/feed.md). PINs, their roles and their lockout are another file
(controller/store/pins.py): a feed client with a stale token must never lock out a supervisor.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from datetime import UTC, datetime
from pathlib import Path

from controller.errors import InputError
from controller.store.private_file import replace_private

READERS_FILE = "feed-readers.json"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._-]{0,39}")
MOST_READERS = 64


class ReaderError(InputError):
    """A reader's name or the readers' file refused, with words; nothing changed."""


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class FeedReaders:
    def __init__(self, path: str | Path):
        self.path = Path(path)

    def _read(self) -> dict[str, dict[str, str]]:
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as err:
            raise ReaderError(f"{self.path}: cannot read the feed's readers: {err}") from None
        readers = doc.get("readers") if isinstance(doc, dict) else None
        if not isinstance(readers, dict) or not all(
                isinstance(v, dict) and isinstance(v.get("token_sha256"), str) for v in readers.values()):
            raise ReaderError(f"{self.path}: not a readers file (a 'readers' object of name -> token_sha256)")
        return readers

    def _write(self, readers: dict[str, dict[str, str]]) -> None:
        replace_private(self.path, json.dumps({"readers": readers}, indent=1, sort_keys=True).encode("utf-8"),
                        self.path.with_name(f".{self.path.name}.new"))

    def names(self) -> list[tuple[str, str]]:
        """Each reader's name and when it was added (UTC, ISO 8601)."""
        return sorted((name, entry.get("added", "")) for name, entry in self._read().items())

    def add(self, name: str) -> str:
        """A new token for ``name`` (replacing any it had); the token itself is kept nowhere."""
        if not NAME.fullmatch(name):
            raise ReaderError(f"reader name {name!r}: 1-40 letters, digits, spaces, '.', '_' or '-', "
                              "starting with a letter or digit")
        readers = self._read()
        if name not in readers and len(readers) >= MOST_READERS:
            raise ReaderError(f"already {MOST_READERS} readers, the most a table keeps: remove one first")
        token = secrets.token_urlsafe(32)
        readers[name] = {"token_sha256": _digest(token), "added": datetime.now(UTC).isoformat(timespec="seconds")}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._write(readers)
        return token

    def remove(self, name: str) -> bool:
        readers = self._read()
        if readers.pop(name, None) is None:
            return False
        self._write(readers)
        return True

    def who(self, token: str) -> str | None:
        """The reader holding ``token``, or None (compared in constant time against every reader)."""
        if not token or len(token) > 256:
            return None
        try:
            readers = self._read()
        except ReaderError:
            return None                             # a damaged file lets nobody in
        given = _digest(token)
        found = None
        for name, entry in readers.items():
            if hmac.compare_digest(entry["token_sha256"], given):
                found = name
        return found
