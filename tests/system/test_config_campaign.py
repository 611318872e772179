"""The test lab's campaign (issue 16): broken configuration and pay-table files, every one refused
by ``table-controller config check`` (or ``par-sheet --paytable``) with exit status 2 and a message
naming the file, the key and the line that holds it; the shipped example and presets still pass.

Each configuration case is the shipped example (deploy/table.example.toml) with a few keys set,
added or removed; each pay-table case is the shipped sheet-004 preset edited the same way."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main
from controller.rules.paytable import load_paytable, load_preset, preset_names
from tests.support import ROOT

EXAMPLE = (ROOT / "deploy" / "table.example.toml").read_text()
PRESETS = ROOT / "controller" / "rules" / "presets"
SHEET_004 = (PRESETS / "sheet-004.toml").read_text()
REFUSAL = re.compile(r"^table-controller: (?P<file>.+?), line (?P<line>\d+): key '(?P<key>[^']+)': (?P<why>.+)$")
DROP = None


def edit(text: str, section: str, key: str, value: str | None) -> str:
    """``text`` with ``key`` of ``[section]`` set to ``value`` (TOML), added if absent, or removed
    (``DROP``); the rest of the file, comments included, as it was."""
    lines = text.splitlines()
    current, header_at, found = "", None, None
    for i, line in enumerate(lines):
        header = re.fullmatch(r"\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?", line.strip())
        if header:
            current = header.group(1)
            if current == section and header_at is None:
                header_at = i
            continue
        if current == section and found is None and re.match(rf"{re.escape(key)}\s*=", line):
            found = i
    if found is not None:
        if value is DROP:
            del lines[found]
        else:
            lines[found] = f"{key} = {value}"
    elif value is not DROP:
        if header_at is None:
            lines += ["", f"[{section}]", f"{key} = {value}"]
        else:
            lines.insert(header_at + 1, f"{key} = {value}")
    return "\n".join(lines) + "\n"


def apply(text: str, edits: list) -> str:
    for change in edits:
        text = change(text) if callable(change) else edit(text, *change)
    return text


def raw(old: str, new: str):
    def change(text: str) -> str:
        assert old in text, f"test setup: {old!r} not in the file"
        return text.replace(old, new, 1)
    return change


SHOE, SENSORS, SIGN = "devices.shoe", "devices.sensors", "devices.sign"
CONFIG_CASES = [   # id, edits, the key named, a fragment of the refusal
    # the lab's findings
    ("negative-baud", [(SHOE, "baudrate", "-9600")], "devices.shoe.baudrate", "below 50"),
    ("parity-X", [(SIGN, "parity", '"X"')], "devices.sign.parity", "'X' is not one of"),
    ("heartbeat-negative", [(SHOE, "heartbeat_every", "-1")], "devices.shoe.heartbeat_every", "below 0.05"),
    ("silence-zero", [(SHOE, "silence_after", "0")], "devices.shoe.silence_after", "below 0.1"),
    ("silence-below-heartbeat", [(SHOE, "silence_after", "0.5")], "devices.shoe.silence_after",
     "must be at least twice heartbeat_every (1 s)"),
    ("retransmit-zero", [(SHOE, "retransmit_after", "0")], "devices.shoe.retransmit_after", "below 0.01"),
    ("max-attempts-zero", [(SIGN, "max_attempts", "0")], "devices.sign.max_attempts", "below 1"),
    ("ack-timeout-negative", [(SIGN, "ack_timeout", "-1")], "devices.sign.ack_timeout", "below 0.01"),
    ("socket-port-99999", [(SENSORS, "url", '"socket://10.0.0.5:99999"')], "devices.sensors.url",
     "port 99999 is not a port number 1-65535"),
    ("page-host-999", [("page", "host", '"999.1.1.1"')], "page.host", "is not an IP address"),
    ("jackpot-10e17", [("jackpot", "mega", str(10**17))], "jackpot.mega", "the most allowed even with"),
    ("duplicate-key", [raw("positions = 6", "positions = 6\npositions = 7")], "table.positions",
     "duplicate key (first given on line"),
    # device timings against each other
    ("silence-not-twice-heartbeat", [(SENSORS, "silence_after", "1.5")], "devices.sensors.silence_after",
     "at least twice"),
    ("heartbeat-against-default-silence", [(SENSORS, "silence_after", DROP), (SENSORS, "heartbeat_every", "2.0")],
     "devices.sensors.heartbeat_every", "silence_after (3 s, its default)"),
    ("retransmit-above-silence", [(SHOE, "retransmit_after", "5")], "devices.shoe.retransmit_after",
     "must be below silence_after (3 s)"),
    ("retransmit-equal-silence", [(SHOE, "retransmit_after", "3.0")], "devices.shoe.retransmit_after",
     "must be below"),
    ("read-timeout-zero", [(SHOE, "timeout", "0")], "devices.shoe.timeout", "is not above 0"),
    ("read-timeout-above-heartbeat", [(SHOE, "timeout", "2.0")], "devices.shoe.timeout",
     "must be at most heartbeat_every"),
    ("ack-timeout-below-read", [(SIGN, "ack_timeout", "0.01")], "devices.sign.ack_timeout",
     "timeout (0.05 s, its default) must be at most ack_timeout"),
    # device values and URLs
    ("baud-too-high", [(SHOE, "baudrate", "5000000")], "devices.shoe.baudrate", "above"),
    ("baud-float", [(SHOE, "baudrate", "9600.5")], "devices.shoe.baudrate", "wrong type float"),
    ("bytesize-9", [(SENSORS, "bytesize", "9")], "devices.sensors.bytesize", "is not one of"),
    ("stopbits-3", [(SIGN, "stopbits", "3")], "devices.sign.stopbits", "is not one of"),
    ("acks-text", [(SIGN, "acks", '"yes"')], "devices.sign.acks", "wrong type str"),
    ("max-attempts-21", [(SIGN, "max_attempts", "21")], "devices.sign.max_attempts", "above 20"),
    ("sign-heartbeat-zero", [(SIGN, "heartbeat_every", "0")], "devices.sign.heartbeat_every", "below"),
    ("silence-ceiling", [(SHOE, "silence_after", "301")], "devices.shoe.silence_after", "above 300"),
    ("socket-host-999", [(SIGN, "url", '"socket://999.1.1.1:7000"')], "devices.sign.url", "host '999.1.1.1'"),
    ("rfc2217-port-0", [(SIGN, "url", '"rfc2217://sign.local:0"')], "devices.sign.url", "port 0 is not"),
    ("socket-bad-host", [(SHOE, "url", '"socket://-shoe-:7000"')], "devices.shoe.url", "neither an IPv4"),
    ("socket-no-port", [(SHOE, "url", '"socket://10.0.0.5"')], "devices.shoe.url", "is not a device URL"),
    ("socket-port-6-digits", [(SHOE, "url", '"socket://10.0.0.5:123456"')], "devices.shoe.url", "1-65535"),
    ("usb-sensors", [(SENSORS, "url", '"usb://1209:0002"')], "devices.sensors.url", "only the shoe attaches"),
    ("url-com3", [(SENSORS, "url", '"COM3"')], "devices.sensors.url", "is not a device URL"),
    ("unknown-driver", [(SHOE, "driver", '"shoe-x"')], "devices.shoe.driver", "is not a shoe driver"),
    ("unknown-device-key", [(SIGN, "brightness", "5")], "devices.sign.brightness", "unknown key"),
    ("sign-missing", [raw("[devices.sign]", "[devices.signs]")], "devices.signs", "unknown key"),
    ("duplicate-device-key", [raw('address = "01"', 'address = "01"\naddress = "02"')],
     "devices.sign.address", "duplicate key"),
    ("sign-broadcast-with-acks", [(SIGN, "address", '"00"')], "devices.sign.address", "'00' is broadcast"),
    ("sign-width-11", [(SIGN, "width", "11")], "devices.sign.width", "below 12"),
    ("sign-lines-0", [(SIGN, "lines", "0")], "devices.sign.lines", "below 1"),
    ("duplicate-table", [raw("[page]", "[page]\nport = 8081\n\n[page]")], "page", "duplicate table"),
    # [table]
    ("positions-0", [("table", "positions", "0")], "table.positions", "from 1 to 9"),
    ("positions-10", [("table", "positions", "10")], "table.positions", "from 1 to 9"),
    ("positions-float", [("table", "positions", "6.0")], "table.positions", "whole number"),
    ("hand-timeout-zero", [("table", "hand_timeout", "0")], "table.hand_timeout", "from 0.5 to 300"),
    ("hand-timeout-negative", [("table", "hand_timeout", "-5")], "table.hand_timeout", "from 0.5 to 300"),
    ("hand-timeout-ceiling", [("table", "hand_timeout", "100000")], "table.hand_timeout", "from 0.5 to 300"),
    ("id-empty", [("table", "id", '""')], "table.id", "non-empty"),
    ("id-tab", [("table", "id", '"TCP\\t07"')], "table.id", "printable"),
    ("id-long", [("table", "id", '"' + "T" * 40 + '"')], "table.id", "at most 32 characters"),
    ("id-number", [("table", "id", "7")], "table.id", "non-empty text"),
    ("id-spaces", [("table", "id", '" TCP-07"')], "table.id", "must not begin or end with a space"),
    ("two-positions-maybe", [("table", "one_player_two_positions", '"maybe"')], "table.one_player_two_positions",
     "must be"),
    ("preset-unknown", [("table", "preset", '"sheet-009"')], "table.preset", "unknown"),
    ("preset-and-paytable", [("table", "paytable", '"house.toml"')], "table.paytable", "not both"),
    ("unknown-table-key", [("table", "seats", "3")], "table.seats", "unknown key"),
    # [jackpot]
    ("jackpot-zero", [("jackpot", "mega", "0")], "jackpot.mega", "must be positive"),
    ("jackpot-negative", [("jackpot", "minor", "-1")], "jackpot.minor", "must be positive"),
    ("jackpot-float", [("jackpot", "major", "2500000.5")], "jackpot.major", "whole number of cents"),
    ("jackpot-order", [("jackpot", "mega", "100")], "jackpot", "MEGA >= MAJOR >= MINOR"),
    ("jackpot-above-ceiling", [("jackpot", "mega", "1000000001")], "jackpot.mega",
     "set house_overrides_ceilings = true under [jackpot]"),
    ("jackpot-override-text", [("jackpot", "house_overrides_ceilings", '"yes"')],
     "jackpot.house_overrides_ceilings", "true or false"),
    ("jackpot-override-absolute", [("jackpot", "house_overrides_ceilings", "true"), ("jackpot", "mega", str(10**13))],
     "jackpot.mega", "the most allowed even with house_overrides_ceilings"),
    ("jackpot-missing", [("jackpot", "major", DROP)], "jackpot.major", "missing"),
    ("jackpot-unknown", [("jackpot", "grand", "5")], "jackpot.grand", "unknown key"),
    # [page], [log], [data]
    ("page-port-0", [("page", "port", "0")], "page.port", "--port 0"),
    ("page-port-negative", [("page", "port", "-1")], "page.port", "1-65535"),
    ("page-port-65536", [("page", "port", "65536")], "page.port", "1-65535"),
    ("page-port-text", [("page", "port", '"8080"')], "page.port", "1-65535"),
    ("page-host-name", [("page", "host", '"table.example.com"')], "page.host", "nor \"localhost\""),
    ("page-host-empty", [("page", "host", '""')], "page.host", "non-empty"),
    ("page-allow-empty", [("page", "allow", "[]")], "page.allow", "must be a list of 1 to 64"),
    ("page-allow-text", [("page", "allow", '"127.0.0.0/8"')], "page.allow", "must be a list"),
    ("page-allow-prefix-33", [("page", "allow", '["10.0.0.0/33"]')], "page.allow[0]", "not an address range"),
    ("page-allow-number", [("page", "allow", '["127.0.0.0/8", 12]')], "page.allow[1]", "not an address range"),
    ("pin-attempts-0", [("page", "pin_attempts", "0")], "page.pin_attempts", "from 1 to 20"),
    ("pin-attempts-1000", [("page", "pin_attempts", "1000")], "page.pin_attempts", "from 1 to 20"),
    ("pin-lockout-0", [("page", "pin_lockout", "0")], "page.pin_lockout", "from 1 to 86400"),
    ("pin-lockout-forever", [("page", "pin_lockout", "1e9")], "page.pin_lockout", "from 1 to 86400"),
    ("log-format", [("log", "format", '"xml"')], "log.format", "must be"),
    ("log-level", [("log", "level", '"verbose"')], "log.level", "must be debug"),
    ("data-dir-empty", [("data", "dir", '""')], "data.dir", "non-empty"),
    ("log-dir-nul", [("log", "dir", '"/var/log/\\u0000"')], "log.dir", "printable"),
    ("unknown-section", [("colour", "name", '"red"')], "colour", "unknown section"),
]


def check(path: Path, capsys, command: list[str]) -> list[dict[str, str]]:
    """Run the command; it must exit 2 with every line of its refusal naming file, key and line."""
    status = main(command)
    out, err = capsys.readouterr()
    assert status == 2 and out == "", (status, out, err)
    found = []
    for line in err.splitlines():
        m = REFUSAL.match(line)
        assert m, f"not FILE, line N: key 'KEY': ...: {line}"
        assert m["file"] == str(path), line
        found.append(m.groupdict())
    return found


def names_its_line(text: str, refusal: dict[str, str]) -> None:
    """The line named holds the key (or, for a key that is absent, its table's header)."""
    line = text.splitlines()[int(refusal["line"]) - 1]
    leaf = re.sub(r"\[\d+\]$", "", refusal["key"].split(".")[-1])
    assert re.search(rf"(^|[{{,])\s*{re.escape(leaf)}\s*=", line) or line.lstrip().startswith("["), \
        (refusal, line)                   # a key of an inline table: ante = { min = 500, max = ... }


@pytest.mark.parametrize("edits, key, fragment", [c[1:] for c in CONFIG_CASES], ids=[c[0] for c in CONFIG_CASES])
def test_config_check_refuses_each_broken_file_naming_key_and_line(tmp_path, capsys, edits, key, fragment):
    text = apply(EXAMPLE, edits)
    path = tmp_path / "table.toml"
    path.write_text(text)
    refusals = check(path, capsys, ["config", "check", str(path)])
    named = [r for r in refusals if r["key"] == key]
    assert named, f"no refusal names {key}: {refusals}"
    assert fragment in named[0]["why"], named[0]
    for refusal in refusals:
        names_its_line(text, refusal)


# --- pay tables: the house's own file, by par-sheet --paytable and by a configuration -----------

def pays(section: str, key: str, value: str | None):
    return (section, key, value)


PAYTABLE_CASES = [   # id, edits of sheet-004, the key named, a fragment of the refusal
    ("pair-plus-1000000", [pays("pair_plus", "straight_flush", "1000000")], "pair_plus.straight_flush",
     "above the ceiling of 100 to 1"),
    ("pair-plus-101", [pays("pair_plus", "pair", "101")], "pair_plus.pair", "set house_overrides_ceilings = true "
     "under [rules]"),
    ("ante-bonus-50", [pays("ante_bonus", "straight_flush", "50")], "ante_bonus.straight_flush", "ceiling of 10 to 1"),
    ("six-card-5000", [pays("six_card_bonus", "royal_flush", "5000")], "six_card_bonus.royal_flush",
     "ceiling of 1000 to 1"),
    ("odds-float", [pays("pair_plus", "flush", "3.5")], "pair_plus.flush", "whole number X"),
    ("ante-max-10e10-dollars", [raw("ante = { min = 500, max = 1000 }", f"ante = {{ min = 500, max = {10**12} }}")],
     "limits.ante.max", "above the ceiling of 10000000 cents ($100,000.00)"),
    ("ante-max-absolute", [pays("rules", "house_overrides_ceilings", "true"),
                           raw("ante = { min = 500, max = 1000 }", f"ante = {{ min = 500, max = {10**13} }}")],
     "limits.ante.max", "the most allowed even with house_overrides_ceilings"),
    ("ante-max-above-ceiling", [raw("ante = { min = 500, max = 1000 }", "ante = { min = 500, max = 10000001 }")],
     "limits.ante.max", "ceiling of 10000000 cents ($100,000.00)"),
    ("limits-min-above-max", [raw("pair_plus = { min = 500, max = 1000 }", "pair_plus = { min = 5000, max = 1000 }")],
     "limits.pair_plus", "minimum 5000 exceeds maximum 1000"),
    ("aggregate-ceiling", [pays("rules", "max_aggregate_payout", "10000000000")], "rules.max_aggregate_payout",
     "ceiling of 100000000 cents"),
    ("aggregate-below-even-money", [pays("rules", "max_aggregate_payout", "100")], "rules.max_aggregate_payout",
     "below twice limits.ante.max"),
    ("super6-award", [raw("straight_flush = 75000", "straight_flush = 1000000")], "super6[1].straight_flush",
     "ceiling of 75000 cents ($750.00)"),
    ("override-text", [pays("rules", "house_overrides_ceilings", '"please"')], "rules.house_overrides_ceilings",
     "true or false"),
    ("override-absolute", [pays("rules", "house_overrides_ceilings", "true"),
                           pays("pair_plus", "straight_flush", "2000000")], "pair_plus.straight_flush",
     "the most allowed even with house_overrides_ceilings"),
    ("duplicate-pay", [raw("pair = 1\n", "pair = 1\npair = 2\n")], "pair_plus.pair", "duplicate key"),
]


@pytest.mark.parametrize("edits, key, fragment", [c[1:] for c in PAYTABLE_CASES], ids=[c[0] for c in PAYTABLE_CASES])
def test_par_sheet_and_config_check_refuse_each_broken_pay_table(tmp_path, capsys, edits, key, fragment):
    text = apply(SHEET_004, edits)
    house = tmp_path / "house.toml"
    house.write_text(text)
    [refusal] = check(house, capsys, ["par-sheet", "--paytable", str(house)])
    assert refusal["key"] == key and fragment in refusal["why"], refusal
    names_its_line(text, refusal)

    config = apply(EXAMPLE, [("table", "preset", DROP), ("table", "paytable", '"house.toml"')])
    path = tmp_path / "table.toml"
    path.write_text(config)
    [refusal] = check(path, capsys, ["config", "check", str(path)])
    assert refusal["key"] == "table.paytable", refusal
    names_its_line(config, refusal)
    inner = REFUSAL.match("table-controller: " + refusal["why"])
    assert inner and inner["file"] == str(house) and inner["key"] == key, refusal


def test_the_campaign_is_at_least_fifty_files():
    assert len(CONFIG_CASES) >= 50 and len({c[0] for c in CONFIG_CASES + PAYTABLE_CASES}) == \
        len(CONFIG_CASES) + len(PAYTABLE_CASES)


# --- what must still pass -----------------------------------------------------------------------

def test_the_example_and_every_shipped_preset_still_pass(tmp_path, capsys):
    assert main(["config", "check", str(ROOT / "deploy" / "table.example.toml")]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("table.example.toml: OK")
    for name in preset_names():
        house = tmp_path / f"{name}.toml"
        house.write_text((PRESETS / f"{name}.toml").read_text())
        assert load_paytable(house).digest == load_preset(name).digest
        config = apply(EXAMPLE, [("table", "preset", f'"{name}"')])
        path = tmp_path / f"table-{name}.toml"
        path.write_text(config)
        assert main(["config", "check", str(path)]) == 0, capsys.readouterr().err


def test_a_house_that_means_it_says_so(tmp_path, capsys):
    text = apply(SHEET_004, [pays("rules", "house_overrides_ceilings", "true"),
                             pays("pair_plus", "straight_flush", "200")])
    house = tmp_path / "house.toml"
    house.write_text(text)
    assert load_paytable(house).pair_plus.popitem()[1] == 1           # the file loads, as written
    config = apply(EXAMPLE, [("jackpot", "house_overrides_ceilings", "true"), ("jackpot", "mega", "2000000000")])
    path = tmp_path / "table.toml"
    path.write_text(config)
    assert main(["config", "check", str(path)]) == 0, capsys.readouterr().err


def test_the_installed_command_refuses_with_status_2(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text(apply(EXAMPLE, [(SHOE, "baudrate", "-9600"), ("page", "host", '"999.1.1.1"')]))
    out = subprocess.run([sys.executable, "-m", "controller.cli", "config", "check", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stdout == ""
    assert [REFUSAL.match(line)["key"] for line in out.stderr.splitlines()] == ["page.host", "devices.shoe.baudrate"]
