"""Writing a small file only the table's user reads (the PIN file, the feed readers' file) so that a
crash leaves the old or the new one, never a half: a temporary beside it, fsynced, then renamed over
it. One definition for the stores that keep such files and for the command line that puts one back."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path


def replace_private(path: Path, data: bytes, temporary: Path) -> None:
    """``path`` now holds ``data`` (mode 0600), written through ``temporary``."""
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)


def put_back_later(path: Path) -> Callable[[], None]:
    """How to put ``path`` back as it is now (absent: removed). Only for a file no other process
    writes meanwhile (the feed readers' file: the playing table only reads it); the PIN file, which the
    table writes, is put back holder by holder under its lock (controller/store/pins.py)."""
    before = path.read_bytes() if path.exists() else None

    def put_back() -> None:
        if before is None:
            path.unlink(missing_ok=True)
        else:
            replace_private(path, before, path.with_name(f".{path.name}.undo"))
    return put_back
