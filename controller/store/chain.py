"""The journal's keyed chain: every stored fact in one HMAC chain that only the table can extend.

Owns the key and the digest. Every round record and every table event
(jackpot postings, meter resets, PIN changes, alerts, device events) takes the
next number of one chain (``chain``) and a digest: HMAC-SHA256, under the
table's key, of the previous fact's digest, its own chain number, which SQLite
table stores it (``records`` or ``table_events``: ``stored_in``), its round,
its time, its kind and its exact JSON text. Editing, removing, inserting or
reordering any fact breaks the chain at that point, and without
the key nobody can compute a chain that verifies again.

The key: 32 random bytes, read from systemd's credential when the unit passes one
(``LoadCredential=journal-key:FILE``, i.e. ``$CREDENTIALS_DIRECTORY/journal-key``),
else from the configuration's ``data.key_file``, else ``journal.key`` beside the
journal (what ``deploy/install.sh`` makes, mode 0600, owned by the service; a
new journal makes it on first use). The key is what a person who can edit the
database file must not have: where the key lives beside the journal under the
same owner, the chain guards against editors of the file who are not that user
(or root); keeping it elsewhere (the credential) is stronger.

Journals written before the chain was keyed (schema 1) keep their records'
plain SHA-256 chain; the keyed chain continues from their last digest.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

CREDENTIAL = "journal-key"
KEY_FILE = "journal.key"
KEY_BYTES = 32
GENESIS = "0" * 64


def key_path(folder: Path, key_file: Path | None = None) -> Path:
    """Where the table's key is read from: systemd's credential, else ``key_file``, else beside the journal."""
    credentials = os.environ.get("CREDENTIALS_DIRECTORY")
    if credentials and (Path(credentials) / CREDENTIAL).exists():
        return Path(credentials) / CREDENTIAL
    return key_file or folder / KEY_FILE


def load_key(folder: Path, key_file: Path | None = None, *, create: bool) -> tuple[bytes, bool]:
    """The table's chain key: the systemd credential when there is one, else ``key_file`` (the
    configuration's ``data.key_file``), else ``folder/journal.key``. Made (32 random bytes, mode
    0600) only for a new journal (``create``): an existing journal without its key could neither
    be verified nor extended, and a new key would only hide that."""
    path = key_path(folder, key_file)
    if not path.exists():
        if not create:
            raise ValueError(f"the journal's key {path} is missing: its records cannot be verified "
                             "or extended (install the key the table was set up with)")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(secrets.token_bytes(KEY_BYTES))
        made = True
    else:
        made = False
    key = path.read_bytes()
    if len(key) < 16:
        raise ValueError(f"{path}: the journal key is {len(key)} bytes; at least 16 are needed")
    return key, made


def boundary_mac(key: bytes, boundary: str) -> str:
    """The MAC of where a journal's unkeyed (schema 1) part ends: its records, their last digest and
    its table events, counted when the keyed chain began."""
    return hmac.new(key, f"boundary|{boundary}".encode(), hashlib.sha256).hexdigest()


def keyed_digest(key: bytes, previous: str, chain: int, stored_in: str, round_id: int | None, at: str, kind: str,
                 data_text: str) -> str:
    """``stored_in``: the SQLite table the fact is a row of, ``records`` or ``table_events``."""
    message = f"{previous}|{chain}|{stored_in}|{round_id if round_id is not None else '-'}|{at}|{kind}|{data_text}"
    return hmac.digest(key, message.encode(), "sha256").hex()   # one C call: the start-up walks them all


def plain_digest(previous: str, round_id: int, kind: str, data_text: str) -> str:
    """The schema-1 record chain (unkeyed), still verified for journals that have it."""
    return hashlib.sha256(f"{previous}|{round_id}|{kind}|{data_text}".encode()).hexdigest()
