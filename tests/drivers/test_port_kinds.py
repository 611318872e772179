"""What a technician meets when a device is not on the port its url names (no serial port, another
device, a device that takes no Hello): told in words, the driver going on."""

from __future__ import annotations

import pytest

from controller.page.i18n import Words
from drivers import registry
from drivers.events import DeviceFault, DeviceOffline, DeviceOnline
from drivers.transport import SerialTransport, TransportError
from drivers.wire import alpha
from simulators.devices.framed import PortDevice
from simulators.devices.ports import PtyPort
from simulators.devices.sensors import SimulatedSensors
from simulators.devices.sign import SimulatedSign
from tests.support.devices import Events, running

FAST = dict(heartbeat_every=0.2, silence_after=0.8, backoff=(0.05, 0.2))


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


def test_the_signs_port_given_to_the_sensors_is_told_as_no_answer_since_it_opened():
    """The sensors' driver on the sign's line: the Alpha sign never reads a framed Hello. It was told as
    'silent for 0.8 s (heartbeat timeout)', the words of a device that went quiet, for a port on which
    nothing speaking the protocol had ever answered."""
    with running(lambda p: SimulatedSign(p), "pty", "sensors", "sensors-framed", **FAST) as (_, drv, events):
        offline = events.of(DeviceOffline)
        assert offline.reason.startswith("no answer in 0.8 s since its port was opened: check that the url is "
                                         "this device's port"), offline.reason
        assert offline.reason.endswith("its cable, its power and its pairing key")
        assert "heartbeat" not in offline.reason and drv.running
    spanish = Words("es").text(f"The bet sensors are not answering: {offline.reason}")
    assert spanish is not None and "desde que se abrió su puerto" in spanish


def test_a_device_that_answered_and_went_quiet_is_still_silent_for_its_heartbeats():
    with running(lambda p: SimulatedSensors(p, heartbeat_every=0.2), "pty", "sensors", "sensors-framed",
                 **FAST) as (device, _, events):
        events.of(DeviceOnline)
        device.silent = True
        assert "(heartbeat timeout)" in events.of(DeviceOffline).reason


def test_a_device_heard_that_takes_no_hello_is_told_to_check_the_pairing():
    """A paired device still in its session (the controller restarted with the key_file line lost) keeps
    sending, and refuses the keyless host's plain Hello: its frames kept the link alive, so the driver
    never went offline (it was never online) and the page said 'not connected yet' for good, with no
    alert and only an info line per Hello in the log."""
    with running(lambda p: SimulatedSensors(p, heartbeat_every=0.2), "pty", "sensors", "sensors-framed",
                 **FAST) as (_, paired, events):
        events.of(DeviceOnline)
        paired.stop()                               # the device keeps its session and its heartbeats
        keyless = Events()
        drv = registry.build("sensors", "sensors-framed", paired.url, keyless.post,
                             transport_settings=dict(PtyPort.LINE), **FAST)
        drv.start()
        try:
            offline = keyless.of(DeviceOffline)
            assert offline.reason.startswith("heard, but it takes no Hello (4 sends unacknowledged): check that "
                                             "it holds the pairing key of key_file"), offline.reason
            assert not drv.online and drv.running
        finally:
            drv.stop()
    spanish = Words("es").text(f"The bet sensors are not answering: {offline.reason}")
    assert spanish is not None and "clave de emparejamiento de key_file" in spanish


class FramedChatter(PortDevice):
    """Another device on the sign's line: it answers every packet with a frame of its own protocol, whose
    bytes (a sequence number, a MAC) hold 06 as often as any other value."""

    def step(self, data: bytes, now: float) -> None:
        if data:
            self.port.write(b"\x00\x08\x01\x06\x33\x06\x9f\x00")


def test_another_devices_frames_on_the_signs_line_are_no_sign():
    """A 06 inside another device's frame was taken for the sign's ACK: with the sign's url on the
    sensors' line the page showed the jackpot sign online, and the posted values as shown on it."""
    with running(FramedChatter, "pty", "sign", "sign-alpha", address="01", ack_timeout=0.2, max_attempts=2,
                 backoff=(0.05, 0.2)) as (_, drv, events):
        fault = events.of(DeviceFault)
        assert fault.reason.startswith("bytes no Alpha sign sends on the sign's line (another device on this "
                                       "port, or a line that is not the sign's (9600 7E1 unless configured))")
        offline = events.of(DeviceOffline)
        assert offline.reason.startswith("no sign's answer within 0.2 s, only bytes no Alpha sign sends")
        assert not drv.online and not any(isinstance(e, DeviceOnline) for e in events.seen)
    spanish = Words("es").text(f"The jackpot sign is not answering: {offline.reason}")
    assert spanish is not None and "ningún panel Alpha envía" in spanish


def test_a_sign_that_follows_its_ack_with_its_status_is_still_a_sign():
    decoder = alpha.ResponseDecoder()
    assert decoder.feed(b"\x06\x40\x15\x50\x06\x40") == [alpha.SignAck(), alpha.SignNak(0x50), alpha.SignAck()]
    assert decoder.foreign == 0
    decoder.feed(b"\x00\x08\x06\x33")          # 00 and 08 are no status; 33 after an ACK has no bit 6
    assert decoder.foreign == 3


def test_a_port_another_program_has_open_is_refused_in_words():
    """A terminal program a technician left on the sensors' port (or a second controller) took half
    of each stream and no-one was told: the port is opened exclusively, and the second opener is
    told who to look for; once the first lets go, it opens."""
    port = PtyPort()
    first = SerialTransport("sensors", port.path, **PtyPort.LINE)
    first.open()
    try:
        with pytest.raises(TransportError) as err:
            SerialTransport("sensors", port.path, **PtyPort.LINE).open()
        assert str(err.value) == (f"sensors: cannot open {port.path}: another program has it open (a terminal "
                                  "program, a second controller?): close it, and the table connects by itself")
        assert Words("es").text(f"The bet sensors are not answering: {err.value}") == (
            f"Los sensores de apuestas no responden: sensores: no se puede abrir {port.path}: otro programa lo tiene "
            "abierto (¿un programa de terminal, un segundo controlador?): ciérrelo y la mesa se conecta sola")
    finally:
        first.close()
    again = SerialTransport("sensors", port.path, **PtyPort.LINE)
    again.open()
    again.close()
    port.close()



def test_the_port_is_the_terminals_alone_while_the_table_has_it():
    """The flock binds only programs that lock too (picocom; not cat, screen or minicom's default): the
    terminal's exclusive mode (TIOCEXCL) refuses every other user's open with EBUSY while the table has
    the port, and is gone once it closes it. Read back with TIOCGEXCL (Linux 3.8 and later)."""
    import array
    import fcntl
    tiocgexcl = getattr(__import__("termios"), "TIOCGEXCL", 0x80045440)

    def exclusive(fd: int) -> bool:
        flag = array.array("i", [0])
        fcntl.ioctl(fd, tiocgexcl, flag, True)
        return bool(flag[0])
    port = PtyPort()
    transport = SerialTransport("sensors", port.path, **PtyPort.LINE)
    transport.open()
    try:
        assert exclusive(transport._require().fileno())
    finally:
        transport.close()
    import os
    fd = os.open(port.path, os.O_RDWR | os.O_NOCTTY)           # free again: anyone may open it
    try:
        assert not exclusive(fd)
    finally:
        os.close(fd)
        port.close()
