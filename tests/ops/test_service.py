"""The service's side of the table: journald priorities on every log line, the clock watched (an
alert on the table, never a stop), and the units (hardening, devices, backup timer, kiosk) as
systemd reads them."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from controller.app.clock import RESYNCHRONISED, UNSYNCHRONISED, ClockWatch, synchronised
from tests.support import ROOT

UNIT = ROOT / "deploy/systemd/table-controller.service"


def _journal_stream(path: Path) -> str:
    st = os.stat(path)
    return f"{st.st_dev}:{st.st_ino}"


def _run_table(tmp_path: Path, env: dict[str, str], stderr: Path) -> subprocess.CompletedProcess:
    with open(stderr, "w") as err:
        return subprocess.run([sys.executable, "-m", "controller.cli", "run", "--autoplay", "--rounds", "1",
                               "--data-dir", str(tmp_path / "data"), "--port", "0", "--log-format", "json"],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=err, text=True, timeout=120)


# --- journald priorities ---------------------------------------------------------------------

def test_under_the_journal_every_line_carries_its_priority(tmp_path):
    stderr = tmp_path / "stderr"
    stderr.touch()
    out = _run_table(tmp_path, dict(os.environ, JOURNAL_STREAM=_journal_stream(stderr)), stderr)
    assert out.returncode == 0
    lines = stderr.read_text().splitlines()
    assert len(lines) > 10            # start-up, devices, page, stop (anchors go to the trail alone)
    events = {json.loads(line.split(">", 1)[1])["event"] for line in lines}
    assert {"run.started", "device.online", "page.listening", "device.stopped"} <= events
    for line in lines:
        match = re.match(r"<(\d)>(\{.*\})$", line)
        assert match, line
        level = json.loads(match[2])["level"]
        assert int(match[1]) == {"debug": 7, "info": 6, "warning": 4, "error": 3}[level], line

    script = ("import logging, structlog\nfrom controller.app import logs\nlogs.configure('json', 'info')\n"
              "structlog.get_logger('t').warning('w.x')\nstructlog.get_logger('t').error('e.x')\n"
              "logging.getLogger('aiohttp.access').warning('from the standard library')\n")
    err = tmp_path / "err2"
    with open(err, "w") as f:
        subprocess.run([sys.executable, "-c", script], cwd=ROOT, stderr=f, check=True, timeout=60,
                       env=dict(os.environ, JOURNAL_STREAM=_journal_stream(err)))
    assert [line[:3] for line in err.read_text().splitlines()] == ["<4>", "<3>", "<4>"]


def test_elsewhere_the_lines_stay_plain_json(tmp_path):
    stderr, other = tmp_path / "stderr", tmp_path / "other"
    other.touch()
    # systemd's variable naming another stream (a child's inherited environment) adds nothing
    out = _run_table(tmp_path, dict(os.environ, JOURNAL_STREAM=_journal_stream(other)), stderr)
    assert out.returncode == 0
    assert all(line.startswith("{") for line in stderr.read_text().splitlines())


# --- the clock ----------------------------------------------------------------------------

def _fake_timedatectl(tmp_path: Path, answer: str, status: int = 0) -> Path:
    path = tmp_path / "bin" / "timedatectl"
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"#!/bin/sh\n[ \"$*\" = 'show --property=NTPSynchronized --value' ] || exit 9\n"
                    f"echo {answer}\nexit {status}\n")
    path.chmod(0o755)
    return path


def test_the_clock_state_is_read_from_systemd(tmp_path):
    assert synchronised(str(_fake_timedatectl(tmp_path, "yes"))) is True
    assert synchronised(str(_fake_timedatectl(tmp_path, "no"))) is False
    failing = _fake_timedatectl(tmp_path, "", status=1)         # no systemd here: nothing to tell
    assert synchronised(str(failing)) in (None, True)          # True only from timesyncd's flag file


def test_an_unsynchronised_clock_is_alerted_once_and_its_return_said():
    posted: list[tuple[str, str]] = []
    answers = iter([None, True, False, False, None, True, True])
    watch = ClockWatch(posted.append, lambda kind, text: (kind, text), probe=lambda: next(answers))
    for _ in range(7):
        watch.check()
    assert posted == [("clock", UNSYNCHRONISED), ("clock", RESYNCHRONISED)]


def test_the_table_plays_on_with_the_clock_alert_journaled(tmp_path):
    fake = _fake_timedatectl(tmp_path, "no")
    stderr = tmp_path / "stderr"
    out = _run_table(tmp_path, dict(os.environ, PATH=f"{fake.parent}:{os.environ['PATH']}"), stderr)
    assert out.returncode == 0                                   # an alert, not a stop
    assert json.loads(out.stdout.splitlines()[-1])["rounds_played"] == 1
    db = sqlite3.connect(tmp_path / "data/journal.sqlite")
    alerts = [json.loads(d) for (d,) in db.execute("SELECT data FROM table_events WHERE kind = 'alert'")]
    alerts += [json.loads(d) for (d,) in db.execute("SELECT data FROM records WHERE kind = 'alert'")]
    db.close()
    assert {"kind": "clock", "message": UNSYNCHRONISED, "position": None} in alerts
    warnings = [json.loads(line) for line in stderr.read_text().splitlines() if "clock." in line]
    assert any(w["event"] == "clock.unsynchronised" and w["level"] == "warning" for w in warnings)


# --- the units ------------------------------------------------------------------------------

def test_the_service_is_hardened_and_reaches_only_its_devices():
    unit = UNIT.read_text()
    settings = [line for line in unit.splitlines() if line and not line.startswith("#")]
    assert not any("udev-settle" in line for line in settings)            # deprecated: not waited for
    for setting in ("SystemCallFilter=@system-service", "SystemCallErrorNumber=EPERM", "ProtectProc=invisible",
                    "DevicePolicy=closed", "DeviceAllow=/dev/table-shoe rw", "DeviceAllow=/dev/table-sensors rw",
                    "DeviceAllow=/dev/table-sign rw", "DeviceAllow=char-usb_device rw", "SyslogLevelPrefix=yes",
                    "StandardError=journal", "ProtectClock=yes"):
        assert setting in settings, setting
    kiosk = (ROOT / "deploy/kiosk/table-kiosk.service").read_text()
    assert "Restart=always" in kiosk and "ExecStart=/opt/table-controller/deploy/kiosk/table-kiosk" in kiosk
    assert "systemctl --user restart table-kiosk.service" in (ROOT / "deploy/kiosk/table-kiosk.desktop").read_text()
    timer = (ROOT / "deploy/systemd/table-controller-backup.timer").read_text()
    assert "OnCalendar=" in timer and "Persistent=true" in timer
    backup = (ROOT / "deploy/systemd/table-controller-backup.service").read_text()
    assert "table-controller backup /var/backups/table-controller" in backup and "User=table-controller" in backup


def _settings(unit: str) -> dict[str, str]:
    lines = (ROOT / "deploy" / unit).read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))


def test_every_unit_on_the_tables_folders_keeps_them_to_the_service():
    """systemd sets a StateDirectory's or LogsDirectory's mode at each start of a unit naming it (0755
    when its unit gives none): the daily backup, naming both without a mode, opened the journal's and
    the audit trail's folders to every user of the PC each morning, until the table's next restart."""
    units = ["systemd/table-controller.service", "systemd/table-controller-backup.service"]
    for unit in units:
        settings = _settings(unit)
        for kind in ("StateDirectory", "LogsDirectory"):
            if kind in settings:
                assert settings.get(f"{kind}Mode") == "0750", (unit, kind)


@pytest.mark.parametrize("unit", ["systemd/table-controller.service", "systemd/table-controller-backup.service",
                                  "systemd/table-controller-backup.timer", "kiosk/table-kiosk.service"])
def test_each_unit_passes_systemd_analyze_verify(tmp_path, unit):
    analyze = shutil.which("systemd-analyze")
    assert analyze, "systemd-analyze is part of Debian's systemd package, on every table PC and here"
    source = (ROOT / "deploy" / unit).read_text()
    # the programs it names, pointed at one that exists here
    moved = tmp_path / Path(unit).name
    moved.write_text(re.sub(r"/opt/table-controller/\S+/(table-controller|table-kiosk)\b", "/bin/true", source))
    if unit.endswith(".timer"):
        service = tmp_path / Path(unit).name.replace(".timer", ".service")
        service.write_text("[Service]\nType=oneshot\nExecStart=/bin/true\n")
    out = subprocess.run([analyze, "verify", str(moved)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and not out.stderr.strip(), out.stderr
