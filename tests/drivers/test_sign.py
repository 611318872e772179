"""The Alpha sign as a real one behaves, and the driver's layout for a configured sign (issue 17):
its address, ACK/NAK turned on by the driver, the Serial Error Status Register in a NAK, STRING
files locked, values laid out for the sign's width and lines, a won jackpot shown as won."""

import pytest

from drivers.events import CommandFailed, DeviceOnline, SignShowing
from drivers.sign import RESPONSES, SignDriver, value_row
from drivers.wire import alpha
from drivers.wire.examples import SIGN_ADDRESS, SIGN_PACKETS
from simulators.devices.sign import SimulatedSign
from tests.drivers.fuzz_drivers import Loopback
from tests.support.devices import running

FAST = dict(ack_timeout=0.3, backoff=(0.05, 0.2))


class Wire:
    """A simulated sign's port in the test's hands: bytes in by ``step``, its answers kept."""

    url = "wire://sign"

    def __init__(self) -> None:
        self.out = bytearray()

    def write(self, data: bytes) -> None:
        self.out += data

    def read(self, timeout: float) -> bytes:
        return b""

    def close(self) -> None:
        pass


def sign_on_wire(**kwargs) -> tuple[SimulatedSign, Wire]:
    wire = Wire()
    return SimulatedSign(wire, **kwargs), wire


def answer(sign: SimulatedSign, wire: Wire, command: bytes, address: str = "01") -> bytes:
    wire.out.clear()
    sign.step(alpha.packet(command, address), 0.0)
    return bytes(wire.out)


def documented(label_start: str) -> bytes:
    return next(alpha.packet(cmd, SIGN_ADDRESS) for label, cmd in SIGN_PACKETS if label.startswith(label_start))


# --- the simulated sign is as strict as a real one -----------------------------------------------

def test_a_sign_answers_only_once_asked_to_and_only_packets_for_its_own_address():
    sign, wire = sign_on_wire(address="01")
    config = alpha.memory_config([alpha.FileEntry("M", "B", 16)])
    assert answer(sign, wire, config) == b""                       # at power-up it does not answer
    assert answer(sign, wire, alpha.set_responses(True)) == b"\x06"
    assert answer(sign, wire, config) == b"\x06"
    assert answer(sign, wire, alpha.write_string("M", "MEGA $1.00"), address="02") == b""   # another sign's
    assert sign.strings == {}
    assert answer(sign, wire, alpha.write_string("M", "MEGA $1.00"), address="00") == b""   # broadcast
    assert sign.strings == {} and "broadcast G refused" in sign.errors[-1]
    assert answer(sign, wire, alpha.write_string("M", "MEGA $1.00")) == b"\x06"
    assert sign.strings == {"M": b"MEGA $1.00"}
    assert answer(sign, wire, alpha.set_responses(False)) == b""
    assert answer(sign, wire, alpha.write_string("M", "MEGA $2.00")) == b""
    assert sign.strings == {"M": b"MEGA $2.00"}


def test_a_broadcast_is_acted_on_but_never_answered_while_responses_are_off():
    sign, wire = sign_on_wire(address="01")
    assert answer(sign, wire, alpha.memory_config([alpha.FileEntry("M", "B", 16)]), address="00") == b""
    assert "M" in sign.memory


def test_a_nak_carries_the_serial_error_status_register():
    sign, wire = sign_on_wire(address="01", acks=True)
    bad = bytearray(alpha.packet(alpha.set_responses(True), "01"))
    bad[-2] ^= 0x01                                                 # the checksum's last digit
    wire.out.clear()
    sign.step(bytes(bad), 0.0)
    assert bytes(wire.out) == b"\x15\x50"                           # bit 4 checksum, bit 6 always 1
    assert answer(sign, wire, alpha.write_string("Q", "x")) == b"\x15\x60"      # no such file: illegal
    assert answer(sign, wire, b"Z") == b"\x15\x60"                  # no such command
    unlocked = alpha.memory_config([alpha.FileEntry("M", "B", 16)]).replace(b"MBL", b"MBU")
    assert answer(sign, wire, unlocked) == b"\x15\x60"              # a STRING file must be locked
    assert answer(sign, wire, alpha.memory_config([alpha.FileEntry("M", "B", 4)])) == b"\x06"
    assert answer(sign, wire, alpha.write_string("M", "12345")) == b"\x15\x60"  # does not fit the file
    sign.nak_next = 1
    assert answer(sign, wire, alpha.write_string("M", "1234")) == b"\x15\x50"


