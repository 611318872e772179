"""Helpers for tests that run real drivers against simulated devices."""

from __future__ import annotations

import queue
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from drivers import registry
from drivers.events import DeviceMessage
from drivers.wire.auth import new_key
from simulators.devices.framed import FramedDevice
from simulators.devices.ports import PtyPort
from simulators.devices.usb import UsbPort
from simulators.table import PORTS as SERIAL_PORTS

PORTS = {**SERIAL_PORTS, "usb": UsbPort}


class Events:
    """The controller's side: a queue the drivers post to, read with deadlines."""

    def __init__(self) -> None:
        self.q: queue.Queue = queue.Queue()
        self.seen: list = []

    def post(self, event) -> None:
        self.q.put(event)

    def wait(self, predicate, timeout: float = 5.0, what: str = "event"):
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no {what} within {timeout} s; saw {self.seen[-10:]}")
            try:
                event = self.q.get(timeout=remaining)
            except queue.Empty:
                continue
            self.seen.append(event)
            if predicate(event):
                return event

    def of(self, cls, timeout: float = 5.0, **fields):
        def match(e):
            target = e.message if isinstance(e, DeviceMessage) else e
            return isinstance(target, cls) and all(getattr(target, k) == v for k, v in fields.items())
        event = self.wait(match, timeout, cls.__name__)
        return event.message if isinstance(event, DeviceMessage) else event


@contextmanager
def driver_alone(name: str, driver: str, url: str, **settings):
    """A driver on a URL with no simulated device behind it (a bad port, a loopback)."""
    events = Events()
    drv = registry.build(name, driver, url, events.post, **settings)
    drv.start()
    try:
        yield drv, events
    finally:
        drv.stop()


@contextmanager
def running(device_factory, transport: str, name: str, driver: str, *, paired: bool = True, **driver_settings):
    """A simulated device on a port and a real driver for it; a framed pair shares a fresh key
    (``paired``), so that every driver test runs over authenticated frames as the simulators do."""
    port = PORTS[transport]()
    device = device_factory(port)
    key_dir = None
    if paired and isinstance(device, FramedDevice) and "key_file" not in driver_settings:
        key_dir = tempfile.mkdtemp(prefix="test-keys-")
        key = new_key()
        device.pair(key)
        driver_settings["key_file"] = f"{key_dir}/{name}.key"
        Path(driver_settings["key_file"]).write_text(key.hex())
    device.start()
    events = Events()
    # a USB gadget is reached through its bus, handed to pyusb as the backend (as libusb would be)
    transport_settings = {"backend": port.backend} if isinstance(port, UsbPort) else \
        dict(PtyPort.LINE) if isinstance(port, PtyPort) else {}
    drv = registry.build(name, driver, port.url, events.post, transport_settings=transport_settings,
                         **driver_settings)
    drv.start()
    try:
        yield device, drv, events
    finally:
        drv.stop()
        device.stop()
        if key_dir is not None:
            shutil.rmtree(key_dir, ignore_errors=True)
