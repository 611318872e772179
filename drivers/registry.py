"""Driver registry: a device's driver chosen by name in configuration, imported lazily.

Owns the names configuration may use (``driver = "shoe-framed"``), which
device role each driver serves, the settings each driver and the serial line
take with their types and ranges (the configuration checks a device's keys
against this declaration, not a copy of it), the relations a driver needs
between its settings (``relation_problems``: a link's timers against each
other and the serial read timeout), and how a configured device becomes a
running driver. Importing a driver module only when a table uses
it keeps a missing optional dependency (pyusb's libusb) from stopping tables
that do not need it.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from drivers.transport import open_transport
from drivers.wire.auth import KeyFileError, read_key
from drivers.wire.link_words import ACK_DEADLINE


@dataclass(frozen=True)
class Setting:
    """One key a device may be configured with: its type, and its range or choices."""
    kind: type[Any] | tuple[type[Any], ...]     # [Any]: past the isinstance check, a value of any kind
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] | None = None
    pattern: str | None = None
    meaning: str = ""
    default: Any = None         # what the driver uses when the key is not given, where a relation needs it

    def problem(self, value: Any) -> str | None:
        """Why ``value`` cannot be used, in words; None when it can."""
        if isinstance(value, bool) != (self.kind is bool) or not isinstance(value, self.kind):
            return f"wrong type {type(value).__name__}" + (f" ({self.meaning})" if self.meaning else "")
        if isinstance(value, float) and not math.isfinite(value):     # nan compares false with any bound
            return f"{value!r} is not a number" + (f" ({self.meaning})" if self.meaning else "")
        if self.choices is not None and value not in self.choices:
            return f"{value!r} is not one of {', '.join(repr(c) for c in self.choices)}"
        if self.minimum is not None and value < self.minimum:
            return f"{value!r} is below {self.minimum:g}" + (f" ({self.meaning})" if self.meaning else "")
        if self.maximum is not None and value > self.maximum:
            return f"{value!r} is above {self.maximum:g}" + (f" ({self.meaning})" if self.meaning else "")
        if self.pattern is not None and not re.fullmatch(self.pattern, value):
            return f"{value!r} is not {self.meaning or self.pattern}"
        return None


SECONDS = (int, float)
BROADCAST = "00"                # the Alpha protocol's address of every sign (drivers/wire/alpha.py)
# The Alpha protocol's serial line (docs/protocols/alpha-sign.md): the sign's default unless configured.
NETWORK_HOST = re.compile(r"^(?:socket|rfc2217)://([^:/?]+):")     # a device server's host
ALPHA_SERIAL = {"baudrate": 9600, "bytesize": 7, "parity": "E", "stopbits": 1}
LINK_SETTINGS = {        # the framed link's timers (drivers/wire/link.py), defaults drivers/framed.py's
    "heartbeat_every": Setting(SECONDS, 0.05, 60, meaning="seconds between heartbeats", default=1.0),
    "silence_after": Setting(SECONDS, 0.1, 300, meaning="seconds of silence before the device is offline",
                             default=3.0),
    "retransmit_after": Setting(SECONDS, 0.01, 10, meaning="seconds before an unacknowledged frame is resent",
                                default=0.25),
    # the device's pairing key: every frame authenticated (docs/protocols/framing.md, Authentication)
    "key_file": Setting(str, pattern=r".+", meaning="the path of the device's key file (64 hex digits)"),
}
SERIAL_SETTINGS = {      # pyserial's, for devices on a serial line
    "baudrate": Setting(int, 50, 4_000_000, meaning="bits per second"),
    "bytesize": Setting(int, choices=(5, 6, 7, 8)),
    "parity": Setting(str, choices=("N", "E", "O", "M", "S")),
    "stopbits": Setting(SECONDS, choices=(1, 1.5, 2)),
    "timeout": Setting(SECONDS, 0, 60, meaning="seconds a read may wait", default=0.05),
}
Relations = Callable[[dict[str, Any], set[str]], dict[str, str]]


def _said(values: dict[str, Any], given: set[str], name: str) -> str:
    return f"{name} ({values[name]:g} s{'' if name in given else ', its default'})"


def _blame(given: set[str], *names: str) -> str:
    """The key a relation's refusal names: the first of ``names`` the file gave."""
    return next((name for name in names if name in given), names[0])


