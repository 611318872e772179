"""Byte transports: serial ports by URL (pyserial) and USB bulk endpoints (pyusb).

Owns opening, reading, writing and closing; nothing about any protocol.
Serial devices open through ``serial.serial_for_url`` so configuration can
name ``/dev/table-shoe``, ``socket://host:port``, ``rfc2217://...``,
``loop://`` or ``spy://...`` alike. USB devices are named
``usb://VID:PID[/SERIAL]`` (hex ids) and found through ``usb.core.find`` with
an injectable backend. Every failure is a ``TransportError`` whose message
names the device and its URL.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

if TYPE_CHECKING:                       # imported where used, so a missing library fails only there
    import serial


class TransportError(OSError):
    pass


class Transport(Protocol):
    url: str

    def open(self) -> None: ...
    def read(self) -> bytes: ...       # waits at most the read timeout; b"" when nothing came
    def write(self, data: bytes) -> None: ...
    def close(self) -> None: ...


class SerialSettings(TypedDict):
    baudrate: int
    bytesize: int
    parity: str
    stopbits: float
    timeout: float
    write_timeout: float


class SerialTransport:
    def __init__(self, device: str, url: str, *, baudrate: int = 115200, bytesize: int = 8,
                 parity: str = "N", stopbits: float = 1, timeout: float = 0.05):
        self.device, self.url = device, url
        self.settings = SerialSettings(baudrate=baudrate, bytesize=bytesize, parity=parity, stopbits=stopbits,
                                       timeout=timeout, write_timeout=2.0)
        self._port: serial.Serial | None = None

    def open(self) -> None:
        import serial
        try:
            self._port = serial.serial_for_url(self.url, **self.settings)
        except (serial.SerialException, OSError, ValueError) as err:
            raise TransportError(f"{self.device}: cannot open {self.url}: {_reason(err)}") from None
        _no_nagle(self._port)

    def read(self) -> bytes:
        import serial
        port = self._require()
        try:
            waiting = port.in_waiting
            return port.read(waiting or 1)
        except (serial.SerialException, OSError, TypeError, AttributeError) as err:
            # pyserial raises TypeError/AttributeError from a port closed under it
            raise TransportError(f"{self.device}: reading {self.url} failed: {_reason(err)}") from None

    def write(self, data: bytes) -> None:
        import serial
        port = self._require()
        try:
            port.write(data)
        except (serial.SerialException, OSError) as err:
            raise TransportError(f"{self.device}: writing {self.url} failed: {_reason(err)}") from None

    def close(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except Exception:               # closing a vanished port must not mask why it vanished
                pass

    def _require(self) -> serial.Serial:
        if self._port is None:
            raise TransportError(f"{self.device}: {self.url} is not open")
        return self._port


USB_URL = re.compile(r"usb://([0-9a-fA-F]{4}):([0-9a-fA-F]{4})(?:/(.+))?$")


class UsbTransport:
    """Bulk IN/OUT endpoints of interface 0 on a device chosen by vendor, product and serial."""

    def __init__(self, device: str, url: str, *, backend: Any = None, timeout: float = 0.05):
        match = USB_URL.match(url)
        if not match:
            raise TransportError(f"{device}: {url!r} is not usb://VID:PID[/SERIAL]")
        self.device, self.url = device, url
        self.vendor, self.product = int(match.group(1), 16), int(match.group(2), 16)
        self.serial = match.group(3)
        self.backend = backend
        self.timeout_ms = max(1, int(timeout * 1000))
        self._dev: Any = None           # usb.core.Device and its two usb.core.Endpoint (pyusb is untyped)
        self._in: Any = None
        self._out: Any = None

    def open(self) -> None:
        import usb.core
        import usb.util
        try:
            found = list(usb.core.find(find_all=True, idVendor=self.vendor, idProduct=self.product,
                                       backend=self.backend) or [])
            if self.serial is not None:
                found = [d for d in found if _usb_serial(d) == self.serial]
            if not found:
                raise TransportError(f"{self.device}: no USB device {self.url} attached")
            if len(found) > 1:
                raise TransportError(f"{self.device}: {len(found)} devices match {self.url}; "
                                     "add the serial number (usb://VID:PID/SERIAL)")
            dev = found[0]
            dev.set_configuration()
            intf = dev.get_active_configuration()[(0, 0)]

            def bulk(direction: int) -> Any:
                return usb.util.find_descriptor(intf, custom_match=lambda e: (
                    usb.util.endpoint_direction(e.bEndpointAddress) == direction
                    and usb.util.endpoint_type(e.bmAttributes) == usb.util.ENDPOINT_TYPE_BULK))
            self._in, self._out = bulk(usb.util.ENDPOINT_IN), bulk(usb.util.ENDPOINT_OUT)
            if self._in is None or self._out is None:
                raise TransportError(f"{self.device}: {self.url} has no bulk IN and OUT endpoints")
            self._dev = dev
        except usb.core.USBError as err:
            raise TransportError(f"{self.device}: cannot open {self.url}: {_reason(err)}") from None
        except usb.core.NoBackendError:
            raise TransportError(f"{self.device}: cannot open {self.url}: no USB backend "
                                 "(libusb) available") from None

    def read(self) -> bytes:
        import usb.core
        if self._dev is None:
            raise TransportError(f"{self.device}: {self.url} is not open")
        try:
            return bytes(self._in.read(self._in.wMaxPacketSize or 64, timeout=self.timeout_ms))
        except usb.core.USBTimeoutError:
            return b""
        except usb.core.USBError as err:
            raise TransportError(f"{self.device}: reading {self.url} failed: {_reason(err)}") from None

    def write(self, data: bytes) -> None:
        import usb.core
        if self._dev is None:
            raise TransportError(f"{self.device}: {self.url} is not open")
        try:
            self._out.write(data, timeout=1000)
        except usb.core.USBError as err:
            raise TransportError(f"{self.device}: writing {self.url} failed: {_reason(err)}") from None

    def close(self) -> None:
        if self._dev is not None:
            import usb.util
            try:
                usb.util.dispose_resources(self._dev)
            except Exception:               # the device may already be gone
                pass
        self._dev = self._in = self._out = None


def _usb_serial(dev: Any) -> str | None:
    try:
        import usb.util
        return usb.util.get_string(dev, dev.iSerialNumber) if dev.iSerialNumber else None
    except Exception:
        return None


def _no_nagle(port: Any) -> None:
    """A ``socket://`` port (a serial device server on the network, or a simulator) sends each frame
    at once. pyserial leaves Nagle's algorithm on, and with the peer's delayed ACK every small
    frame written after an unacknowledged one waited about 40 ms: a hand asked of the shoe took
    45 ms instead of under one. pyserial offers no option for it, so its socket is reached here."""
    import socket
    sock = getattr(port, "_socket", None)
    if isinstance(sock, socket.socket):
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:                 # not TCP after all (a future pyserial): only slower
            pass


def _reason(err: BaseException) -> str:
    text = getattr(err, "strerror", None) or str(err) or type(err).__name__
    return text


def open_transport(device: str, url: str, **settings: Any) -> Transport:
    """A transport for a configured URL: ``usb://`` for pyusb, anything else for pyserial."""
    if url.startswith("usb://"):
        return UsbTransport(device, url, backend=settings.get("backend"),
                            timeout=settings.get("timeout", 0.05))
    settings.pop("backend", None)
    return SerialTransport(device, url, **settings)
