"""Table configuration: the example loads, and every bad file is refused naming key and line."""

import pytest

from controller.app.config import ConfigError, default_config, parse_config
from tests.support import ROOT

GOOD = """\
[table]
id = "T7"
preset = "sheet-002"
positions = 7

[devices.shoe]
driver = "shoe-framed"
url = "usb://1209:0001/SHOE7"

[devices.sensors]
driver = "sensors-framed"
url = "/dev/table-sensors"
baudrate = 57600

[devices.sign]
driver = "sign-alpha"
url = "socket://10.0.0.9:7000"
acks = false
"""


def test_a_good_file_and_the_embedded_default_load():
    config = parse_config(GOOD, "t7.toml")
    assert (config.table_id, config.positions, config.preset.name) == ("T7", 7, "sheet-002")
    assert config.devices["sensors"].transport == {"baudrate": 57600}
    assert config.devices["sign"].settings == {"acks": False}
    assert default_config().preset.name == "sheet-004"
    assert parse_config(GOOD, "a").digest == parse_config(GOOD, "b").digest
    assert parse_config(GOOD.replace("positions = 7", "positions = 6"), "a").digest != config.digest


@pytest.mark.parametrize("change, message", [
    (("positions = 7", "positions = 7\nseats = 3"), "t.toml, line 5: key 'table.seats': unknown key"),
    (('preset = "sheet-002"', 'preset = "sheet-009"'), "line 3: key 'table.preset': preset 'sheet-009': unknown"),
    (('url = "/dev/table-sensors"', 'url = "COM3"'), "line 12: key 'devices.sensors.url': 'COM3' is not a device URL"),
    (('url = "/dev/table-sensors"', 'url = "usb://1209:0002"'), "only the shoe attaches by USB"),
    (('driver = "sign-alpha"', 'driver = "sign-x"'),
     "line 16: key 'devices.sign.driver': 'sign-x' is not a sign driver"),
    (("baudrate = 57600", 'baudrate = "fast"'), "key 'devices.sensors.baudrate': wrong type str"),
    (("acks = false", "ack = false"), "line 18: key 'devices.sign.ack': unknown key"),
    (("positions = 7", "positions = 12"), "key 'table.positions': must be a whole number from 1 to 9"),
    (('[devices.sign]', '[devices.signs]'), "key 'devices.signs': unknown key"),
    (("[table]", "[tabel]"), "key 'tabel': unknown section"),
    (("positions = 7", "positions = 7\n["), "t.toml, line 5: not valid TOML"),
    (("positions = 7", "positions = 7\nid = \"T8\""),
     "t.toml, line 5: key 'table.id': duplicate key (first given on line 2)"),
])
def test_bad_files_are_refused_naming_key_and_line(change, message):
    with pytest.raises(ConfigError) as err:
        parse_config(GOOD.replace(*change), "t.toml")
    assert message in str(err.value)


def test_a_jackpot_preset_needs_its_opening_values():
    with pytest.raises(ConfigError, match="key 'jackpot.mega': missing: preset sheet-004 pays a MEGA"):
        parse_config(GOOD.replace('"sheet-002"', '"sheet-004"'), "t.toml")
    text = GOOD.replace('"sheet-002"', '"sheet-004"') + "[jackpot]\nmega = 100\nmajor = 200\nminor = 50\n"
    with pytest.raises(ConfigError, match="MEGA >= MAJOR >= MINOR"):
        parse_config(text, "t.toml")


def test_the_deployed_example_configuration_loads():

    from controller.app.config import load_config
    config = load_config(ROOT / "deploy" / "table.example.toml")
    assert config.table_id == "TCP-07" and config.devices["sign"].transport == {}     # 9600 7E1, the default
    assert config.devices["sign"].settings["address"] == "01"
    assert config.page_port == 8080 and config.jackpots["mega"] == 10_000_000


def _broken(*changes):
    text = GOOD
    for old, new in changes:
        assert old in text
        text = text.replace(old, new, 1)
    return text


