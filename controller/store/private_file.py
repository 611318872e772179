"""Writing a small file only the table's user reads (the PIN file, the feed readers' file) so that a
crash leaves the old or the new one, never a half: a temporary beside it, fsynced, then renamed over
it. One definition for the stores that keep such files and for the command line that puts one back."""

from __future__ import annotations

import os
from pathlib import Path


def replace_private(path: Path, data: bytes, temporary: Path) -> None:
    """``path`` now holds ``data`` (mode 0600), written through ``temporary``."""
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)