# --- the driver ------------------------------------------------------------------------------------

def opened(**settings) -> SignDriver:
    drv = SignDriver("sign", Loopback(), lambda e: None, address=SIGN_ADDRESS, **settings)
    drv.connected = True
    drv.on_open(0.0)
    return drv


def ack_all(drv: SignDriver) -> list[bytes]:
    sent = []
    for _ in range(20):
        if drv._in_flight is None and not drv._queue:
            break
        sent.append(drv._in_flight[1] if drv._in_flight else b"")
        drv.on_bytes(b"\x06", 0.0)
    return sent


def test_the_driver_sends_the_documented_packets():
    """docs/protocols/examples.md shows what the driver sends, byte for byte."""
    drv = opened()
    assert drv.transport.writes[0] == documented("ACK/NAK responses on")
    ack_all(drv)
    drv.show_values(25_000_000, 5_000_000, 1_000_000)
    assert documented("STRING M = `MEGA $250,000.00`") in ack_all(drv)
    drv.show_values(25_000_000, 5_000_000, 1_000_000, won=("mega",))
    assert documented("STRING M = `MEGA WON`") in ack_all(drv)


def test_a_sign_that_answers_but_lacks_the_responses_function_is_taken_as_answering():
    events: list = []
    drv = SignDriver("sign", Loopback(), events.append, address="01")
    drv.connected = True
    drv.on_open(0.0)
    assert drv._in_flight is not None and drv._in_flight[0] == RESPONSES
    drv.on_bytes(b"\x15\x60", 0.0)                                  # illegal command: it does not know `s`
    assert isinstance(events[0], DeviceOnline) and drv._in_flight[0] == "memory configuration"


@pytest.mark.parametrize("address", ["00", None])
def test_a_driver_expecting_answers_refuses_broadcast(address):
    settings = {} if address is None else {"address": address}
    with pytest.raises(ValueError, match="'address': 00 is broadcast, which no sign answers"):
        SignDriver("sign", Loopback(), print, **settings)
    SignDriver("sign", Loopback(), print, acks=False, **settings)   # writing blind, it may broadcast


@pytest.mark.parametrize(("name", "cents", "width", "row"), [
    ("mega", 25_000_000, 16, "MEGA $250,000.00"),
    ("mega", 25_000_000, 20, "MEGA $250,000.00    "),
    ("mega", 100_000_000, 16, "MEGA $1,000,000 "),                 # whole dollars: the cents are 00
    ("mega", 100_000_001, 16, None),                               # never cut short
    ("minor", None, 12, "MINOR WON   "),
])
def test_a_value_row_fits_the_width_or_is_refused(name, cents, width, row):
    assert value_row(name, cents, width) == row


@pytest.mark.parametrize(("name", "width", "row"), [
    ("minor", 16, "MINOR PENDING   "),
    ("major", 12, "MAJOR PEND  "),                                 # the word, shortened to fit
])
def test_a_linked_level_won_on_the_floor_shows_pending(name, width, row):
    assert value_row(name, 250_000, width, pending=True) == row


