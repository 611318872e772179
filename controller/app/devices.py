"""The table's devices as the controller holds them: one driver per configured role.

Owns building the shoe, sensor and sign drivers from configuration through
the driver registry (drivers/registry.py), starting and stopping them. The
drivers post into the engine's queue; the table commands them through these
attributes. Where the devices are (a serial path, a socket, a USB id) is only
in the configuration; a pyusb backend may be supplied for ``usb://`` URLs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.app.config import TableConfig
from drivers import registry


class Devices:
    def __init__(self, config: TableConfig, post: Callable[[Any], None], *, usb_backend=None,
                 driver_overrides: dict[str, dict] | None = None):
        self.drivers = {}
        for role, dev in config.devices.items():
            transport = dict(dev.transport)
            if dev.url.startswith("usb://") and usb_backend is not None:
                transport["backend"] = usb_backend
            table_facts = {name: getattr(config, name) for name in registry.DRIVERS[dev.driver].from_table}
            settings = {**dev.settings, **table_facts, **(driver_overrides or {}).get(role, {})}
            self.drivers[role] = registry.build(role, dev.driver, dev.url, post,
                                                transport_settings=transport, **settings)

    @property
    def shoe(self):
        return self.drivers["shoe"]

    @property
    def sensors(self):
        return self.drivers["sensors"]

    @property
    def sign(self):
        return self.drivers["sign"]

    def start(self) -> None:
        for driver in self.drivers.values():
            driver.start()

    def stop(self) -> None:
        for driver in self.drivers.values():
            driver.stop()
