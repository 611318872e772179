"""Driver registry: a device's driver chosen by name in configuration, imported lazily.

Owns the names configuration may use (``driver = "shoe-framed"``) and how a
configured device becomes a running driver. Importing a driver module only
when a table uses it keeps a missing optional dependency (pyusb's libusb)
from stopping tables that do not need it.
"""

from __future__ import annotations

import importlib
from typing import Any

from drivers.transport import open_transport

DRIVERS = {
    "shoe-framed": "drivers.shoe:ShoeDriver",
    "sensors-framed": "drivers.sensors:SensorDriver",
    "sign-alpha": "drivers.sign:SignDriver",
}


class UnknownDriver(ValueError):
    pass


def driver_class(name: str) -> type:
    try:
        target = DRIVERS[name]
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
