"""The gaming day and its shifts: which business day and shift a moment of the journal belongs to.

Owns the ``[gaming_day]`` section of the configuration and the one mapping from a
UTC timestamp (the journal keeps UTC) to (gaming day, shift):

    [gaming_day]
    time_zone = "America/Los_Angeles"    # an IANA name (zoneinfo; Debian's tzdata)
    cutoff = "06:00"                     # local time the gaming day begins
    shifts = { day = "06:00", swing = "14:00", grave = "22:00" }   # name = local start time

A gaming day is named by the local date on which it begins: with a 06:00 cut-off,
02:00 on 8 March belongs to the gaming day of 7 March. One shift must start at the
cut-off, so every shift lies wholly in one gaming day; a shift runs until the next
one starts. Without shifts the gaming day is one shift, ``day``. Across a change to
or from summer time a day is 23 or 25 hours long: its bounds are the local cut-offs,
each turned into UTC by the zone's rules.
"""

from __future__ import annotations

import re
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

KEYS = {"time_zone", "cutoff", "shifts"}
HH_MM = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")
SHIFT_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,23}$")
SHIFTS_MOST = 6
DEFAULT_SHIFT = "day"


@dataclass(frozen=True)
class GamingClock:
    time_zone: str = "UTC"
    cutoff: time = time(6, 0)
    shifts: tuple[tuple[str, time], ...] = ()       # (name, start) in the gaming day's order
    zone: zoneinfo.ZoneInfo = field(default=zoneinfo.ZoneInfo("UTC"), compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.shifts:
            object.__setattr__(self, "shifts", ((DEFAULT_SHIFT, self.cutoff),))
        object.__setattr__(self, "zone", zoneinfo.ZoneInfo(self.time_zone))

    # --- the mapping ----------------------------------------------------------------------

    def local(self, at: str | datetime) -> datetime:
        """A journal time (ISO text in UTC, or an aware datetime) in the table's local time."""
        moment = datetime.fromisoformat(at) if isinstance(at, str) else at
        if moment.tzinfo is None:
            raise ValueError(f"{at!r}: a journal time carries its offset (UTC)")
        return moment.astimezone(self.zone)

    def day_of(self, at: str | datetime) -> date:
        """The gaming day a moment belongs to: the local date on which that day began."""
        local = self.local(at)
        return local.date() - timedelta(days=1) if local.time() < self.cutoff else local.date()

    def shift_of(self, at: str | datetime) -> str:
        """The shift a moment belongs to: the last shift begun at or before it, in its gaming day."""
        minutes = self._since_cutoff(self.local(at).time())
        return max(self.shifts, key=lambda s: (self._since_cutoff(s[1]) <= minutes,
                                               self._since_cutoff(s[1])))[0]

    def place(self, at: str | datetime) -> tuple[date, str]:
        """(gaming day, shift) of a moment of the journal."""
        return self.day_of(at), self.shift_of(at)

    def _since_cutoff(self, t: time) -> int:
        return (t.hour * 60 + t.minute - self.cutoff.hour * 60 - self.cutoff.minute) % (24 * 60)

    # --- bounds, for choosing a journal's records ----------------------------------------------

    def _at(self, day: date, t: time) -> datetime:
        """A local time in gaming day ``day`` (after midnight: the next calendar date), in UTC."""
        on = day if t >= self.cutoff else day + timedelta(days=1)
        return datetime.combine(on, t, tzinfo=self.zone).astimezone(UTC)

    def day_bounds(self, day: date) -> tuple[datetime, datetime]:
        """[start, end) of a gaming day, in UTC."""
        return self._at(day, self.cutoff), self._at(day + timedelta(days=1), self.cutoff)

    def shift_bounds(self, day: date, name: str) -> tuple[datetime, datetime]:
        """[start, end) of one shift of a gaming day, in UTC; KeyError naming the shifts."""
        names = [n for n, _ in self.shifts]
        if name not in names:
            raise KeyError(f"no shift {name!r} (gaming_day.shifts: {', '.join(names)})")
        order = sorted(self.shifts, key=lambda s: self._since_cutoff(s[1]))
        i = [n for n, _ in order].index(name)
        start = self._at(day, order[i][1])
        end = self._at(day, order[i + 1][1]) if i + 1 < len(order) else self.day_bounds(day)[1]
        return start, end

    def describe(self) -> dict[str, Any]:
        return {"time_zone": self.time_zone, "cutoff": self.cutoff.strftime("%H:%M"),
                "shifts": {n: t.strftime("%H:%M") for n, t in self.shifts}}


def parse_gaming_day(doc: dict[str, Any], problem: Callable[[str, str], None]) -> GamingClock:
    """The ``[gaming_day]`` section (its unknown keys already refused): a bad value is a problem
    naming its key (``gaming_day.cutoff``), and the section's defaults stand in for it."""
    zone = "UTC"
    if "time_zone" in doc:
        value = doc["time_zone"]
        if not isinstance(value, str) or not known_zone(value):
            problem("gaming_day.time_zone", f"{value!r} is not an IANA time zone name such as "
                    "\"America/Los_Angeles\" or \"Europe/Madrid\" (zoneinfo; Debian's tzdata)")
        else:
            zone = value
    cutoff = time(6, 0)
    if "cutoff" in doc:
        parsed = _hh_mm(doc["cutoff"])
        if parsed is None:
            problem("gaming_day.cutoff", f"must be a local time \"HH:MM\" such as \"06:00\", not {doc['cutoff']!r}")
        else:
            cutoff = parsed
    shifts: list[tuple[str, time]] = []
    raw = doc.get("shifts", {})
    if not isinstance(raw, dict) or len(raw) > SHIFTS_MOST:
        problem("gaming_day.shifts", f"must be a table of 1 to {SHIFTS_MOST} shifts, name = \"HH:MM\" "
                "(such as { day = \"06:00\", swing = \"14:00\", grave = \"22:00\" })")
        raw = {}
    for name, start in raw.items():
        key = f"gaming_day.shifts.{name}"
        parsed = _hh_mm(start)
        if not SHIFT_NAME.match(name):
            problem(key, "a shift's name is a letter then letters, digits, - or _ (at most 24)")
        elif parsed is None:
            problem(key, f"must be the shift's local start time \"HH:MM\", not {start!r}")
        elif parsed in [t for _, t in shifts]:
            problem(key, f"starts at {start}, as another shift does")
        else:
            shifts.append((name, parsed))
    if shifts and cutoff not in [t for _, t in shifts]:
        problem("gaming_day.shifts", f"one shift must start at the gaming-day cut-off "
                f"{cutoff.strftime('%H:%M')}, so that every shift lies in one gaming day")
        shifts = []
    return GamingClock(zone, cutoff, tuple(shifts))


def _hh_mm(value: Any) -> time | None:
    match = HH_MM.match(value) if isinstance(value, str) else None
    return time(int(match.group(1)), int(match.group(2))) if match else None


def known_zone(name: str) -> bool:
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True
