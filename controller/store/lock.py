"""One controller per data folder: an exclusive lock held for as long as the controller runs.

Owns ``DATA_DIR/controller.lock``: ``flock``ed exclusively by the running
controller, holding its PID. Two controllers on one journal would both write
it and break its chain (and the audit trail's); the second refuses to start
and names the PID that holds the folder. The kernel releases the lock when the
process dies, even by SIGKILL, so a crash never leaves the folder locked.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from controller.errors import InputError

LOCK_FILE = "controller.lock"


class FolderInUse(InputError):
    """Another controller runs on this data folder."""


class DataFolderLock:
    def __init__(self, folder: Path):
        self.path = folder / LOCK_FILE
        try:
            folder.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o640)
        except OSError as err:
            raise InputError(f"{folder}: the data folder cannot be used: {err.strerror or err}") from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self._fd, 32, 0).decode(errors="replace").strip() or "unknown"
            os.close(self._fd)
            raise FolderInUse(f"{folder} is in use by another controller (PID {holder}); stop it first "
                              "(two controllers on one journal would corrupt it)") from None
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, f"{os.getpid()}\n".encode(), 0)

    def release(self) -> None:
        if self._fd >= 0:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1
