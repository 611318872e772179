"""Table configuration: one TOML file saying which table this is and where its devices are.

Owns the configuration's schema, its defaults and its refusals. A bad file is
refused whole with ``ConfigError`` naming the file and, for each of its
problems, the key and its line, one problem per line (unknown keys, bad device
URLs, unknown presets or drivers, inconsistent limits: every key is checked
that does not depend on one already refused), so a table never starts
half-configured and a technician fixes a file in one pass. ``digest`` is what the
journal compares between runs to notice a changed configuration; ``play_digest``
what a recovered round must have opened under.

Sections (deploy/table.example.toml explains every key):
  [table]    id, preset | paytable, positions, one_player_two_positions,
             hand_timeout
  [jackpot]  opening MEGA / MAJOR / MINOR values in cents (used while the journal has none),
             house_overrides_ceilings (values above $10,000,000 are meant)
  [data]     dir (journal and audit files)
  [log]      format (json | console), level, dir (the audit trail; default DATA_DIR/audit),
             audit_rotate_mb, audit_keep_files, audit_keep_days (rotation and retention)
  [page]     host, port, allow (address ranges that may use the page),
             pin_attempts, pin_lockout (wrong PINs before a role is locked, for how long),
             dealer_sign_in (dealers sign in with their own PINs before betting opens; false:
             this table's dealers have no PINs), language (the dealer page's words: "en" or "es")
  [gaming_day] time_zone (IANA), cutoff ("06:00"), shifts (name = "HH:MM"): controller/rules/gaming.py
  [devices.shoe | devices.sensors | devices.sign]
             driver, url, serial line settings, driver timings
  [floor]    dsn, table, user, password_file, poll, batch, drain (optional: the floor database
             the journal is forwarded to; controller/app/floorconfig.py)

Every value has a type and a range: numbers a least and a most, texts printable
and of a bounded length, addresses a valid form, amounts a ceiling that only an
explicit ``house_overrides_ceilings = true`` lifts (and then only to an
absolute bound), and a device's settings the relations its driver declares.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from controller.app.device_urls import is_ip, shared_ports, url_problem
from controller.app.floorconfig import parse_floor
from controller.errors import InputError
from controller.floor.settings import FloorSettings
from controller.page.i18n import LANGUAGES  # the dealer page's: English and each catalogue
from controller.rules.gaming import KEYS as GAMING_DAY_KEYS
from controller.rules.gaming import GamingClock, parse_gaming_day
from controller.rules.paytable import CEILINGS, JACKPOTS, OVERRIDE, PayTableError, Preset, load_paytable, load_preset
from controller.rules.tomlcheck import TomlChecker, loads, read_file
from controller.store.audit import Retention
from drivers import registry


class ConfigError(InputError):
    """A configuration that cannot be used; the message names file, key and line."""


class _Checker(TomlChecker):
    error = ConfigError


DEVICE_ROLES = ("shoe", "sensors", "sign")
SECTIONS = ("table", "jackpot", "data", "log", "page", "gaming_day", "devices", "floor")
NOT_IN_PLAY = ("data", "log", "page", "devices")     # where things are, not how a round is played
ID_LONGEST = 32              # the table's id on the page's header, in logs and the journal
ALLOW_MOST = 64              # address ranges in page.allow
LIMITS = {                   # seconds (least, most) and whole numbers: a typo, not a table, goes beyond
    "table.hand_timeout": (0.5, 300.0),     # a shoe delivers a hand in about a second
    "page.pin_lockout": (1.0, 86_400.0),    # a day at most: a supervisor is not locked out for good
    "page.pin_attempts": (1, 20),
    "table.positions": (1, 9),              # the layouts, the sensors and table-sim: 1 to 9
    "log.audit_rotate_mb": (1, 1000),       # the current audit file's size before it is rotated
    "log.audit_keep_files": (0, 100_000),   # 0: every rotated file is kept
    "log.audit_keep_days": (0, 36_500),     # 0: kept whatever their age
}


@dataclass(frozen=True)
class DeviceConfig:
    role: str
    driver: str
    url: str
    transport: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TableConfig:
    table_id: str
    preset: Preset
    positions: int
    two_positions_allowed: bool
    hand_timeout: float
    jackpots: dict[str, int]
    data_dir: Path
    log_format: str
    log_level: str
    page_host: str
    page_port: int
    page_allow: tuple[str, ...]
    devices: dict[str, DeviceConfig]
    source: str = "<embedded default>"
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    pin_attempts: int = 5
    pin_lockout: float = 300.0
    audit_dir: Path | None = None        # None: data_dir / "audit"
    key_file: Path | None = None         # the journal's chain key; None: data_dir / "journal.key"
    floor: FloorSettings | None = None   # None: no [floor], the table runs alone
    audit_retention: Retention = field(default_factory=Retention)
    gaming_day: GamingClock = field(default_factory=GamingClock)
    language: str = "en"
    dealer_sign_in: bool = True          # a dealer signs in (own PIN) before betting opens

    def has_position(self, position: int) -> bool:
        """Position numbers run from 1 (the dealer's left) to ``positions``."""
        return 1 <= position <= self.positions

    @cached_property        # journaled with every round: worked out once (a configuration never changes)
    def digest(self) -> str:
        """SHA-256 over the parsed configuration and the rules it loads: any change, at start-up."""
        return self._digest(self.raw)

    @cached_property
    def play_digest(self) -> str:
        """The same over what decides how a round is dealt and settled (all but NOT_IN_PLAY): a
        round recovered after a device moved to another port is carried on, not voided."""
        return self._digest({key: value for key, value in self.raw.items() if key not in NOT_IN_PLAY})

    def _digest(self, config: dict[str, Any]) -> str:
        doc = {"config": config, "rules": self.preset.digest}
        return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()

    def with_devices(self, devices: dict[str, DeviceConfig]) -> TableConfig:
        """The same table on other devices (simulators). ``raw`` and so the digest stay the
        file's: generated pty names must not read as a configuration change at every start."""
        return replace(self, devices=devices)


def load_config(path: str | Path) -> TableConfig:
    path = Path(path)
    return parse_config(read_file(path, ConfigError), str(path), base=path.parent)


def parse_config(text: str, source: str, base: Path | None = None) -> TableConfig:
    """The configuration ``text`` says, or ``ConfigError`` naming every problem it has, one per
    line (each with its key and line), checking all of the file that can be checked."""
    doc = loads(text, source, ConfigError)
    c = _Checker(text, source, collect=True)
    for key in doc:
        if key not in SECTIONS:
            c.problem(key, f"unknown section (sections: {', '.join(SECTIONS)})")

    # [table]; a value that is refused keeps its default here, but then finish() refuses the file
    table_keys = {"id", "preset", "paytable", "positions", "one_player_two_positions", "hand_timeout"}
    table = c.section(doc, "table", table_keys)
    table_id, preset, positions, two, hand_timeout = "", None, 6, "allowed", 10.0
    if table is not None:
        with c.part():
            table_id = c.text(table.get("id", ""), "table.id", longest=ID_LONGEST)
            if table_id != table_id.strip():
                raise c.fail("table.id", f"must not begin or end with a space: {table_id!r}")
        with c.part():
            preset = _preset(c, table, base)
        with c.part():
            positions = _whole(c, table.get("positions", 6), "table.positions")
        with c.part():
            two = table.get("one_player_two_positions", "allowed")
            if two not in ("allowed", "refused"):
                raise c.fail("table.one_player_two_positions", f"must be \"allowed\" or \"refused\", not {two!r}")
        with c.part():
            hand_timeout = _seconds(c, table.get("hand_timeout", 10.0), "table.hand_timeout")

    jackpot_doc = c.section(doc, "jackpot", {*JACKPOTS, OVERRIDE}, required=False) or {}
    c.override = f"{OVERRIDE} = true under [jackpot]"
    with c.part():
        c.overrides = c.flag(jackpot_doc.get(OVERRIDE, False), f"jackpot.{OVERRIDE}")
    jackpots: dict[str, int] = {}
    for name, value in jackpot_doc.items():
        if name in JACKPOTS:                      # an unknown name is already a problem
            with c.part():
                jackpots[name] = c.within(c.cents(value, f"jackpot.{name}", positive=True), f"jackpot.{name}",
                                          CEILINGS["jackpot"])
    if len(jackpots) == len(JACKPOTS) and not jackpots["mega"] >= jackpots["major"] >= jackpots["minor"]:
        c.problem("jackpot", f"values must be MEGA >= MAJOR >= MINOR, not {jackpots['mega']}, "
                  f"{jackpots['major']}, {jackpots['minor']}")
    if preset is not None and preset.super6 and any(isinstance(a, str) for bet in preset.super6.values()
                                                    for a in bet.awards.values()):
        for name in JACKPOTS:
            if name not in jackpot_doc:
                c.problem(f"jackpot.{name}", f"missing: preset {preset.name} pays a {name.upper()} "
                          "jackpot, so its opening value is needed (cents)")

    data = c.section(doc, "data", {"dir", "key_file"}, required=False) or {}
    data_dir = Path("/var/lib/table-controller")
    with c.part():
        data_dir = Path(c.text(data.get("dir", "/var/lib/table-controller"), "data.dir"))
    key_file = None
    with c.part():
        key_file = Path(c.text(data["key_file"], "data.key_file")) if "key_file" in data else None
    log = c.section(doc, "log", {"format", "level", "dir", "audit_rotate_mb", "audit_keep_files", "audit_keep_days"},
                    required=False) or {}
    retention = [10, 0, 0]
    for i, key in enumerate(("audit_rotate_mb", "audit_keep_files", "audit_keep_days")):
        with c.part():
            retention[i] = _whole(c, log.get(key, retention[i]), f"log.{key}")
    audit_dir = None
    with c.part():
        audit_dir = Path(c.text(log["dir"], "log.dir")) if "dir" in log else None
    log_format = log.get("format", "json")
    if log_format not in ("json", "console"):
        c.problem("log.format", f"must be \"json\" or \"console\", not {log_format!r}")
    log_level = log.get("level", "info")
    if log_level not in ("debug", "info", "warning", "error"):
        c.problem("log.level", f"must be debug, info, warning or error, not {log_level!r}")

    page = c.section(doc, "page", {"host", "port", "allow", "pin_attempts", "pin_lockout", "language",
                                   "dealer_sign_in"},
                     required=False) or {}
    host = "127.0.0.1"
    with c.part():
        host = c.text(page.get("host", "127.0.0.1"), "page.host", longest=64)
        if host != "localhost" and not is_ip(host):
            raise c.fail("page.host", f"{host!r} is not an IP address (such as \"127.0.0.1\" or \"::1\") "
                         "nor \"localhost\"")
    port = page.get("port", 8080)
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        c.problem("page.port", f"must be a port number 1-65535, not {port!r}")
    elif port == 0:
        c.problem("page.port", "must be a port number 1-65535, not 0 (a free port, for tests, is "
                  "`table-controller run --port 0`; the kiosk needs a known port)")
    allow = page.get("allow", ["127.0.0.0/8", "::1/128"])
    if not isinstance(allow, list) or not allow or len(allow) > ALLOW_MOST:
        c.problem("page.allow", f"must be a list of 1 to {ALLOW_MOST} address ranges such as \"127.0.0.0/8\"")
        allow = []
    for i, net in enumerate(allow):
        try:
            if not isinstance(net, str):
                raise TypeError(net)
            ipaddress.ip_network(net, strict=False)
        except (ValueError, TypeError):
            c.problem(f"page.allow[{i}]", f"{net!r} is not an address range (such as \"10.1.2.0/24\" or "
                      "\"10.1.2.3\")")
    attempts = 5
    with c.part():
        attempts = _whole(c, page.get("pin_attempts", 5), "page.pin_attempts")
    lockout = 300.0
    with c.part():
        lockout = _seconds(c, page.get("pin_lockout", 300.0), "page.pin_lockout")
    sign_in = page.get("dealer_sign_in", True)
    if not isinstance(sign_in, bool):
        c.problem("page.dealer_sign_in", f"must be true (dealers sign in with their own PINs) or false (this "
                  f"table's dealers have no PINs), not {sign_in!r}")
        sign_in = True
    language = page.get("language", "en")
    if language not in LANGUAGES:
        c.problem("page.language", f"must be one of {', '.join(LANGUAGES)}, not {language!r}")
    clock = parse_gaming_day(c.section(doc, "gaming_day", GAMING_DAY_KEYS, required=False) or {}, c.problem)

    devices_doc = c.section(doc, "devices", set(DEVICE_ROLES))
    devices = {}
    if devices_doc is not None:
        for role in DEVICE_ROLES:
            if role not in devices_doc:
                c.problem(f"devices.{role}", "missing (every table has a shoe, sensors and a sign)")
                continue
            with c.part():
                devices[role] = _device(c, role, devices_doc[role])
        for role, problem in shared_ports({role: dev.url for role, dev in devices.items()}).items():
            c.problem(f"devices.{role}.url", problem)

    floor = parse_floor(c, doc, table_id, base)

    c.finish()
    assert preset is not None                     # else finish() refused the file
    return TableConfig(table_id, preset, positions, two == "allowed", hand_timeout, jackpots, data_dir,
                       log_format, log_level, host, port, tuple(allow), devices, source, doc,
                       attempts, lockout, audit_dir, key_file, floor,
                       Retention(retention[0] * 1_000_000, retention[1], retention[2]), clock, language, sign_in)


def _preset(c: _Checker, table: dict[str, Any], base: Path | None) -> Preset:
    if "preset" in table and "paytable" in table:
        raise c.fail("table.paytable", "give either preset or paytable, not both")
    try:
        if "paytable" in table:
            file = Path(c.text(table["paytable"], "table.paytable"))
            return load_paytable(file if file.is_absolute() or base is None else base / file)
        return load_preset(c.text(table.get("preset", ""), "table.preset"))
    except PayTableError as err:
        key = "table.paytable" if "paytable" in table else "table.preset"
        raise c.fail(key, str(err)) from None


def _seconds(c: _Checker, value: Any, key: str) -> float:
    least, most = LIMITS[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not least <= value <= most:
        raise c.fail(key, f"must be a number of seconds from {least:g} to {most:g}, not {value!r}")
    return float(value)


def _whole(c: _Checker, value: Any, key: str) -> int:
    least, most = LIMITS[key]
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise c.fail(key, f"must be a whole number from {least:g} to {most:g}, not {value!r}")
    return value


def _device(c: _Checker, role: str, doc: Any) -> DeviceConfig:
    """One device's table; its problems are kept (``c.problem``), each key on its own."""
    key = f"devices.{role}"
    if not isinstance(doc, dict):
        raise c.fail(key, "must be a table")
    driver = doc.get("driver")
    known_driver = isinstance(driver, str) and driver in registry.drivers_for(role)
    if not known_driver:
        c.problem(f"{key}.driver", f"{driver!r} is not a {role} driver "
                  f"({', '.join(registry.drivers_for(role))})")
    url = doc.get("url")
    problem = url_problem(url, role)
    if problem:
        c.problem(f"{key}.url", problem)
    transport: dict[str, Any] = {}
    settings: dict[str, Any] = {}
    if not isinstance(driver, str) or not known_driver:
        return DeviceConfig(role, str(driver), str(url), transport, settings)    # settings depend on it
    declared = registry.DRIVERS[driver].settings
    allowed = {"driver", "url", *registry.SERIAL_SETTINGS, *declared}
    refused = False
    for name, value in doc.items():
        if name in ("driver", "url"):
            continue
        if name not in allowed:
            c.problem(f"{key}.{name}", f"unknown key (allowed: {', '.join(sorted(allowed))})")
            continue
        serial = name in registry.SERIAL_SETTINGS
        problem = (registry.SERIAL_SETTINGS if serial else declared)[name].problem(value)
        if problem:
            c.problem(f"{key}.{name}", problem)
            refused = True
            continue
        (transport if serial else settings)[name] = value
    if not refused:                               # relations of refused values would be echoes
        for name, problem in registry.relation_problems(driver, {**transport, **settings}, str(url)).items():
            c.problem(f"{key}.{name}", problem)
    return DeviceConfig(role, driver, str(url), transport, settings)


EMBEDDED_DEFAULT = """\
# The embedded default: one table on simulated devices (their URLs are filled in at start).
[table]
id = "SIM-1"
preset = "sheet-004"
positions = 6

[jackpot]
mega = 10000000
major = 2500000
minor = 250000

[data]
dir = "table-data"

[log]
format = "console"

[devices.shoe]
driver = "shoe-framed"
url = "loop://"

[devices.sensors]
driver = "sensors-framed"
url = "loop://"

[devices.sign]
driver = "sign-alpha"
url = "loop://"
address = "01"
"""


def default_config() -> TableConfig:
    return parse_config(EMBEDDED_DEFAULT, "<embedded default>")
