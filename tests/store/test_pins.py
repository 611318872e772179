"""PINs: salted scrypt hashes, lockout after wrong PINs (kept across restarts), clear refusals."""

import json
import stat
import subprocess
import sys

import pytest

from controller.store.pins import PinError, PinRefused, PinStore


class Clock:
    def __init__(self):
        self.now = 1_000_000.0

    def __call__(self):
        return self.now


def test_pins_are_stored_as_salted_scrypt_hashes_only(tmp_path):
    store = PinStore(tmp_path / "pins.json")
    store.set_pin("supervisor", "Ana", "2468")
    store.set_pin("technician", "Tom", "2468")          # another role may share the digits
    text = (tmp_path / "pins.json").read_text()
    assert "2468" not in text
    doc = json.loads(text)
    ana, tom = doc["holders"]
    assert ana["salt"] != tom["salt"] and ana["hash"] != tom["hash"]      # salted
    assert (ana["n"], ana["r"], ana["p"]) == (2 ** 14, 8, 1)
    assert stat.S_IMODE((tmp_path / "pins.json").stat().st_mode) == 0o600
    assert store.check("supervisor", "2468").name == "Ana"
    assert str(store.check("technician", "2468")) == "technician Tom"


def test_pin_format_roles_and_duplicates_are_refused(tmp_path):
    store = PinStore(tmp_path / "pins.json")
    for pin in ("123", "1234567890123", "12a4", "١٢٣٤"):
        with pytest.raises(PinError, match="4 to 12 digits"):
            store.set_pin("supervisor", "Ana", pin)
    with pytest.raises(PinError, match="role 'boss' unknown"):
        store.set_pin("boss", "Ana", "1234")
    store.set_pin("supervisor", "Ana", "1234")
    with pytest.raises(PinError, match="another supervisor already has that PIN"):
        store.set_pin("supervisor", "Bo", "1234")
    store.set_pin("supervisor", "Ana", "5678")          # Ana changes her own PIN
    with pytest.raises(PinRefused, match="wrong supervisor PIN"):
        store.check("supervisor", "1234")
    with pytest.raises(PinRefused, match="no technician PIN is set"):
        store.check("technician", "1234")


def test_wrong_pins_lock_the_role_and_the_lock_survives_a_restart(tmp_path):
    clock = Clock()
    store = PinStore(tmp_path / "pins.json", attempts=3, lockout=120, clock=clock)
    store.set_pin("supervisor", "Ana", "2468")
    store.set_pin("technician", "Tom", "1357")
    messages = []
    for _ in range(3):
        with pytest.raises(PinRefused) as refused:
            store.check("supervisor", "0000")
        messages.append(str(refused.value))
    assert messages == ["wrong supervisor PIN (2 more tries before the supervisor PIN is locked)",
                        "wrong supervisor PIN (1 more try before the supervisor PIN is locked)",
                        "wrong supervisor PIN; supervisor PIN locked for 2 min after 3 wrong PINs"]
    with pytest.raises(PinRefused, match=r"locked after 3 wrong PINs; try again in 2 min"):
        store.check("supervisor", "2468")                 # the right PIN, but locked
    assert store.check("technician", "1357").name == "Tom"    # other roles are not locked
    restarted = PinStore(tmp_path / "pins.json", attempts=3, lockout=120, clock=clock)
    clock.now += 100
    with pytest.raises(PinRefused, match="try again in 20 s"):
        restarted.check("supervisor", "2468")
    clock.now += 21
    assert restarted.check("supervisor", "2468").name == "Ana"
    # a right PIN clears the count: two wrong ones later do not lock
    for _ in range(2):
        with pytest.raises(PinRefused, match="more"):
            restarted.check("supervisor", "0000")
    assert restarted.check("supervisor", "2468").name == "Ana"
    assert restarted.locked_for("supervisor") == 0


def test_a_pin_set_by_the_command_line_is_seen_by_a_running_store(tmp_path):
    running = PinStore(tmp_path / "pins.json")
    out = subprocess.run([sys.executable, "-m", "controller.cli", "pin", "set", "supervisor", "Ana",
                          "--data-dir", str(tmp_path)], input="97531\n", capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert running.check("supervisor", "97531").name == "Ana"
    listed = subprocess.run([sys.executable, "-m", "controller.cli", "pin", "list", "--data-dir",
                             str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert listed.stdout.split() == ["supervisor", "Ana"]
    bad = subprocess.run([sys.executable, "-m", "controller.cli", "pin", "set", "supervisor", "Bo",
                          "--data-dir", str(tmp_path)], input="12\n", capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and "a PIN is 4 to 12 digits" in bad.stderr


def test_a_damaged_pin_file_is_refused_naming_it(tmp_path):
    path = tmp_path / "pins.json"
    path.write_text('{"version": 1, "holders": [{"role": "boss"}]}')
    with pytest.raises(PinError, match=rf"{path}: cannot read the PIN file: holder 1: missing"):
        PinStore(path)
    path.write_text("not json")
    with pytest.raises(PinError, match=str(path)):
        PinStore(path)
