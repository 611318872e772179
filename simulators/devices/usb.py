"""A simulated USB bus for pyusb: the shoe attached by USB without hardware.

Owns a pyusb backend (``usb.backend.IBackend``) that enumerates simulated
gadgets with real descriptors, and the device end of each gadget's bulk
endpoints. The controller's ``UsbTransport`` finds the gadget through
``usb.core.find(idVendor=..., idProduct=..., backend=bus)``, sets its
configuration, looks up the bulk endpoints from the interface descriptor and
reads the serial number through a GET_DESCRIPTOR control transfer, exactly as
with libusb; nothing in the driver knows it is talking to a simulator.

The gadget as the host sees it::

    device        bcdUSB 2.00, class 0xFF (vendor), idVendor:idProduct (default 1209:0001)
                  iManufacturer 1, iProduct 2, iSerialNumber 3, one configuration
    configuration bConfigurationValue 1, bus powered, 100 mA, one interface
    interface 0   class 0xFF, two endpoints
    endpoint 0x81 bulk IN,  wMaxPacketSize 64   (device -> host)
    endpoint 0x01 bulk OUT, wMaxPacketSize 64   (host -> device)
    strings       0: LANGID 0x0409; 1 manufacturer; 2 product; 3 serial number

1209:0001 is the pid.codes test id; a real shoe's ids come from its maker and
are set in configuration. The device end (``UsbPort``) has the same
``read(timeout)``/``write(data)`` as a pty or TCP port, so the framed device
models run on it unchanged. ``unplug()``/``plug()`` model the cable; an
unplug invalidates open handles (ENODEV), as the kernel does.
"""

from __future__ import annotations

import errno
import threading
import time
from types import SimpleNamespace

import usb.backend
import usb.core

EP_IN, EP_OUT = 0x81, 0x01
PACKET = 64
LANGID_EN_US = 0x0409
GET_DESCRIPTOR = 0x06
DESC_STRING = 0x03


def _descriptor(**fields) -> SimpleNamespace:
    return SimpleNamespace(extra_descriptors=[], **fields)


class UsbPort:
    """The device end of one gadget's bulk pipes (what firmware would read and write)."""

    def __init__(self, vendor: int = 0x1209, product: int = 0x0001, serial: str = "SIM0001",
                 manufacturer: str = "Table Simulators", product_name: str = "Simulated card shoe",
                 backend: SimulatedUsbBus | None = None) -> None:
        self.vendor, self.product, self.serial = vendor, product, serial
        self.strings = {1: manufacturer, 2: product_name, 3: serial}
        self.url = f"usb://{vendor:04x}:{product:04x}/{serial}"
        self.plugged = True
        self.generation = 0              # bumped by every unplug: handles from before go stale
        self.configuration = 0
        self._to_device = bytearray()
        self._to_host = bytearray()
        self._cond = threading.Condition()
        self._closed = False
        self.backend = backend or SimulatedUsbBus()
        self.backend.attach(self)

    # --- the device's side (same shape as PtyPort / TcpPort) -----------------------------

    def read(self, timeout: float) -> bytes:
        with self._cond:
            if not self._to_device and not self._closed:
                self._cond.wait(timeout)
            data, self._to_device[:] = bytes(self._to_device), b""
            return data

    def write(self, data: bytes) -> None:
        with self._cond:
            if self.plugged and self.configuration:     # an unconfigured device sends nothing
                self._to_host += data
                self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self.backend.detach(self)

    # --- the cable -------------------------------------------------------------------

    def unplug(self) -> None:
        with self._cond:
            self.plugged = False
            self.generation += 1
            self.configuration = 0
            self._to_device.clear()
            self._to_host.clear()
            self._cond.notify_all()

    def plug(self) -> None:
        with self._cond:
            self.plugged = True

    def drop(self) -> None:
        """The link bounces (a cable knocked out and back in): open handles die."""
        self.unplug()
        self.plug()

    # --- the host's side, called by the backend ----------------------------------------

    def host_write(self, handle: _Handle, data: bytes) -> int:
        with self._cond:
            self._check(handle)
            self._to_device += data
            self._cond.notify_all()
            return len(data)

    def host_read(self, handle: _Handle, size: int, timeout_ms: int) -> bytes:
        deadline = time.monotonic() + timeout_ms / 1000
        with self._cond:
            while True:
                self._check(handle)
                if self._to_host:
                    size = min(size, PACKET)
                    data, self._to_host[:size] = bytes(self._to_host[:size]), b""
                    return data
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise usb.core.USBTimeoutError("Operation timed out", -7, errno.ETIMEDOUT)
                self._cond.wait(remaining)

    def _check(self, handle: _Handle) -> None:
        if not self.plugged or handle.generation != self.generation or self._closed:
            raise usb.core.USBError("No such device (it may have been disconnected)", -4, errno.ENODEV)

    # --- descriptors -------------------------------------------------------------------

    def device_descriptor(self) -> SimpleNamespace:
        return _descriptor(
            bLength=18, bDescriptorType=0x01, bcdUSB=0x0200, bDeviceClass=0xFF, bDeviceSubClass=0,
            bDeviceProtocol=0, bMaxPacketSize0=64, idVendor=self.vendor, idProduct=self.product,
            bcdDevice=0x0100, iManufacturer=1, iProduct=2, iSerialNumber=3, bNumConfigurations=1,
            address=self.backend.address_of(self), bus=1, port_number=self.backend.address_of(self),
            port_numbers=(self.backend.address_of(self),), speed=3)     # 3: high speed

    @staticmethod
    def configuration_descriptor() -> SimpleNamespace:
        return _descriptor(bLength=9, bDescriptorType=0x02, wTotalLength=9 + 9 + 7 + 7,
                           bNumInterfaces=1, bConfigurationValue=1, iConfiguration=0,
                           bmAttributes=0x80, bMaxPower=50)

    @staticmethod
    def interface_descriptor() -> SimpleNamespace:
        return _descriptor(bLength=9, bDescriptorType=0x04, bInterfaceNumber=0, bAlternateSetting=0,
                           bNumEndpoints=2, bInterfaceClass=0xFF, bInterfaceSubClass=0,
                           bInterfaceProtocol=0, iInterface=0)

    @staticmethod
    def endpoint_descriptor(index: int) -> SimpleNamespace:
        address = (EP_IN, EP_OUT)[index]
        return _descriptor(bLength=7, bDescriptorType=0x05, bEndpointAddress=address,
                           bmAttributes=0x02, wMaxPacketSize=PACKET, bInterval=0, bRefresh=0,
                           bSynchAddress=0)

    def string_descriptor(self, index: int) -> bytes:
        if index == 0:
            body = LANGID_EN_US.to_bytes(2, "little")
        elif index in self.strings:
            body = self.strings[index].encode("utf-16-le")
        else:
            raise usb.core.USBError("Pipe error (no such string)", -9, errno.EPIPE)
        return bytes((2 + len(body), DESC_STRING)) + body


