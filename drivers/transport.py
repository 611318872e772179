"""Byte transports: serial ports by URL (pyserial) and USB bulk endpoints (pyusb).

Owns opening, reading, writing and closing; nothing about any protocol.
Serial devices open through ``serial.serial_for_url`` so configuration can
name ``/dev/table-shoe``, ``socket://host:port``, ``rfc2217://...``,
``loop://`` or ``spy://...`` alike; ``socket://`` (a device server on the
network) has a transport of its own that reads whatever has arrived. USB devices are named
``usb://VID:PID[/SERIAL]`` (hex ids) and found through ``usb.core.find`` with
an injectable backend. Every failure is a ``TransportError`` whose message
names the device and its URL.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import select
import socket
import termios
import urllib.parse
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
        self._direct = False                # a plain POSIX port: frames written to its descriptor directly

    def open(self) -> None:
        import serial
        from serial import serialposix
        try:
            # exclusive: a second program on the port (a terminal a technician left open, another
            # controller) would take half of each stream; it is refused at open instead (POSIX flock)
            self._port = serial.serial_for_url(self.url, exclusive=True, **self.settings)
        except (serial.SerialException, OSError, ValueError) as err:
            if str(err).startswith("Could not configure port"):
                raise TransportError(self._cannot_set(err)) from None
            if "Could not exclusively lock port" in str(err):
                raise TransportError(f"{self.device}: cannot open {self.url}: another program has it open (a "
                                     "terminal program, a second controller?): close it, and the table connects "
                                     "by itself") from None
            raise TransportError(f"{self.device}: cannot open {self.url}: {_reason(err)}") from None
        except Exception as err:
            # termios.error (not an OSError): the port refuses the framing asked, as a pseudo-terminal
            # reopened at 7E1 does (EINVAL). It was caught by the driver's loop as an internal error
            # and logged with its traceback every 10 s; it is a port that cannot be used as configured
            if type(err).__module__ != "termios":
                raise
            raise TransportError(self._cannot_set(err)) from None
        # pyserial's own write asks select() after every write, even one the port took whole (most
        # frames: a few dozen bytes into a kernel buffer of kilobytes); a port of another kind
        # (loop://, spy://, rfc2217://) keeps pyserial's
        self._direct = type(self._port).write is serialposix.Serial.write
        if self._direct:
            # the flock above binds only programs that lock too (picocom does; cat, screen and minicom's
            # default do not): the terminal's own exclusive mode refuses every other user's open (EBUSY)
            with contextlib.suppress(OSError):
                fcntl.ioctl(self._port.fileno(), termios.TIOCEXCL)

    def framing(self) -> str:
        """The line asked for, as written on a device's label: ``9600 7E1``."""
        s = self.settings
        return f"{s['baudrate']} {s['bytesize']}{s['parity']}{s['stopbits']:g}"

    def _cannot_set(self, err: BaseException) -> str:
        reason = err.args[1] if len(err.args) == 2 else _reason(err)       # termios.error(errno, text)
        code = err.args[0] if len(err.args) == 2 else None
        if code == errno.ENOTTY or f"({errno.ENOTTY}, " in str(err):     # pyserial's text holds the errno
            # /dev/null, a file, a disk: no line settings would help, the url names no serial port
            whose = f"{self.device}'" if self.device.endswith("s") else f"{self.device}'s"
            return (f"{self.device}: cannot open {self.url}: it is not a serial port ({os.strerror(errno.ENOTTY)}): "
                    f"give the {whose} serial port as url in [devices.{self.device}] (ls -l /dev/table-* "
                    "/dev/ttyUSB* /dev/ttyACM* /dev/ttyS*)")
        return (f"{self.device}: cannot open {self.url}: this port cannot be set to {self.framing()} "
                f"({reason}): a pseudo-terminal or an adapter without that framing; set baudrate, bytesize, "
                f"parity and stopbits in [devices.{self.device}] to a line both the port and the device speak")

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
            written = 0
            fd = port.fd if self._direct else None      # None once closed: pyserial's write says so
            if fd is not None:              # the frame in one call; what the port did not take, as pyserial does
                try:
                    written = os.write(fd, data)
                except BlockingIOError:
                    written = 0
            if written < len(data):
                port.write(data[written:] if written else data)
        except (serial.SerialException, OSError) as err:
            raise TransportError(f"{self.device}: writing {self.url} failed: {_reason(err)}") from None

    def close(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            if self._direct:                # a terminal another end holds open stays exclusive past our close
                with contextlib.suppress(OSError, ValueError, TypeError):
                    fcntl.ioctl(port.fileno(), termios.TIOCNXCL)
            try:
                port.close()
            except Exception:               # closing a vanished port must not mask why it vanished
                pass

    def _require(self) -> serial.Serial:
        if self._port is None:
            raise TransportError(f"{self.device}: {self.url} is not open")
        return self._port


class TcpTransport:
    """``socket://HOST:PORT``: a serial device server on the network (or a simulator), read whole.

    pyserial's socket port reads one byte per call (its ``in_waiting`` is 0 or 1), so every byte of
    a frame went round the driver's loop on its own, and it leaves Nagle's algorithm on, so a frame
    written while the last was unacknowledged waited for the peer's delayed ACK (about 40 ms a hand
    in the soak). This reads what has arrived, up to 4 KB, and sends each frame at once."""

    def __init__(self, device: str, url: str, *, timeout: float = 0.05, connect_timeout: float = 2.0):
        self.device, self.url = device, url
        self.timeout, self.connect_timeout = timeout, connect_timeout
        self._sock: socket.socket | None = None

    def open(self) -> None:
        parts = urllib.parse.urlsplit(self.url)
        unknown = [k for k in urllib.parse.parse_qs(parts.query) if k != "logging"]   # pyserial's one option
        try:
            if unknown:
                raise ValueError(f"unknown option {unknown[0]!r}")
            host, port = parts.hostname, parts.port
            if not host or not port:
                raise ValueError("not socket://HOST:PORT")
            sock = socket.create_connection((host, port), timeout=self.connect_timeout)
        except (OSError, ValueError) as err:
            raise TransportError(f"{self.device}: cannot open {self.url}: {_reason(err)}") from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.settimeout(2.0)                # a write that cannot go out in 2 s: the link is lost
        self._sock = sock

    def read(self) -> bytes:
        sock = self._require()
        try:
            ready, _, _ = select.select([sock], [], [], self.timeout)
            data = sock.recv(4096) if ready else None
        except (OSError, ValueError) as err:
            raise TransportError(f"{self.device}: reading {self.url} failed: {_reason(err)}") from None
        if data is None:
            return b""
        if not data:
            raise TransportError(f"{self.device}: reading {self.url} failed: the other end closed the connection")
        return data

    def write(self, data: bytes) -> None:
        sock = self._require()
        try:
            sock.sendall(data)
        except OSError as err:
            raise TransportError(f"{self.device}: writing {self.url} failed: {_reason(err)}") from None

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()

    def _require(self) -> socket.socket:
        if self._sock is None:
            raise TransportError(f"{self.device}: {self.url} is not open")
        return self._sock


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


def _reason(err: BaseException) -> str:
    text = getattr(err, "strerror", None) or str(err) or type(err).__name__
    return text


def open_transport(device: str, url: str, **settings: Any) -> Transport:
    """A transport for a configured URL: ``usb://`` for pyusb, ``socket://`` read whole (above),
    anything else for pyserial (a serial line's settings mean nothing to a TCP socket)."""
    if url.startswith("usb://"):
        return UsbTransport(device, url, backend=settings.get("backend"),
                            timeout=settings.get("timeout", 0.05))
    if url.startswith("socket://"):
        return TcpTransport(device, url, timeout=settings.get("timeout", 0.05))
    settings.pop("backend", None)
    return SerialTransport(device, url, **settings)
