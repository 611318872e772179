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


def _wrong(store, role: str, times: int = 1) -> list[str]:
    messages = []
    for _ in range(times):
        with pytest.raises(PinRefused) as refused:
            store.check(role, "0000")
        messages.append(str(refused.value))
    return messages


def test_wrong_pins_of_any_role_lock_every_role_and_the_lock_survives_a_restart(tmp_path):
    clock = Clock()
    store = PinStore(tmp_path / "pins.json", attempts=3, lockout=120, clock=clock)
    store.set_pin("supervisor", "Ana", "2468")
    store.set_pin("technician", "Tom", "1357")
    # the lab's attack: guesses spread over both roles count together
    assert _wrong(store, "supervisor") + _wrong(store, "technician") + _wrong(store, "supervisor") == [
        "wrong supervisor PIN (PIN entry locks for every role after 2 more wrong PINs)",
        "wrong technician PIN (PIN entry locks for every role after 1 more wrong PIN)",
        "wrong supervisor PIN; PIN entry locked for every role for 2 min after 3 wrong PINs in a row"]
    for role, pin in (("supervisor", "2468"), ("technician", "1357")):     # the right PINs, but locked
        with pytest.raises(PinRefused, match=r"^PIN entry is locked for every role after 3 wrong PINs in a row; "
                                             r"try again in 2 min$"):
            store.check(role, pin)
    restarted = PinStore(tmp_path / "pins.json", attempts=3, lockout=120, clock=clock)
    clock.now += 100
    with pytest.raises(PinRefused, match="try again in 20 s"):
        restarted.check("technician", "1357")
    clock.now += 21
    assert restarted.check("technician", "1357").name == "Tom"
    # a right PIN clears the count: two wrong ones later do not lock
    assert _wrong(restarted, "supervisor", 2)[-1].endswith("after 1 more wrong PIN)")
    assert restarted.check("supervisor", "2468").name == "Ana"
    assert restarted.locked_for() == 0 and json.loads((tmp_path / "pins.json").read_text())["lockout"] == \
        {"failures": 0, "until": 0, "lockouts": 0}


def test_each_further_lockout_doubles_up_to_a_day_until_a_right_pin(tmp_path):
    clock = Clock()
    store = PinStore(tmp_path / "pins.json", attempts=5, lockout=300, clock=clock)
    store.set_pin("supervisor", "Ana", "2468")
    store.set_pin("technician", "Tom", "1357")
    locks, guesses, waited = [], 0, 0.0
    while len(locks) < 12:
        for role in ("supervisor", "technician", "supervisor", "technician", "supervisor"):
            with pytest.raises(PinRefused) as refused:
                store.check(role, "0000")
            guesses += 1
        assert refused.value.locked == store.locked_for() > 0
        locks.append(refused.value.locked)
        clock.now += refused.value.locked
        waited += refused.value.locked
    assert locks == [300, 600, 1200, 2400, 4800, 9600, 19200, 38400, 76800, 86400, 86400, 86400]
    assert guesses == 60 and waited == 300 * (2 ** 9 - 1) + 3 * 86400
    assert _wrong(store, "technician")[0] == "wrong technician PIN (PIN entry locks for every role after 4 more " \
                                             "wrong PINs)"
    assert _wrong(store, "supervisor", 4)[-1] == ("wrong supervisor PIN; PIN entry locked for every role for 24 h "
                                                  "after 5 wrong PINs in a row")
    clock.now += 86400
    assert store.check("supervisor", "2468").name == "Ana"     # a right PIN: the doubling starts again
    assert _wrong(store, "technician", 5)[-1].endswith("locked for every role for 5 min after 5 wrong PINs in a row")


def test_a_lockout_of_the_per_role_form_is_read_as_the_tables(tmp_path):
    clock = Clock()
    path = tmp_path / "pins.json"
    PinStore(path).set_pin("technician", "Tom", "1357")
    doc = json.loads(path.read_text())
    del doc["lockout"]
    doc["lockouts"] = {"supervisor": {"failures": 0, "until": clock.now + 60},
                       "technician": {"failures": 2, "until": 0}}
    path.write_text(json.dumps(doc))
    store = PinStore(path, attempts=3, lockout=120, clock=clock)
    with pytest.raises(PinRefused, match="try again in 1 min"):       # the supervisor's lock holds the table
        store.check("technician", "1357")
    clock.now += 61
    assert _wrong(store, "technician") == ["wrong technician PIN; PIN entry locked for every role for 4 min "
                                           "after 3 wrong PINs in a row"]       # 2 counted, and a second lock
    doc = json.loads(path.read_text())
    assert "lockouts" not in doc and doc["version"] == 1 and doc["lockout"]["lockouts"] == 2


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


def test_pin_checks_give_scrypts_memory_back(tmp_path):
    """A soak's controller stepped from 70 to 86 MB resident at its first jackpot verification
    (the second scrypt of its life) and stayed there: glibc kept scrypt's freed 16 MiB. Measured
    in a process of its own, whose memory no other test has touched."""
    script = (
        "import sys\n"
        "from controller.store.pins import PinStore\n"
        "def rss():\n"
        "    return next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmRSS'))\n"
        "store = PinStore(sys.argv[1])\n"
        "store.set_pin('supervisor', 'Ana', '2468')\n"
        "before = rss()\n"
        "for _ in range(4):\n"
        "    store.check('supervisor', '2468')\n"
        "print(rss() - before)\n")
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path / "pins.json")], capture_output=True,
                         text=True, timeout=60, check=True)
    kept = int(out.stdout.split()[-1])          # the last line: the logs of set_pin come first
    assert kept < 4 * 1024, f"{kept} KB kept after four PIN checks"