def _read_timeout(values: dict[str, Any], given: set[str], timer: str | None) -> dict[str, str]:
    """The driver's I/O thread runs its timers between reads: a read must wait, and not longer
    than ``timer``."""
    if values["timeout"] <= 0:
        return {"timeout": f"{values['timeout']!r} is not above 0: reads that never wait keep the "
                           "driver's thread spinning"}
    if timer is not None and values["timeout"] > values[timer]:
        return {_blame(given, "timeout", timer): f"{_said(values, given, 'timeout')} must be at most "
                f"{_said(values, given, timer)}: the driver runs its timers between reads"}
    return {}


def _link_relations(values: dict[str, Any], given: set[str]) -> dict[str, str]:
    """A device is offline only after two missed heartbeats, a frame is resent before its device
    counts as silent, and not before the device's ACK could arrive (docs/protocols/framing.md:
    1 s, 3 s, 250 ms against the device's 100 ms)."""
    problems = {}
    if values["silence_after"] < 2 * values["heartbeat_every"]:
        problems[_blame(given, "silence_after", "heartbeat_every")] = (
            f"{_said(values, given, 'silence_after')} must be at least twice "
            f"{_said(values, given, 'heartbeat_every')}: a device is offline only after two missed heartbeats")
    if values["retransmit_after"] <= ACK_DEADLINE:
        problems[_blame(given, "retransmit_after")] = (
            f"{_said(values, given, 'retransmit_after')} must be above the device's ACK deadline "
            f"({ACK_DEADLINE:g} s, docs/protocols/framing.md): an ACK on time must not cross a resend")
    if values["retransmit_after"] >= values["silence_after"]:
        problems.setdefault(_blame(given, "retransmit_after", "silence_after"), (
            f"{_said(values, given, 'retransmit_after')} must be below {_said(values, given, 'silence_after')}: "
            "a frame is resent before its device counts as silent"))
    for name, problem in _read_timeout(values, given, "heartbeat_every").items():
        problems.setdefault(name, problem)
    if values.get("key_file"):              # a pairing key that cannot be used is found by config check
        try:
            read_key(values["key_file"])
        except KeyFileError as err:
            problems["key_file"] = str(err)
    return problems


def _shoe_relations(values: dict[str, Any], given: set[str]) -> dict[str, str]:
    """The link's, and the cards' secrecy: frames are authenticated, not encrypted, so a shoe on a
    device server whose host is not this machine sends the dealer's cards across the network in
    clear. It is refused unless the configuration says the link is on a segment of its own
    (``network_segment = "isolated"``: a VLAN or cable only the table's devices share, docs/deploy.md)."""
    problems = _link_relations(values, given)
    found = NETWORK_HOST.match(str(values.get("url", "")))
    loopback = found is not None and (found.group(1) == "localhost" or found.group(1).startswith("127."))
    if found and not loopback and values.get("network_segment") != "isolated":
        problems["url"] = (f"the shoe's cards would cross the network to {found.group(1)} in clear (frames are "
                           "authenticated, not encrypted): put the link on a segment only the table's devices share "
                           "and say so with network_segment = \"isolated\"")
    return problems


def _sign_relations(values: dict[str, Any], given: set[str]) -> dict[str, str]:
    """With ACKs on, the driver notices a missing ACK between reads, and writes to the sign's own
    address: a broadcast (00) reaches every sign on the line and none of them may answer it."""
    acks = values.get("acks") is not False
    problems = _read_timeout(values, given, "ack_timeout" if acks else None)
    if acks and str(values.get("address")) == BROADCAST:
        own = "give the sign's own address, 01 to FF, as set in its set-up menu"
        problems["address"] = (f"'00' is broadcast, which no sign answers: with acks on {own}"
                               if "address" in given else f"missing: with acks on (the default) {own}")
    return problems