@pytest.mark.parametrize(("lines", "pages"), [
    (1, [["mega"], ["major"], ["minor"]]),
    (2, [["mega", "major"], ["minor"]]),
    (3, [["mega", "major", "minor"]]),
    (4, [["mega", "major", "minor"]]),
])
def test_the_layout_fits_the_configured_lines_and_width(lines, pages):
    values = {"mega": 25_000_000, "major": 5_000_000, "minor": 1_000_000}
    with running(lambda p: SimulatedSign(p, address="2A"), "pty", "sign", "sign-alpha", address="2a",
                 width=17, lines=lines, **FAST) as (sign, drv, events):
        events.of(DeviceOnline)
        drv.show_values(**values)
        events.of(SignShowing, values=values)
        # value pages of `lines` rows, 17 characters each ("MEGA $250,000.00 "), then the message page
        assert sign.pages()[:-1] == [[value_row(name, values[name], 17) for name in page] for page in pages]
        drv.show_message("MINOR JACKPOT POSITION 1 $10,000.00, A MESSAGE WIDER THAN THE SIGN")
        events.of(SignShowing)
        assert sign.pages()[-1] == ["MINOR JACKPOT POSITION 1 $10,000.00, A MESSAGE WIDER THAN THE SIGN"]
        assert sign.errors == []


def test_a_won_jackpot_shows_won_until_its_new_value_is_posted():
    with running(lambda p: SimulatedSign(p), "tcp", "sign", "sign-alpha", address="01", **FAST) \
            as (sign, drv, events):
        events.of(DeviceOnline)
        drv.show_values(25_000_000, 5_000_000, 1_000_000, won=("major",))
        # (a SignShowing from the connection's first layout may come first under load: wait for this one)
        events.of(SignShowing, values={"mega": 25_000_000, "minor": 1_000_000})   # MAJOR not shown at a value
        assert sign.pages()[1] == ["MAJOR WON".ljust(20)] and "$50,000.00" not in sign.display()
        drv.show_values(25_000_000, 2_000_000, 1_000_000)
        events.of(SignShowing, values={"mega": 25_000_000, "major": 2_000_000, "minor": 1_000_000})
        assert sign.pages()[1] == ["MAJOR $20,000.00".ljust(20)]


def test_a_pending_level_is_not_reported_as_shown_until_its_new_value_is():
    with running(lambda p: SimulatedSign(p), "tcp", "sign", "sign-alpha", address="01", **FAST) \
            as (sign, drv, events):
        events.of(DeviceOnline)
        drv.show_values(25_000_000, 5_000_000, 1_000_000, pending=("minor",))
        events.of(SignShowing, values={"mega": 25_000_000, "major": 5_000_000})   # MINOR at no value
        assert sign.pages()[2] == ["MINOR PENDING".ljust(20)] and "$10,000.00" not in sign.display()
        drv.show_values(25_000_000, 5_000_000, 800_000)
        events.of(SignShowing, values={"mega": 25_000_000, "major": 5_000_000, "minor": 800_000})
        assert sign.pages()[2] == ["MINOR $8,000.00".ljust(20)]


def test_a_value_too_wide_for_the_sign_is_reported_and_never_shown_cut():
    with running(lambda p: SimulatedSign(p), "tcp", "sign", "sign-alpha", address="01", width=12, **FAST) \
            as (sign, drv, events):
        events.of(DeviceOnline)
        drv.show_values(25_000_000, 5_000, 1_000)
        failed = events.of(CommandFailed)
        assert "MEGA $250,000.00 cannot be shown whole on a 12-character line" in failed.reason
        shown = events.of(SignShowing)
        assert "mega" not in shown.values
        assert sign.pages()[0] == ["MEGA".ljust(12)]


def test_the_default_width_shows_a_seven_figure_mega_with_its_cents():
    """Issue 33 item 18: at the old default width 16, "MEGA $1,234,567.89" could not be shown whole, so
    a table with the default sign closed Super 6 once its MEGA passed $99,999.99 with cents. The
    default (20) shows every level up to $99,999,999.99 with its cents; a wider value still closes it."""
    import inspect

    from drivers.registry import DRIVERS
    from drivers.sign import SignDriver, value_row
    width = DRIVERS["sign-alpha"].settings["width"].default
    assert width == inspect.signature(SignDriver.__init__).parameters["width"].default == 20
    assert value_row("mega", 123_456_789, width) == "MEGA $1,234,567.89  "
    assert value_row("major", 9_999_999_999, width) == "MAJOR $99,999,999.99"
    assert value_row("mega", 123_456_789, 16) is None              # the old default could not
