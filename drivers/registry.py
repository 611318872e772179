"""Driver registry: a device's driver chosen by name in configuration, imported lazily.

Owns the names configuration may use (``driver = "shoe-framed"``), which
device role each driver serves, the settings each driver and the serial line
take with their types and ranges (the configuration checks a device's keys
against this declaration, not a copy of it), and how a configured device
becomes a running driver. Importing a driver module only when a table uses
it keeps a missing optional dependency (pyusb's libusb) from stopping tables
that do not need it.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Any

from drivers.transport import open_transport


@dataclass(frozen=True)
class Setting:
    """One key a device may be configured with: its type, and its range or choices."""
    kind: type[Any] | tuple[type[Any], ...]     # [Any]: past the isinstance check, a value of any kind
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] | None = None
    pattern: str | None = None
    meaning: str = ""

    def problem(self, value: Any) -> str | None:
        """Why ``value`` cannot be used, in words; None when it can."""
        if isinstance(value, bool) != (self.kind is bool) or not isinstance(value, self.kind):
            return f"wrong type {type(value).__name__}" + (f" ({self.meaning})" if self.meaning else "")
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
LINK_SETTINGS = {        # the framed link's timers (drivers/wire/link.py)
    "heartbeat_every": Setting(SECONDS, 0.05, 60, meaning="seconds between heartbeats"),
    "silence_after": Setting(SECONDS, 0.1, 300, meaning="seconds of silence before the device is offline"),
    "retransmit_after": Setting(SECONDS, 0.01, 10, meaning="seconds before an unacknowledged frame is resent"),
}
SERIAL_SETTINGS = {      # pyserial's, for devices on a serial line
    "baudrate": Setting(int, 50, 4_000_000, meaning="bits per second"),
    "bytesize": Setting(int, choices=(5, 6, 7, 8)),
    "parity": Setting(str, choices=("N", "E", "O", "M", "S")),
    "stopbits": Setting(SECONDS, choices=(1, 1.5, 2)),
    "timeout": Setting(SECONDS, 0, 60, meaning="seconds a read may wait"),
}


@dataclass(frozen=True)
class DriverSpec:
    role: str           # the device it drives: shoe, sensors or sign
    target: str         # module:class, imported when a table uses it
    settings: dict[str, Setting]
    from_table: tuple[str, ...] = ()    # facts of the table the driver is given (not device keys)


DRIVERS = {
    "shoe-framed": DriverSpec("shoe", "drivers.shoe:ShoeDriver", LINK_SETTINGS),
    "sensors-framed": DriverSpec("sensors", "drivers.sensors:SensorDriver", LINK_SETTINGS,
                                 from_table=("positions",)),    # readings for other positions: NAK
    "sign-alpha": DriverSpec("sign", "drivers.sign:SignDriver", {
        "address": Setting(str, pattern="[0-9A-Fa-f]{2}", meaning="the sign's address, two hex digits"),
        "acks": Setting(bool),
        "ack_timeout": Setting(SECONDS, 0.01, 10, meaning="seconds to wait for the sign's ACK"),
        "max_attempts": Setting(int, 1, 20, meaning="tries of one packet"),
        "heartbeat_every": Setting(SECONDS, 0.05, 600, meaning="seconds between rewrites"),
    }),
}


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
    """A driver for one configured device, not yet started."""
    cls = driver_class(driver)
    transport = open_transport(device, url, **(transport_settings or {}))
    return cls(device, transport, post, **driver_settings)
