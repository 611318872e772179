"""The audit trail's durable head: the trail made durable off the engine's path.

Owns the thread that fsyncs the trail a moment (``SYNC_AFTER``) after lines were
written, one fsync for every line written meanwhile, and the hash of the last
line known to be on the disk. The journal keeps that hash with each commit
(meta ``audit_head``, controller/store/anchors.py): a line a power cut cannot
take away, so the start-up check finds it after one. Before, each commit
fsynced the trail itself: a second disk wait on every engine event, about as
long as the journal's own commit.

What a power cut can now take is the trail's last moment of lines (the
anchors of the events of the last ``SYNC_AFTER`` seconds). Their facts are in
the journal, which commits durably before anything is done; a trail that ends
before the journal is one a power cut cut short, which the start-up check
allows, while a journal that ends before the trail's last anchor is refused.
A disk that fails the fsync or a line's write (or any failure of the sync,
or its thread gone) is remembered and raised at the next commit, which halts the table as
any journal write failure does: the journal never keeps a stale head.

A deterministic simulation (simulators/sim) has no threads: with ``background=False`` the
lines written since are synced when a commit asks for the head, on the caller's thread. It also
runs its journal without fsync (a simulated crash drops the process, never the machine's power), and
with ``fsync=False`` the trail's lines are flushed to the file but not fsynced; a table never
passes it (controller/app/run.py builds its trail with the defaults).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

SYNC_AFTER = 0.02       # seconds a written line waits for its fsync (lines meanwhile share it)


class DurableHead:
    def __init__(self, flush_and_dup: Callable[[], tuple[int, str]], *, background: bool = True,
                 fsync: bool = True):
        """``flush_and_dup()``: flushes the trail's file and returns a duplicate of its descriptor
        (the caller's to close) and the hash of its last line, under the trail's lock."""
        self._flush_and_dup = flush_and_dup
        self._fsync = fsync
        self._unsynced = False          # without the thread: lines written since the last sync
        self._failed: OSError | None = None
        self._due = threading.Event()
        self._closing = False
        self._sync_lock = threading.Lock()
        self.value = ""
        self.sync()                     # what the file holds at the start is on the disk first
        self._thread: threading.Thread | None = None
        if background:
            self._thread = threading.Thread(target=self._run, name="audit-sync", daemon=True)
            self._thread.start()

    def written(self) -> None:
        """A line was written: it is made durable within ``SYNC_AFTER`` (without the thread: before
        the next ``head``). Already due, the thread has not cleared it yet, so its flush (under the
        trail's lock, after this line) takes the line too."""
        if self._thread is None:
            self._unsynced = True
            return
        if not self._due.is_set():
            self._due.set()

    def fail(self, err: OSError) -> None:
        """A line the trail could not write: the trail no longer holds every entry, so no commit may
        vouch for it again (the first failure is the one said)."""
        if self._failed is None:
            self._failed = err

    def head(self) -> str:
        """The hash of the last line known durable; raises the disk's error if an fsync failed."""
        if self._thread is None and self._unsynced:
            self._unsynced = False
            self.sync()
        if self._failed is not None:
            raise self._failed
        if not self._closing and self._thread is not None and not self._thread.is_alive():
            raise OSError("the audit trail's sync thread has stopped")     # never vouch for a trail nobody syncs
        return self.value

    def sync(self) -> None:
        with self._sync_lock:           # the thread's and a closing caller's never interleave
            try:
                descriptor, last = self._flush_and_dup()
                try:
                    if self._fsync:
                        os.fsync(descriptor)
                finally:
                    os.close(descriptor)
            except Exception as err:    # the trail's disk failing (or its file closed under it):
                self._failed = err if isinstance(err, OSError) else OSError(f"audit trail sync: {err}")
                return                  # said at the next commit, which halts the table
            self.value = last

    def close(self) -> None:
        """Stop the thread, then make everything written durable."""
        self._closing = True
        self._due.set()
        if self._thread is not None:
            self._thread.join()
        self.sync()

    def _run(self) -> None:
        # ``_closing`` is looked at after each sync too: a close during the sleep set ``_due``, which
        # the clear below then took away
        while not self._closing:
            self._due.wait()
            if self._closing:
                return
            time.sleep(SYNC_AFTER)
            self._due.clear()           # cleared before the flush: a line written after it waits again
            self.sync()
