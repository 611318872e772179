"""A soak's evidence kept on disk as it is gathered, so that a campaign outlives its own process.

Owns ``soak-progress.jsonl`` in the soak's work folder: one JSON line per fact the
summary and report are made of (each start of the soak's process, every sample, fault
injected, SIGKILL and restart, stuck moment, controller life's latency figures, hold, and
the process id of each controller started),
appended and flushed when it happens. Two long soaks lost their summaries with their
process (a machine reset, a session's end); with this file ``table-sim soak --resume``
reads what the campaign gathered so far and goes on from there, and the final summary
covers every segment.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

FILE = "soak-progress.jsonl"
LOCK = "soak.lock"              # held by the soak's process for its life: one soak per work folder
KINDS = ("start", "controller", "sample", "fault", "restart", "stuck", "life", "hold")


class ProgressError(Exception):
    """A work folder that cannot hold this soak (said in words, exit status 2)."""


@dataclass
class Gathered:
    """What the progress file holds, kind by kind (each item without its ``kind``)."""
    starts: list[dict[str, Any]] = field(default_factory=list)
    samples: list[dict[str, Any]] = field(default_factory=list)
    injected: list[dict[str, Any]] = field(default_factory=list)
    restarts: list[dict[str, Any]] = field(default_factory=list)
    stuck: list[dict[str, Any]] = field(default_factory=list)
    lives: list[dict[str, Any]] = field(default_factory=list)
    holds: int = 0
    later: list[float] = field(default_factory=list)    # times of the holds and controllers started
    controller_pid: int | None = None   # the last controller the soak started (an orphan if still running)

    @property
    def elapsed(self) -> float:
        """Seconds the campaign had played when its last fact was written (its clock goes on from here)."""
        times = [item.get("t", item.get("at", 0.0)) for group in (self.samples, self.injected, self.restarts,
                                                                   self.stuck, self.starts) for item in group]
        return max([*times, *self.later], default=0.0)


class Progress:
    def __init__(self, work: Path) -> None:
        self.path = work / FILE
        self._lock = threading.Lock()
        self._out: TextIO | None = None
        self._held: int | None = None       # the lock file's descriptor while this process holds it

    def hold(self) -> None:
        """Takes the work folder for this process (an exclusive ``flock``, let go by the kernel when
        the process dies however it dies). A soak whose process still runs cannot be resumed
        beside it: two would write one progress file and kill each other's controllers."""
        fd = os.open(self.path.with_name(LOCK), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise ProgressError(f"{self.path.parent}: a soak is still running there (process {holder}); "
                                "--resume is for a soak whose process ended") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._held = fd

    def exists(self) -> bool:
        return self.path.exists() and self.path.stat().st_size > 0

    def load(self) -> Gathered:
        """Reads the file back. A last line cut by the process's death is dropped from the file (it
        was never whole, so nothing of it was used), and the file ends with a newline again, so
        that the next segment's lines follow whole ones."""
        got = Gathered()
        lists = {"start": got.starts, "sample": got.samples, "fault": got.injected, "restart": got.restarts,
                 "stuck": got.stuck, "life": got.lives}
        data = self.path.read_bytes()       # bytes: a cut line may end inside a character
        lines = data.split(b"\n")
        ended = lines[-1] == b""            # the file ends with a newline
        if ended:
            lines.pop()
        keep = len(data)
        for number, raw in enumerate(lines, start=1):
            try:
                item = json.loads(raw.decode("utf-8"))
                kind = item.pop("kind")
            except (UnicodeDecodeError, json.JSONDecodeError, KeyError, AttributeError, TypeError):
                if number == len(lines):    # written when the process died
                    keep, ended = len(data) - len(raw) - (1 if ended else 0), True
                    break
                raise ProgressError(f"{self.path}: line {number} is not a soak fact; the file was edited "
                                    "or is not a soak's") from None
            if kind == "hold":
                got.holds += 1
                got.later.append(item.get("t", 0.0))
            elif kind == "controller":
                got.controller_pid = item.get("pid")
                got.later.append(item.get("t", 0.0))
            elif kind in lists:
                lists[kind].append(item)
            else:
                raise ProgressError(f"{self.path}: line {number}: unknown kind {kind!r}")
        self._mend(len(data), keep, ended)
        return got

    def _mend(self, size: int, keep: int, ended: bool) -> None:
        """Cuts the file back to its first ``keep`` bytes, its whole lines (a cut last line), or ends
        it with a newline: in place, never by writing the file anew, so no error here can lose the
        lines before."""
        if keep < size:
            os.truncate(self.path, keep)
        elif not ended:                     # its last line is whole but lacks its newline
            with self.path.open("ab") as out:
                out.write(b"\n")

    def write(self, kind: str, item: dict[str, Any]) -> None:
        assert kind in KINDS and "kind" not in item, (kind, item)    # a fact's own "kind" would hide its kind
        line = json.dumps({"kind": kind, **item}, separators=(",", ":")) + "\n"
        with self._lock:                    # the event thread (faults, holds) and the main thread write
            if self._out is None:
                self._out = self.path.open("a", encoding="utf-8")
            self._out.write(line)
            self._out.flush()
            os.fsync(self._out.fileno())    # a few lines a second: evidence is worth a disk write

    def close(self) -> None:
        with self._lock:
            if self._out is not None:
                self._out.close()
                self._out = None
            if self._held is not None:
                os.close(self._held)        # lets the flock go
                self._held = None


def stop_orphan(pid: int | None, config: Path, wait: float = 10.0) -> None:
    """The controller the soak last started, if it outlived the soak's process (the soak was killed,
    not the machine): SIGKILLed, as the soak's own kills do, so the resumed soak starts its own on
    the same data folder. Only a process still running ``run --config`` with this soak's
    configuration: a reused process id is left alone."""
    import signal
    import time
    if not pid:
        return
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return                              # gone (a reboot, or it ended)
    if b"run" not in words or str(config).encode() not in words:
        return
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + wait
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)                    # a zombie of a dead parent is reaped by init
    if Path(f"/proc/{pid}").exists():
        raise ProgressError(f"the soak's last controller (process {pid}) did not end within {wait:g} s of "
                            "SIGKILL: it still holds the table's data folder")
