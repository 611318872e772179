"""The gaming day and its shifts: configuration refusals name the setting; the mapping from a
journal's UTC time to (gaming day, shift) holds across midnight and the changes of summer time."""

from datetime import UTC, date, datetime

import pytest

from controller.app.config import EMBEDDED_DEFAULT, ConfigError, parse_config
from controller.rules.gaming import GamingClock

VEGAS = """
[gaming_day]
time_zone = "America/Los_Angeles"
cutoff = "06:00"
shifts = { day = "06:00", swing = "14:00", grave = "22:00" }
"""


def clock(section: str = VEGAS) -> GamingClock:
    return parse_config(EMBEDDED_DEFAULT + section, "t.toml").gaming_day


def test_a_moment_maps_to_its_gaming_day_and_shift():
    c = clock()
    assert c.place("2026-07-01T13:00:00.000+00:00") == (date(2026, 7, 1), "day")      # 06:00 PDT
    assert c.place("2026-07-01T12:59:59.999+00:00") == (date(2026, 6, 30), "grave")   # 05:59 PDT
    assert c.place("2026-07-01T21:00:00+00:00") == (date(2026, 7, 1), "swing")        # 14:00
    assert c.place("2026-07-02T05:00:00+00:00") == (date(2026, 7, 1), "grave")        # 22:00
    assert c.place("2026-07-02T08:30:00+00:00") == (date(2026, 7, 1), "grave")        # 01:30 next date
    assert c.local("2026-07-02T08:30:00+00:00").strftime("%H:%M %Z") == "01:30 PDT"


def test_days_and_shifts_around_summer_time_are_their_local_hours():
    c = clock()
    start, end = c.day_bounds(date(2026, 3, 8))            # spring forward in the early hours of 8 March
    assert (start, end) == (datetime(2026, 3, 8, 13, tzinfo=UTC), datetime(2026, 3, 9, 13, tzinfo=UTC))
    start, end = c.shift_bounds(date(2026, 3, 7), "grave")   # 22:00 PST to 06:00 PDT: seven hours
    assert end - start == (datetime(2026, 3, 8, 13) - datetime(2026, 3, 8, 6))
    start, end = c.day_bounds(date(2026, 3, 7))            # the gaming day that loses the hour
    assert (end - start).total_seconds() == 23 * 3600
    start, end = c.day_bounds(date(2026, 10, 31))          # fall back early on 1 November: 25 hours
    assert (end - start).total_seconds() == 25 * 3600
    assert c.place("2026-03-08T09:30:00+00:00") == (date(2026, 3, 7), "grave")


def test_every_moment_of_a_day_is_in_exactly_one_of_its_shifts():
    c = clock()
    day = date(2026, 10, 31)
    spans = [c.shift_bounds(day, name) for name, _ in c.shifts]
    assert spans[0][0] == c.day_bounds(day)[0] and spans[-1][1] == c.day_bounds(day)[1]
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))
    with pytest.raises(KeyError, match="no shift 'night' .*day, swing, grave"):
        c.shift_bounds(day, "night")


def test_defaults_are_utc_a_six_oclock_cutoff_and_one_shift():
    c = parse_config(EMBEDDED_DEFAULT, "t.toml").gaming_day
    assert c.describe() == {"time_zone": "UTC", "cutoff": "06:00", "shifts": {"day": "06:00"}}
    assert c.place("2026-01-01T05:59:00+00:00") == (date(2025, 12, 31), "day")


@pytest.mark.parametrize("section, message", [
    ('time_zone = "Mars/Olympus"', "key 'gaming_day.time_zone': 'Mars/Olympus' is not an IANA time zone"),
    ('time_zone = "PST"', "key 'gaming_day.time_zone': 'PST' is not an IANA"),
    ('cutoff = "6am"', "key 'gaming_day.cutoff': must be a local time \"HH:MM\""),
    ('cutoff = "24:00"', "key 'gaming_day.cutoff': must be a local time"),
    ('shifts = { day = "07:00" }', "key 'gaming_day.shifts': one shift must start at the gaming-day cut-off 06:00"),
    ('shifts = { day = "06:00", late = "6pm" }', "key 'gaming_day.shifts.late': must be the shift's local start"),
    ('shifts = { day = "06:00", late = "06:00" }', "key 'gaming_day.shifts.late': starts at 06:00, as another"),
    ('shifts = "day"', "key 'gaming_day.shifts': must be a table of 1 to 6 shifts"),
    ('cut_off = "06:00"', "key 'gaming_day.cut_off': unknown key"),
])
def test_a_bad_setting_is_refused_naming_it(section, message):
    with pytest.raises(ConfigError) as err:
        parse_config(EMBEDDED_DEFAULT + f"\n[gaming_day]\n{section}\n", "t.toml")
    assert message in str(err.value)


def test_the_language_of_the_page_is_checked():
    assert parse_config(EMBEDDED_DEFAULT + '\n[page]\nlanguage = "es"\n', "t.toml").language == "es"
    with pytest.raises(ConfigError, match="key 'page.language': must be one of en, es, not 'fr'"):
        parse_config(EMBEDDED_DEFAULT + '\n[page]\nlanguage = "fr"\n', "t.toml")
