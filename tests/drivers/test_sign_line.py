"""The sign's serial line and addressing as the Alpha protocol has them (issue 33 item 18): the
default 9600 7E1 exercised end to end on a port that accepts it (pyserial's loop://, opened by the
real transport at the registry's defaults), every byte the driver writes 7-bit clean, a port that
cannot be set to 7E1 reported once per outage in words, the wildcard address refused where it is
given and taken by the simulated sign as a broadcast, an ACK followed by the status register."""

import os
import time
import tty

import pytest
import structlog

from drivers import registry
from drivers.events import DeviceFault, DeviceOffline, DeviceOnline, SignShowing
from drivers.sign import SignDriver
from drivers.transport import SerialTransport, TransportError
from drivers.wire import alpha
from simulators.devices.sign import SimulatedSign
from tests.drivers.test_sign import answer, sign_on_wire
from tests.support.devices import Events, running

FAST = dict(ack_timeout=0.3, backoff=(0.05, 0.2))
VALUES = {"mega": 123_456_789, "major": 5_000_000, "minor": 1_000_050}


class SevenBitLine:
    """The sign's side of a 7E1 line, around the driver's real transport: every byte the driver
    writes must fit in 7 data bits (the eighth is the parity bit a UART adds, never data); the sign
    receives what a 7-bit line carries, and its answers are written into the real port (loop://
    opened at the registry's 9600 7E1), where the driver's thread reads them."""

    def __init__(self, transport: SerialTransport) -> None:
        self.real = transport
        self.url = transport.url
        self.written = bytearray()
        self.sign = SimulatedSign(self, address="01")

    def open(self) -> None:
        self.real.open()

    def read(self) -> bytes:
        return self.real.read()

    def write(self, data: bytes) -> None:          # the driver's bytes, onto the line
        self.written += data
        with self.sign.lock:
            self.sign.step(bytes(b & 0x7F for b in data), time.monotonic())

    def close(self) -> None:
        self.real.close()

    def write_answer(self, data: bytes) -> None:   # the sign's bytes, back to the driver
        self.real.write(data)


class _SignSide:
    """The simulated sign's port: its answers go back through the line."""

    def __init__(self, line: SevenBitLine) -> None:
        self.line, self.url = line, line.url

    def write(self, data: bytes) -> None:
        self.line.write_answer(data)

    def read(self, timeout: float) -> bytes:
        return b""

    def close(self) -> None:
        pass


def test_the_default_line_is_9600_7e1_and_every_byte_the_driver_writes_is_7_bit():
    events = Events()
    drv = registry.build("sign", "sign-alpha", "loop://", events.post, address="01", **FAST)
    assert drv.transport.framing() == "9600 7E1"                   # nothing configured: the protocol's line
    line = SevenBitLine(drv.transport)
    line.sign.port = _SignSide(line)
    drv.transport = line
    drv.start()
    try:
        events.of(DeviceOnline)
        port = line.real._port
        assert (port.baudrate, port.bytesize, port.parity, port.stopbits) == (9600, 7, "E", 1)
        drv.show_values(**VALUES)
        drv.show_message("MEGA JACKPOT POSITION 3 $1,234,567.89")
        events.of(SignShowing, values=VALUES, message="MEGA JACKPOT POSITION 3 $1,234,567.89")
        assert line.written and max(line.written) < 0x80            # 7-bit clean: nothing lost to the line
        assert line.sign.pages() == [["MEGA $1,234,567.89".ljust(20)], ["MAJOR $50,000.00".ljust(20)],
                                     ["MINOR $10,000.50".ljust(20)], ["MEGA JACKPOT POSITION 3 $1,234,567.89"]]
        assert line.sign.errors == []
    finally:
        drv.stop()


def refusing_pty() -> tuple[str, list[int]]:
    """A pseudo-terminal as the simulators make one, which Linux lets be set to 7E1 once, then
    refuses (EINVAL) at every later open asked for 7E1."""
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    first = SerialTransport("sign", path, baudrate=9600, bytesize=7, parity="E", stopbits=1)
    first.open()
    first.close()
    return path, [master, slave]


