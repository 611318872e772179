"""The USB transport through pyusb against the simulated bus: finding, choosing and losing a shoe."""

import pytest
import usb.core
import usb.util

from drivers import registry
from drivers.events import DeviceOffline, DeviceOnline, ShoeCount
from drivers.transport import TransportError, UsbTransport
from simulators.devices.shoe import SimulatedShoe
from simulators.devices.usb import SimulatedUsbBus, UsbPort
from tests.support.devices import Events

FAST = dict(heartbeat_every=0.2, silence_after=0.8, backoff=(0.05, 0.2))


def test_pyusb_sees_the_gadget_as_a_real_device():
    port = UsbPort(vendor=0x1209, product=0x0001, serial="SHOE-77")
    dev = usb.core.find(idVendor=0x1209, idProduct=0x0001, backend=port.backend)
    assert (dev.serial_number, dev.product) == ("SHOE-77", "Simulated card shoe")
    dev.set_configuration()
    intf = dev.get_active_configuration()[(0, 0)]
    kinds = {(usb.util.endpoint_direction(e.bEndpointAddress), usb.util.endpoint_type(e.bmAttributes))
             for e in intf}
    assert kinds == {(usb.util.ENDPOINT_IN, usb.util.ENDPOINT_TYPE_BULK),
                     (usb.util.ENDPOINT_OUT, usb.util.ENDPOINT_TYPE_BULK)}


def test_transport_moves_bytes_both_ways_in_packets():
    port = UsbPort()
    t = UsbTransport("shoe", port.url, backend=port.backend)
    t.open()
    t.write(b"\x00abc\x00")
    assert port.read(0.5) == b"\x00abc\x00"
    port.write(bytes(100))
    assert [len(t.read()), len(t.read()), t.read()] == [64, 36, b""]      # 64-byte bulk packets
    t.close()


def test_serial_number_chooses_between_two_shoes():
    bus = SimulatedUsbBus()
    a = UsbPort(serial="A1", backend=bus)
    b = UsbPort(serial="B2", backend=bus)
    t = UsbTransport("shoe", "usb://1209:0001/B2", backend=bus)
    t.open()
    t.write(b"x")
    assert b.read(0.5) == b"x" and a.read(0.05) == b""
    with pytest.raises(TransportError, match="shoe: 2 devices match usb://1209:0001; add the serial"):
        UsbTransport("shoe", "usb://1209:0001", backend=bus).open()


@pytest.mark.parametrize("url, message", [
    ("usb://1209:0002", "shoe: no USB device usb://1209:0002 attached"),
    ("usb://1209:0001/NOPE", "shoe: no USB device usb://1209:0001/NOPE attached"),
])
def test_absent_device_is_named(url, message):
    bus = SimulatedUsbBus()
    UsbPort(backend=bus)
    with pytest.raises(TransportError, match=message):
        UsbTransport("shoe", url, backend=bus).open()


def test_malformed_usb_url_is_refused():
    with pytest.raises(TransportError, match=r"shoe: 'usb://12:34' is not usb://VID:PID\[/SERIAL\]"):
        UsbTransport("shoe", "usb://12:34")


def test_unplugged_shoe_goes_offline_and_returns_when_plugged_back():
    port = UsbPort()
    device = SimulatedShoe(port, heartbeat_every=0.2).start()
    events = Events()
    drv = registry.build("shoe", "shoe-framed", port.url, events.post,
                         transport_settings={"backend": port.backend}, **FAST)
    drv.start()
    try:
        events.of(DeviceOnline)
        port.unplug()
        offline = events.of(DeviceOffline)
        assert "No such device" in offline.reason and offline.url == port.url
        port.plug()
        events.of(DeviceOnline)
        drv.request_status()
        assert events.of(ShoeCount).ready
    finally:
        drv.stop()
        device.stop()