def test_every_problem_of_a_file_is_reported_with_its_key_and_line():
    """The checker once stopped at the first problem: a technician fixed a file one run at a time."""
    text = _broken(("positions = 7", "positions = 12\nseats = 3"),
                   ('url = "/dev/table-sensors"', 'url = "COM3"'),
                   ("acks = false", "ack = false"),
                   ("[devices.shoe]", '[log]\nformat = "xml"\n\n[page]\nport = 99999\nallow = ["127.0.0.0/8", "x"]\n\n'
                                      "[colour]\nname = 1\n\n[devices.shoe]"))
    with pytest.raises(ConfigError) as err:
        parse_config(text, "t.toml")
    lines = text.splitlines()

    def line_of(fragment):
        return next(i for i, line in enumerate(lines, 1) if fragment in line)
    assert str(err.value).splitlines() == [
        f"t.toml, line {line_of('[colour]')}: key 'colour': unknown section "
        "(sections: table, jackpot, data, log, page, gaming_day, devices, floor)",
        f"t.toml, line {line_of('seats = 3')}: key 'table.seats': unknown key (allowed: hand_timeout, id, "
        "one_player_two_positions, paytable, positions, preset)",
        f"t.toml, line {line_of('positions = 12')}: key 'table.positions': must be a whole number from 1 to 9, not 12",
        f"t.toml, line {line_of('format = ')}: key 'log.format': must be \"json\" or \"console\", not 'xml'",
        f"t.toml, line {line_of('port = 99999')}: key 'page.port': must be a port number 1-65535, not 99999",
        f"t.toml, line {line_of('allow = ')}: key 'page.allow[1]': 'x' is not an address range "
        "(such as \"10.1.2.0/24\" or \"10.1.2.3\")",
        f"t.toml, line {line_of('COM3')}: key 'devices.sensors.url': 'COM3' is not a device URL (/dev/..., "
        "socket://HOST:PORT, rfc2217://HOST:PORT, loop://, spy://..., usb://VID:PID[/SERIAL])",
        f"t.toml, line {line_of('ack = false')}: key 'devices.sign.ack': unknown key (allowed: ack_timeout, acks, "
        "address, baudrate, bytesize, driver, heartbeat_every, lines, max_attempts, parity, stopbits, timeout, "
        "url, width)",
        f"t.toml, line {line_of('[devices.sign]')}: key 'devices.sign.address': missing: with acks on (the default) "
        "give the sign's own address, 01 to FF, as set in its set-up menu",
    ]


def test_a_problem_that_stops_a_part_of_the_check_reports_no_echoes():
    # an unknown driver: its settings cannot be checked, so they are not reported as unknown keys
    with pytest.raises(ConfigError) as err:
        parse_config(_broken(('driver = "sign-alpha"', 'driver = "sign-x"')), "t.toml")
    assert str(err.value).splitlines() == [
        "t.toml, line 16: key 'devices.sign.driver': 'sign-x' is not a sign driver (sign-alpha)"]
    # an unknown preset: the jackpots it would need are not asked for
    with pytest.raises(ConfigError) as err:
        parse_config(_broken(('preset = "sheet-002"', 'preset = "sheet-009"'), ("positions = 7", "positions = 0")),
                     "t.toml")
    assert [line.split(": key ")[1].split("'")[1] for line in str(err.value).splitlines()] == \
        ["table.preset", "table.positions"]


