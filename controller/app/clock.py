"""Whether the PC's clock is synchronised, watched while the table runs: the journal's times are evidence.

Owns asking the system and telling the table. ``synchronised`` asks systemd
(``timedatectl show --property=NTPSynchronized``, which reports the kernel's
own state, whatever the time service: systemd-timesyncd, chrony or ntpd), and
falls back to systemd-timesyncd's flag file; it answers None when it cannot
tell (no systemd, as on a developer's machine), and nothing is alerted then.
The service's sandbox forbids the clock system calls (``ProtectClock=yes``),
so the kernel is not asked directly.

``ClockWatch`` checks at start and then every ``interval`` seconds. When the
clock stops being synchronised it posts an alert to the engine (shown on the
dealer's page and journaled, like any alert) and logs a warning; when it is
synchronised again it says so the same way. It never stops the table: a round
in play goes on, and the alert tells the pit that the times being written
need a technician's look.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import structlog

TIMESYNCD_FLAG = Path("/run/systemd/timesync/synchronized")
UNSYNCHRONISED = ("The PC's clock is not synchronised: the times written in the journal may be wrong; "
                  "call a technician (the table goes on)")
RESYNCHRONISED = "The PC's clock is synchronised again"


def synchronised(timedatectl: str | None = None) -> bool | None:
    command = timedatectl or shutil.which("timedatectl")
    if command:
        try:
            out = subprocess.run([command, "show", "--property=NTPSynchronized", "--value"], capture_output=True,
                                 text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            out = None
        if out is not None and out.returncode == 0 and out.stdout.strip() in ("yes", "no"):
            return out.stdout.strip() == "yes"
    if TIMESYNCD_FLAG.exists():
        return True
    return None


class ClockWatch:
    def __init__(self, post: Callable[[Any], None], make_alert: Callable[[str, str], Any], *,
                 probe: Callable[[], bool | None] = synchronised, interval: float = 60.0):
        self.post, self.make_alert, self.probe, self.interval = post, make_alert, probe, interval
        self.log = structlog.get_logger("clock")
        self.state: bool | None = None           # None: not known (yet)
        self._said_unknown = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def check(self) -> bool | None:
        now = self.probe()
        if now is None:
            if not self._said_unknown:
                self.log.info("clock.unknown", reason="the clock's synchronisation cannot be read here")
                self._said_unknown = True
            return None
        if now is False and self.state is not False:
            self.log.warning("clock.unsynchronised")
            self.post(self.make_alert("clock", UNSYNCHRONISED))
        elif now is True and self.state is False:
            self.log.info("clock.synchronised")
            self.post(self.make_alert("clock", RESYNCHRONISED))
        self.state = now
        return now

    def start(self) -> None:
        def loop() -> None:
            while True:
                self.check()
                if self._stop.wait(self.interval):
                    return
        self._thread = threading.Thread(target=loop, name="clock-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(15)
