"""What a technician meets when a device's url names no serial port: told what it is, in words."""

from __future__ import annotations

import pytest

from drivers import registry
from drivers.events import DeviceOffline
from drivers.transport import SerialTransport, TransportError
from tests.support.devices import Events


@pytest.mark.parametrize("kind", ["/dev/null", "a file"])
def test_a_url_that_is_no_serial_port_is_said_to_be_none(tmp_path, kind):
    """/dev/null or a file (a mistyped url) was reported as 'this port cannot be set to 115200 8N1 ...:
    a pseudo-terminal or an adapter without that framing; set baudrate, bytesize, parity and stopbits',
    sending the technician after line settings that cannot help."""
    path = "/dev/null"
    if kind == "a file":
        path = str(tmp_path / "table-sensors")
        (tmp_path / "table-sensors").write_text("not a port\n")
    with pytest.raises(TransportError) as err:
        SerialTransport("sensors", path).open()
    said = str(err.value)
    assert said.startswith(f"sensors: cannot open {path}: it is not a serial port (")
    assert "give the sensors' serial port as url in [devices.sensors]" in said
    assert "baudrate" not in said and "framing" not in said


def test_the_table_is_told_so_and_the_driver_goes_on():
    events = Events()
    drv = registry.build("shoe", "shoe-framed", "/dev/null", events.post, backoff=(0.01, 0.02))
    drv.start()
    try:
        offline = events.of(DeviceOffline)
        assert "it is not a serial port" in offline.reason and "the shoe's serial port" in offline.reason
        assert drv.running
    finally:
        drv.stop()