def test_config_check_prints_every_problem_one_per_line(tmp_path, capsys):
    from controller.cli import main
    path = tmp_path / "t.toml"
    path.write_text(_broken(("positions = 7", "positions = 12\nseats = 3"), ("acks = false", "ack = false")))
    assert main(["config", "check", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        f"table-controller: {path}, line 5: key 'table.seats': unknown key (allowed: hand_timeout, id, "
        "one_player_two_positions, paytable, positions, preset)",
        f"table-controller: {path}, line 4: key 'table.positions': must be a whole number from 1 to 9, not 12",
        f"table-controller: {path}, line 19: key 'devices.sign.ack': unknown key (allowed: ack_timeout, acks, "
        "address, baudrate, bytesize, driver, heartbeat_every, lines, max_attempts, parity, stopbits, timeout, "
        "url, width)",
        f"table-controller: {path}, line 16: key 'devices.sign.address': missing: with acks on (the default) "
        "give the sign's own address, 01 to FF, as set in its set-up menu"]


def test_the_settings_a_relation_reads_default_as_the_drivers_do():
    """The relations between a device's settings read a key the file leaves out at the driver's
    default: the declaration must say what the driver's signature says."""
    import inspect

    from drivers import registry
    from drivers.framed import FramedDriver
    from drivers.sign import SignDriver
    from drivers.transport import SerialTransport

    def defaults(fn):
        return {name: p.default for name, p in inspect.signature(fn).parameters.items()
                if p.default is not inspect.Parameter.empty}
    for settings, fn in [(registry.LINK_SETTINGS, FramedDriver.__init__),
                         (registry.DRIVERS["sign-alpha"].settings, SignDriver.__init__),
                         (registry.SERIAL_SETTINGS, SerialTransport.__init__)]:
        declared = {name: s.default for name, s in settings.items() if s.default is not None}
        assert declared and declared.items() <= defaults(fn).items(), (declared, defaults(fn))


def test_a_pairing_key_file_is_checked_with_the_configuration(tmp_path):
    from drivers import registry
    good, short = tmp_path / "good.key", tmp_path / "short.key"
    good.write_text("ab" * 32 + "\n")
    short.write_text("ab" * 31)
    assert registry.relation_problems("shoe-framed", {"key_file": str(good)}) == {}
    assert registry.relation_problems("sensors-framed", {"key_file": str(short)}) == {
        "key_file": f"key file {short}: 31 bytes, not 32 (64 hexadecimal digits)"}
    assert "cannot be read" in registry.relation_problems("shoe-framed", {"key_file": str(tmp_path / "x")})["key_file"]


@pytest.mark.parametrize("settings, problems", [
    ({}, {}),
    ({"heartbeat_every": 0.1, "silence_after": 0.6}, {}),                # the test rig's fast devices
    ({"heartbeat_every": 2.0}, {"heartbeat_every": "silence_after (3 s, its default) must be at least twice"}),
    ({"silence_after": 1.0, "retransmit_after": 0.5}, {"silence_after": "at least twice heartbeat_every (1 s, its"}),
    ({"retransmit_after": 4.0, "silence_after": 4.0}, {"retransmit_after": "must be below silence_after (4 s)"}),
    ({"timeout": 0}, {"timeout": "is not above 0"}),
    ({"retransmit_after": 0.1}, {"retransmit_after": "must be above the device's ACK deadline (0.1 s"}),
    ({"heartbeat_every": 0.05, "silence_after": 0.3, "timeout": 0.1}, {"timeout": "must be at most heartbeat_every"}),
])
def test_a_framed_links_timers_hold_together(settings, problems):
    from drivers import registry
    found = registry.relation_problems("shoe-framed", settings)
    assert set(found) == set(problems) and all(problems[k] in found[k] for k in problems), found
    assert registry.relation_problems("sign-alpha", {"ack_timeout": 0.01, "address": "01"}) == {
        "ack_timeout": "timeout (0.05 s, its default) must be at most ack_timeout (0.01 s): "
                       "the driver runs its timers between reads"}
    assert registry.relation_problems("sign-alpha", {"ack_timeout": 0.01, "acks": False}) == {}


def test_a_socket_url_names_a_host_and_a_port():
    good = ["socket://10.0.0.9:7000", "socket://sign-1.casino.lan:7000", "rfc2217://localhost:2217?logging=debug",
            "socket://10.0.0.9:1", "socket://10.0.0.9:65535/x"]
    for url in good:
        assert parse_config(_broken(('url = "socket://10.0.0.9:7000"', f'url = "{url}"')), "t.toml")
    for url, problem in [("socket://10.0.0.256:7000", "neither an IPv4 address nor a host name"),
                         ("socket://1.2.3:7000", "neither an IPv4"), ("socket://a_b:7000", "neither"),
                         ("socket://10.0.0.9:65536", "port 65536 is not a port number 1-65535"),
                         ("rfc2217://10.0.0.9:00000", "port 0 is not"), ("socket://10.0.0.9:7000x", "not SCHEME")]:
        with pytest.raises(ConfigError, match=f"line 17: key 'devices.sign.url': .*{problem}"):
            parse_config(_broken(('url = "socket://10.0.0.9:7000"', f'url = "{url}"')), "t.toml")


def test_config_check_refuses_a_sign_address_that_is_not_two_hex_digits(tmp_path, capsys):
    """Issue 16: address "ZZ" passed the check, then killed the sign driver at run time."""
    from controller.cli import main
    path = tmp_path / "t.toml"
    path.write_text(_broken(("acks = false", 'acks = false\naddress = "ZZ"')))
    assert main(["config", "check", str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"table-controller: {path}, line 19: key 'devices.sign.address': 'ZZ' is not the sign's own address, "
        "two hex digits (not the wildcard '?', which reaches every sign it matches)"]
    path.write_text(_broken(("acks = false", 'acks = false\naddress = "??"')))     # the protocol's wildcard
    assert main(["config", "check", str(path)]) == 2
    assert "'??' is not the sign's own address" in capsys.readouterr().err
    path.write_text(_broken(("acks = false", 'acks = false\naddress = "1f"')))
    assert main(["config", "check", str(path)]) == 0


@pytest.mark.parametrize(("sign", "problem"), [
    ("acks = true", "line 15: key 'devices.sign.address': missing: with acks on (the default) give the sign's "
                    "own address, 01 to FF, as set in its set-up menu"),
    ('acks = true\naddress = "00"', "line 19: key 'devices.sign.address': '00' is broadcast, which no sign "
                                    "answers: with acks on give the sign's own address, 01 to FF"),
    ("acks = false\nwidth = 11", "line 19: key 'devices.sign.width': 11 is below 12"),
    ("acks = false\nlines = 9", "line 19: key 'devices.sign.lines': 9 is above 8"),
])
def test_a_sign_expected_to_answer_has_its_own_address_and_a_size(sign, problem):
    """Issue 17: every sign on a shared line answered the controller's broadcasts (address 00)."""
    with pytest.raises(ConfigError) as err:
        parse_config(_broken(("acks = false", sign)), "t.toml")
    assert problem in str(err.value) and len(str(err.value).splitlines()) == 1
    for fine in ('acks = false\naddress = "00"', 'address = "2a"', 'address = "01"\nwidth = 125\nlines = 8'):
        assert parse_config(_broken(("acks = false", fine)), "t.toml").devices["sign"]


def test_the_signs_serial_line_is_the_alpha_default_and_stated_in_one_place():
    """9600 7E1 is the configuration's default (the registry), which the protocol document states
    and the deployment guide and example defer to: no second value anywhere to contradict it."""
    from drivers import registry
    from drivers.transport import SerialTransport
    assert registry.DRIVERS["sign-alpha"].serial == {"baudrate": 9600, "bytesize": 7, "parity": "E", "stopbits": 1}
    drv = registry.build("sign", "sign-alpha", "loop://", print, address="01")
    assert isinstance(drv.transport, SerialTransport)
    assert {k: drv.transport.settings[k] for k in ("baudrate", "bytesize", "parity", "stopbits")} == \
        registry.ALPHA_SERIAL
    drv = registry.build("sign", "sign-alpha", "loop://", print, transport_settings={"baudrate": 4800,
                                                                                      "stopbits": 2}, address="01")
    assert (drv.transport.settings["baudrate"], drv.transport.settings["stopbits"]) == (4800, 2)
    spec = (ROOT / "docs" / "protocols" / "alpha-sign.md").read_text()
    assert "9600 7E1" in spec
    for doc in ("docs/deploy.md", "deploy/table.example.toml"):
        text = (ROOT / doc).read_text()
        assert "9600 7E1" in text and "alpha-sign.md" in text, doc
        assert not [line for line in text.splitlines() if "sign" in line.lower() and "8N1" in line], doc


def test_a_shoe_across_the_network_needs_an_isolated_segment():
    """Frames are authenticated, not encrypted: the dealer's cards on a device server elsewhere cross
    the network in clear, so the configuration must say the link is on a segment of its own."""
    shoe = ('url = "usb://1209:0001/SHOE7"', 'url = "socket://10.0.0.7:4001"')
    with pytest.raises(ConfigError, match=r"key 'devices.shoe.url': the shoe's cards would cross the network to "
                                          r"10\.0\.0\.7 in clear .*network_segment = \"isolated\""):
        parse_config(_broken(shoe), "t.toml")
    isolated = (shoe[0], shoe[1] + '\nnetwork_segment = "isolated"')
    assert parse_config(_broken(isolated), "t.toml").devices["shoe"].settings == {"network_segment": "isolated"}
    for local in ("socket://127.0.0.1:4001", "rfc2217://localhost:2217"):     # the simulators, a local server
        assert parse_config(_broken((shoe[0], f'url = "{local}"')), "t.toml")
    with pytest.raises(ConfigError, match="network_segment"):
        parse_config(_broken((shoe[0], shoe[1] + '\nnetwork_segment = "shared"')), "t.toml")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
@pytest.mark.parametrize("section, key", [
    ("devices.shoe", "heartbeat_every"), ("devices.shoe", "silence_after"), ("devices.shoe", "retransmit_after"),
    ("devices.shoe", "shuffle_limit"), ("devices.sensors", "silence_after"), ("devices.sensors", "timeout"),
    ("devices.sign", "ack_timeout"), ("devices.sign", "heartbeat_every"),
])
def test_a_device_timing_that_is_not_a_number_is_refused_naming_its_key(section, key, value):
    """``nan`` compares false with any bound, so ``silence_after = nan`` once passed every range check,
    and a lost device was never reported offline; ``inf`` is no timing either."""
    anchor = f"[{section}]\n"
    with pytest.raises(ConfigError) as err:
        parse_config(GOOD.replace(anchor, f"{anchor}{key} = {value}\n", 1), "t.toml")
    assert f"key '{section}.{key}': {value} is not a number" in str(err.value), str(err.value)


@pytest.mark.parametrize("sensors, sign", [
    ('"/dev/table-sensors"', '"/dev/table-sensors"'),
    ('"socket://10.0.0.9:7000"', '"socket://10.0.0.9:7000"'),
    ('"socket://Sign.lan:7000"', '"rfc2217://sign.lan:7000"'),      # one device server's port, two names
])
def test_two_devices_on_one_port_are_refused(sensors, sign):
    """Two roles on one port passed `config check`: both drivers opened it and each read the other's
    device's bytes (the sensors' frames were garbage to the sign's driver and the sensors never answered
    a Hello the sign's driver had read)."""
    text = GOOD.replace('url = "/dev/table-sensors"', f"url = {sensors}").replace(
        'url = "socket://10.0.0.9:7000"', f"url = {sign}")
    with pytest.raises(ConfigError) as err:
        parse_config(text, "t.toml")
    said = str(err.value)
    assert "line 17: key 'devices.sign.url': " in said and "is also the sensors' port" in said
    assert len(said.splitlines()) == 1                  # the first device named keeps its port


def test_two_names_of_one_serial_port_are_refused():
    """The udev name and the ttyUSB it links to are one port (a technician's usual slip)."""
    import os
    import tempfile
    with tempfile.TemporaryDirectory(dir="/dev/shm") as folder:    # a /dev path this test may create
        os.symlink(f"{folder}/ttyUSB0", f"{folder}/table-sensors")
        text = GOOD.replace('"/dev/table-sensors"', f'"{folder}/table-sensors"').replace(
            '"socket://10.0.0.9:7000"', f'"{folder}/ttyUSB0"')
        with pytest.raises(ConfigError, match=f"is also the sensors' port \\({folder}/ttyUSB0 and "
                                              f"{folder}/table-sensors are the same port\\)"):
            parse_config(text, "t.toml")
    assert parse_config(GOOD.replace('"usb://1209:0001/SHOE7"', '"loop://"').replace(
        '"/dev/table-sensors"', '"loop://"'), "t.toml")                 # loop:// is a port of its own each time
