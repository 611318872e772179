"""Deployment: the install script into a temporary root, the unit, `config check`, and systemd's
readiness and watchdog notifications against a fake notify socket."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from controller.app.systemd import Notifier
from tests.support import ROOT

INSTALL = ROOT / "deploy" / "install.sh"
UNINSTALL = ROOT / "deploy" / "uninstall.sh"


def _tree(root: Path) -> dict[str, tuple[str, int]]:
    return {str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir",
                                       p.stat().st_mode & 0o7777)
            for p in sorted(root.rglob("*"))}


def _run(*args) -> subprocess.CompletedProcess:
    out = subprocess.run(["bash", *map(str, args)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr + out.stdout
    return out


# --- install and uninstall ------------------------------------------------------------------

def test_install_into_a_root_twice_gives_the_same_tree_and_keeps_the_technicians_edits(tmp_path):
    root = tmp_path / "root"
    _run(INSTALL, "--root", root, "--no-venv")
    first = _tree(root)
    for path, mode in [("etc/table-controller/table.toml", 0o640),
                       ("etc/systemd/system/table-controller.service", 0o644),
                       ("etc/udev/rules.d/70-table-controller.rules", 0o644),
                       ("etc/xdg/autostart/table-kiosk.desktop", 0o644),
                       ("etc/systemd/user/table-kiosk.service", 0o644),
                       ("etc/systemd/system/table-controller-backup.service", 0o644),
                       ("etc/systemd/system/table-controller-backup.timer", 0o644),
                       ("opt/table-controller/src/requirements.lock", None),
                       ("opt/table-controller/deploy/kiosk/table-kiosk", 0o755),
                       ("opt/table-controller/src/controller/page/static/page.js", None),
                       ("opt/table-controller/docs/deploy.md", None)]:
        assert path in first, path
        assert mode is None or first[path][1] == mode, (path, oct(first[path][1]))
    for path in ("var/lib/table-controller", "var/log/table-controller", "var/backups/table-controller"):
        assert first[path] == ("dir", 0o750)
    assert not any(p.startswith("opt/table-controller/src/tests") or ".git" in p for p in first)
    _run(INSTALL, "--root", root, "--no-venv")
    assert _tree(root) == first                       # a second run changes nothing

    # the technician's configuration and udev serials survive a re-install
    config = root / "etc/table-controller/table.toml"
    config.write_text(config.read_text().replace('id = "TCP-07"', 'id = "TCP-12"'))
    journal = root / "var/lib/table-controller/journal.sqlite"
    journal.write_bytes(b"the table's records")
    out = _run(INSTALL, "--root", root, "--no-venv")
    assert 'id = "TCP-12"' in config.read_text()
    assert (root / "etc/table-controller/table.toml.new").exists()
    assert "kept" in out.stdout and "table.toml.new" in out.stdout
    assert journal.read_bytes() == b"the table's records"

    # uninstall keeps the records, twice over; --purge removes them
    for _ in range(2):
        _run(UNINSTALL, "--root", root)
        assert not (root / "opt/table-controller").exists()
        assert not (root / "etc/systemd/system/table-controller.service").exists()
        assert not (root / "etc/systemd/system/table-controller-backup.timer").exists()
        assert not (root / "etc/systemd/user/table-kiosk.service").exists()
        assert journal.exists() and config.exists() and (root / "var/backups/table-controller").exists()
    _run(UNINSTALL, "--root", root, "--purge")
    assert not journal.exists() and not config.exists() and not (root / "var/backups/table-controller").exists()


def test_an_install_over_a_running_table_is_refused_with_nothing_changed(tmp_path):
    """It replaced the program under the running service: a module first read after that (Python reads
    them when first needed) came from the new version, the rest from the old."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    asked = tmp_path / "asked"
    fake = bin_dir / "systemctl"                         # this machine's systemd says: the table is running
    fake.write_text(f'#!/bin/sh\necho "$@" >> {asked}\n[ "$1" = is-active ]\n')
    fake.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    out = subprocess.run(["bash", str(INSTALL), "--no-venv"], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 1
    assert "the table is running (table-controller.service): stop it between rounds" in out.stderr
    assert asked.read_text().split("\n")[:-1] == ["is-active --quiet table-controller.service"]   # nothing else
    assert "program into" not in out.stdout


def test_the_installed_program_runs_from_its_own_virtual_environment(tmp_path):
    """The install's venv step, against the same source (a wheel build and pip install)."""
    root = tmp_path / "root"
    out = subprocess.run(["bash", str(INSTALL), "--root", str(root)], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    program = root / "opt/table-controller/venv/bin/table-controller"
    check = subprocess.run([str(program), "config", "check", str(root / "etc/table-controller/table.toml")],
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stderr
    assert "preset sheet-004" in check.stdout
    static = list((root / "opt/table-controller/venv/lib").glob("python3*/site-packages/controller/page/static"))
    assert static and (static[0] / "index.html").exists()      # the page ships inside the package


def test_the_unit_passes_systemd_analyze_verify(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not on this machine (the issue asks for it where available)")
    root = tmp_path / "root"
    _run(INSTALL, "--root", root, "--no-venv")
    program = root / "opt/table-controller/venv/bin/table-controller"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    # the unit as installed, its /opt paths pointed into the temporary root
    unit = (root / "etc/systemd/system/table-controller.service").read_text()
    moved = tmp_path / "table-controller.service"
    moved.write_text(unit.replace("/opt/table-controller", str(root / "opt/table-controller")))
    out = subprocess.run([analyze, "verify", str(moved)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and not out.stderr.strip(), out.stderr
    for setting in ("Type=notify", "WatchdogSec=", "Restart=on-failure", "ProtectSystem=strict",
                    "PrivateTmp=yes", "NoNewPrivileges=yes", "User=table-controller",
                    "SupplementaryGroups=dialout plugdev", "StateDirectory=table-controller",
                    "LogsDirectory=table-controller"):
        assert setting in unit, setting


def test_udev_rules_name_each_device_by_vendor_product_and_serial():
    rules = [line for line in (ROOT / "deploy/udev/70-table-controller.rules").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    names = {}
    for rule in rules:
        assert "idVendor" in rule and "idProduct" in rule and "{serial}" in rule, rule
        assert 'MODE="0660"' in rule and "GROUP=" in rule, rule
        if "SYMLINK+=" in rule:
            names[rule.split('SYMLINK+="')[1].split('"')[0]] = rule
    assert set(names) == {"table-shoe", "table-sensors", "table-sign"}
    example = (ROOT / "deploy/table.example.toml").read_text()
    for name in names:
        assert f'"/dev/{name}"' in example


# --- config check ------------------------------------------------------------------------

def _check(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", "config", "check", str(path)],
                          capture_output=True, text=True, timeout=60)


def test_config_check_accepts_the_example_and_names_the_line_of_each_problem(tmp_path):
    good = _check(ROOT / "deploy/table.example.toml")
    assert good.returncode == 0 and "OK" in good.stdout and "digest" in good.stdout
    example = (ROOT / "deploy/table.example.toml").read_text()

    def broken(old: str, new: str) -> tuple[str, int]:
        path = tmp_path / "broken.toml"
        path.write_text(example.replace(old, new, 1))
        line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if new.split("\n")[0] in text)
        out = _check(path)
        assert out.returncode == 2
        return out.stderr, line

    err, line = broken('positions = 6', 'positions = 6\ncolour = "green"')
    assert f"line {line + 1}" in err and "table.colour" in err and "unknown key" in err
    err, line = broken('url = "/dev/table-sensors"', 'url = "COM3"')
    assert f"line {line}" in err and "devices.sensors.url" in err and "is not a device URL" in err
    err, line = broken('preset = "sheet-004"', 'preset = "sheet-005"')
    assert f"line {line}" in err and "sheet-005" in err and "unknown" in err
    # inconsistent limits: a house pay table whose Ante minimum is above its maximum
    paytable = tmp_path / "house.toml"
    paytable.write_text((ROOT / "controller/rules/presets/sheet-002.toml").read_text()
                        .replace("ante = { min = 500, max = 10000 }", "ante = { min = 20000, max = 10000 }"))
    err, line = broken('preset = "sheet-004"', 'paytable = "house.toml"')
    assert "limits.ante" in err and "house.toml" in err and "line" in err


# --- systemd notifications -------------------------------------------------------------------

class FakeNotifySocket:
    def __init__(self, path: Path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.path = str(path)
        self.messages: list[str] = []

    def wait_for(self, text: str, timeout: float, count: int = 1) -> list[str]:
        """Until ``count`` messages hold ``text`` (all received so far counted)."""
        deadline = time.monotonic() + timeout
        while sum(text in m for m in self.messages) < count:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no {text!r} within {timeout} s; got {self.messages}")
            self.sock.settimeout(remaining)
            try:
                self.messages.append(self.sock.recv(4096).decode())
            except TimeoutError:
                pass
        return self.messages

    def close(self):
        self.sock.close()


def test_the_controller_reports_ready_pings_the_watchdog_and_says_it_is_stopping(tmp_path):
    fake = FakeNotifySocket(tmp_path / "notify")
    env = dict(os.environ, NOTIFY_SOCKET=fake.path, WATCHDOG_USEC="1000000")
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--port", "0", "--data-dir",
                             str(tmp_path / "data"), "--log-format", "json"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        messages = fake.wait_for("READY=1", 30)
        ready = next(m for m in messages if "READY=1" in m)
        assert "STATUS=table SIM-1: ready" in ready           # ready only once the devices answered
        before = len(fake.messages)
        fake.wait_for("WATCHDOG=1", 20)
        assert any("WATCHDOG=1" in m for m in fake.messages[before:])
        # and go on while the engine answers (every half second on a quiet machine; counted, not timed:
        # three pings in a fixed 2 s failed when a loaded machine kept the engine from answering in time)
        fake.wait_for("WATCHDOG=1", 20, count=sum("WATCHDOG=1" in m for m in fake.messages) + 3)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        fake.wait_for("STOPPING=1", 5)
    finally:
        if proc.poll() is None:
            proc.kill()
        fake.close()


def test_no_watchdog_ping_while_the_engine_does_not_answer(tmp_path):
    fake = FakeNotifySocket(tmp_path / "notify")
    notifier = Notifier({"NOTIFY_SOCKET": fake.path, "WATCHDOG_USEC": "200000"})
    answers = []
    asked_thrice = threading.Event()

    def hung(timeout):
        answers.append(timeout)
        if len(answers) >= 3:
            asked_thrice.set()
        return False
    notifier.start_watchdog(hung)
    assert asked_thrice.wait(20)           # counted, not slept for: a loaded machine asks later
    notifier.stop()
    assert len(answers) >= 3 and answers[0] == pytest.approx(0.1)
    fake.sock.settimeout(0.05)
    with pytest.raises(socket.timeout):
        fake.sock.recv(4096)                          # nothing was sent
    fake.close()


def test_an_abstract_notify_socket_and_no_socket_at_all():
    name = f"table-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    try:
        assert Notifier({"NOTIFY_SOCKET": "@" + name}).send("READY=1")
        sock.settimeout(2)
        assert sock.recv(100) == b"READY=1"
    finally:
        sock.close()
    assert Notifier({}).send("READY=1") is False       # not under systemd: nothing happens


def test_a_table_found_behind_the_floor_starts_halted_says_ready_and_answers_the_watchdog(tmp_path):
    """The finding kept in the journal (controller/store/behind.py): the restarted controller is up,
    halted in its words, and neither killed for never being ready nor restarted by the watchdog."""
    from controller.store.behind import FOUND
    from controller.store.journal import Journal
    data = tmp_path / "data"
    first = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--autoplay", "--rounds", "1", "--port",
                            "0", "--data-dir", str(data), "--log-format", "json"],
                           capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr[-2000:]
    journal = Journal(data / "journal.sqlite")
    # the finding as the engine journals it (controller/engine_events.py JournalBehindFloor)
    journal.table_event(FOUND, {"words": "This table's journal is behind the floor: it ends at record 9, ..."})
    journal.close()
    fake = FakeNotifySocket(tmp_path / "notify")
    env = dict(os.environ, NOTIFY_SOCKET=fake.path, WATCHDOG_USEC="1000000")
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--port", "0", "--data-dir",
                             str(data), "--log-format", "json"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        ready = next(m for m in fake.wait_for("READY=1", 30) if "READY=1" in m)
        assert "HALTED: This table's journal is behind the floor" in ready and "behind clear" in ready
        # the halted table still pings: two pings after READY, however long a loaded machine takes
        fake.wait_for("WATCHDOG=1", 20, count=sum("WATCHDOG=1" in m for m in fake.messages) + 2)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        fake.close()