@dataclass(frozen=True)
class DriverSpec:
    role: str           # the device it drives: shoe, sensors or sign
    target: str         # module:class, imported when a table uses it
    settings: dict[str, Setting]
    from_table: tuple[str, ...] = ()    # facts of the table the driver is given (not device keys)
    relations: Relations | None = None  # problems between settings, by the key to name
    serial: dict[str, Any] = field(default_factory=dict)    # the line the device speaks, unless configured


DRIVERS = {
    "shoe-framed": DriverSpec("shoe", "drivers.shoe:ShoeDriver", {
        **LINK_SETTINGS,
        # past it the table is alerted and held until the shuffle completes (docs/protocols/shoe.md)
        "shuffle_limit": Setting(SECONDS, 5, 600, meaning="seconds a shuffle may take", default=60.0),
        # a shoe on a device server elsewhere on the network: its cards travel in clear (_shoe_relations)
        "network_segment": Setting(str, choices=("isolated",), meaning="the network the link is on"),
    }, relations=_shoe_relations),
    "sensors-framed": DriverSpec("sensors", "drivers.sensors:SensorDriver", LINK_SETTINGS,
                                 from_table=("positions",),     # readings for other positions: NAK
                                 relations=_link_relations),
    "sign-alpha": DriverSpec("sign", "drivers.sign:SignDriver", {
        "address": Setting(str, pattern="[0-9A-Fa-f]{2}", meaning="the sign's own address, two hex digits "
                           "(not the wildcard '?', which reaches every sign it matches)",
                           default=BROADCAST),
        "acks": Setting(bool, default=True),
        "ack_timeout": Setting(SECONDS, 0.01, 10, meaning="seconds to wait for the sign's ACK", default=0.5),
        "max_attempts": Setting(int, 1, 20, meaning="tries of one packet"),
        "heartbeat_every": Setting(SECONDS, 0.05, 600, meaning="seconds between rewrites"),
        "width": Setting(int, 12, 125, meaning="characters the sign shows on a line", default=20),
        "lines": Setting(int, 1, 8, meaning="lines the sign shows at once", default=1),
    }, relations=_sign_relations, serial=ALPHA_SERIAL),
}


def relation_problems(driver: str, given: dict[str, Any], url: str = "") -> dict[str, str]:
    """What is wrong between a device's settings (each one already in its own range) and its URL,
    by the key to name: the key given, or the one whose default it contradicts."""
    spec = DRIVERS[driver]
    if spec.relations is None:
        return {}
    values = {name: s.default for name, s in {**SERIAL_SETTINGS, **spec.settings}.items()}
    return spec.relations({**values, **given, "url": url}, set(given))


def drivers_for(role: str) -> list[str]:
    return sorted(name for name, spec in DRIVERS.items() if spec.role == role)


class UnknownDriver(ValueError):
    pass


def driver_class(name: str) -> type:
    try:
        target = DRIVERS[name].target
    except KeyError:
        raise UnknownDriver(f"driver {name!r} unknown; drivers are {', '.join(sorted(DRIVERS))}") from None
    module, attr = target.split(":")
    return getattr(importlib.import_module(module), attr)


def build(device: str, driver: str, url: str, post, *, transport_settings: dict | None = None,
          **driver_settings: Any):
    """A driver for one configured device, not yet started. A serial setting the configuration
    does not give is the driver's (``DriverSpec.serial``: the Alpha sign's 9600 7E1), else pyserial's."""
    cls = driver_class(driver)
    serial = DRIVERS[driver].serial if not url.startswith("usb://") else {}
    transport = open_transport(device, url, **{**serial, **(transport_settings or {})})
    return cls(device, transport, post, **driver_settings)