class _Handle:
    def __init__(self, port: UsbPort) -> None:
        self.port = port
        self.generation = port.generation


class SimulatedUsbBus(usb.backend.IBackend):
    """A pyusb backend whose bus holds simulated gadgets; pass it as ``backend=``."""

    def __init__(self) -> None:
        super().__init__()
        self._ports: list[UsbPort] = []
        self._lock = threading.Lock()

    def attach(self, port: UsbPort) -> None:
        with self._lock:
            if port not in self._ports:
                self._ports.append(port)

    def detach(self, port: UsbPort) -> None:
        with self._lock:
            if port in self._ports:
                self._ports.remove(port)

    def address_of(self, port: UsbPort) -> int:
        with self._lock:
            return self._ports.index(port) + 2 if port in self._ports else 0

    # --- IBackend ----------------------------------------------------------------------

    def enumerate_devices(self):
        with self._lock:
            return [p for p in self._ports if p.plugged]

    def get_parent(self, dev):
        return None

    def get_device_descriptor(self, dev):
        return dev.device_descriptor()

    def get_configuration_descriptor(self, dev, config):
        return dev.configuration_descriptor()

    def get_interface_descriptor(self, dev, intf, alt, config):
        return dev.interface_descriptor()

    def get_endpoint_descriptor(self, dev, ep, intf, alt, config):
        return dev.endpoint_descriptor(ep)

    def open_device(self, dev):
        if not dev.plugged:
            raise usb.core.USBError("No such device (it may have been disconnected)", -4, errno.ENODEV)
        return _Handle(dev)

    def close_device(self, dev_handle):
        pass

    def set_configuration(self, dev_handle, config_value):
        dev_handle.port._check(dev_handle)
        dev_handle.port.configuration = config_value

    def get_configuration(self, dev_handle):
        dev_handle.port._check(dev_handle)
        return dev_handle.port.configuration

    def set_interface_altsetting(self, dev_handle, intf, altsetting):
        dev_handle.port._check(dev_handle)

    def claim_interface(self, dev_handle, intf):
        dev_handle.port._check(dev_handle)

    def release_interface(self, dev_handle, intf):
        pass

    def bulk_write(self, dev_handle, ep, intf, data, timeout):
        if ep != EP_OUT:
            raise usb.core.USBError(f"Invalid parameter (endpoint {ep:#04x} is not bulk OUT)", -2,
                                    errno.EINVAL)
        return dev_handle.port.host_write(dev_handle, bytes(data))

    def bulk_read(self, dev_handle, ep, intf, buff, timeout):
        if ep != EP_IN:
            raise usb.core.USBError(f"Invalid parameter (endpoint {ep:#04x} is not bulk IN)", -2,
                                    errno.EINVAL)
        data = dev_handle.port.host_read(dev_handle, len(buff), timeout or 1000)
        buff[:len(data)] = type(buff)(buff.typecode, data)
        return len(data)

    def ctrl_transfer(self, dev_handle, bmRequestType, bRequest, wValue, wIndex, data, timeout):
        dev_handle.port._check(dev_handle)
        if bmRequestType == 0x80 and bRequest == GET_DESCRIPTOR and wValue >> 8 == DESC_STRING:
            desc = dev_handle.port.string_descriptor(wValue & 0xFF)[:len(data)]
            data[:len(desc)] = type(data)(data.typecode, desc)
            return len(desc)
        raise usb.core.USBError("Pipe error (request not supported)", -9, errno.EPIPE)

    def clear_halt(self, dev_handle, ep):
        dev_handle.port._check(dev_handle)

    def reset_device(self, dev_handle):
        dev_handle.port.drop()

    def is_kernel_driver_active(self, dev_handle, intf):
        return False

    def detach_kernel_driver(self, dev_handle, intf):
        pass

    def attach_kernel_driver(self, dev_handle, intf):
        pass