def test_a_port_that_cannot_be_set_to_7e1_is_reported_once_per_outage_in_words():
    path, fds = refusing_pty()
    try:
        transport = SerialTransport("sign", path, baudrate=9600, bytesize=7, parity="E", stopbits=1)
        try:
            transport.open()
        except TransportError as err:
            said = str(err)
        else:
            transport.close()
            pytest.skip("this kernel's pseudo-terminals take 7E1 at every open")
        assert f"sign: cannot open {path}: this port cannot be set to 9600 7E1 (" in said
        assert "[devices.sign]" in said
        events = Events()
        drv = registry.build("sign", "sign-alpha", path, events.post, address="01", ack_timeout=0.3,
                             backoff=(0.01, 0.02))
        with structlog.testing.capture_logs() as logs:
            drv.start()
            offline = events.of(DeviceOffline)
            time.sleep(0.5)                                         # some 25 more attempts to open it
            drv.stop()
        assert "this port cannot be set to 9600 7E1" in offline.reason
        later = []
        while not events.q.empty():
            later.append(events.q.get())
        assert [e for e in later if isinstance(e, DeviceOffline | DeviceFault)] == []   # once per outage
        assert [entry["event"] for entry in logs if entry["log_level"] in ("warning", "error", "critical")] \
            == ["device.offline"]                                   # no traceback every 10 s
    finally:
        for fd in fds:
            os.close(fd)


# --- the wildcard address ------------------------------------------------------------------------

@pytest.mark.parametrize(("sent", "own", "reaches"), [
    ("1A", "1A", True), ("1?", "1A", True), ("?A", "1A", True), ("??", "1A", True),
    ("2?", "1A", False), ("?B", "1A", False), ("1b", "1B", True), ("00", "1A", False),
])
def test_a_wildcard_reaches_every_sign_it_matches(sent, own, reaches):
    assert alpha.address_matches(sent, own) is reaches


@pytest.mark.parametrize("address", ["??", "1?", "?1"])
def test_the_host_never_writes_to_a_wildcard(address):
    with pytest.raises(alpha.AlphaEncodeError, match="wildcard"):
        alpha.packet(alpha.set_responses(True), address)
    with pytest.raises(ValueError, match="sign driver setting 'address'.*wildcard"):
        SignDriver("sign", None, print, address=address)
    problem = registry.DRIVERS["sign-alpha"].settings["address"].problem(address)
    assert problem is not None and "wildcard" in problem


def wildcard_packet(command: bytes, address: str) -> bytes:
    """A packet to a wildcard address, as another host on the line could send one."""
    block = bytes((alpha.STX,)) + command + bytes((alpha.ETX,))
    return bytes(5) + b"\x01Z" + address.encode() + block + alpha.checksum(block) + b"\x04"


def test_a_sign_acts_on_a_wildcard_that_matches_it_as_on_a_broadcast():
    sign, wire = sign_on_wire(address="1A")
    config = alpha.memory_config([alpha.FileEntry("M", "B", 16)])
    sign.step(wildcard_packet(config, "2?"), 0.0)
    assert sign.memory == {}                                        # not its address
    sign.step(wildcard_packet(config, "1?"), 0.0)
    assert "M" in sign.memory and bytes(wire.out) == b""            # acted on, answered by none
    assert answer(sign, wire, alpha.set_responses(True), address="1A") == b"\x06"
    sign.step(wildcard_packet(alpha.write_string("M", "MEGA $1.00"), "??"), 0.0)
    assert sign.strings == {} and "wildcard ?? G refused" in sign.errors[-1]   # addressed mode


# --- an ACK followed by the status register ---------------------------------------------------------

def test_an_ack_followed_by_the_status_register_is_one_ack():
    decoder = alpha.ResponseDecoder()
    assert decoder.feed(b"\x06\x40\x15\x50\x06\x40") == [alpha.SignAck(), alpha.SignNak(0x50), alpha.SignAck()]
    assert decoder.ignored == 2                                     # a status byte has bit 6: never 06 or 15


def test_the_driver_runs_a_sign_that_follows_each_ack_with_its_status():
    with running(lambda p: SimulatedSign(p, address="01", status_after_ack=True), "tcp", "sign", "sign-alpha",
                 address="01", **FAST) as (sign, drv, events):
        events.of(DeviceOnline)
        drv.show_values(**VALUES)
        events.of(SignShowing, values=VALUES)
        assert sign.pages()[0] == ["MEGA $1,234,567.89".ljust(20)] and sign.errors == []
