"""A configuration's table on simulated devices writes nothing outside the working folder: the
README's example (`run --config deploy/table.example.toml --simulate`) keeps its journal, key and
audit trail in ./table-data (or --data-dir), says so in one line, and never makes the table PC's
/var/lib/table-controller or /var/log/table-controller on a developer's machine."""

from __future__ import annotations

import subprocess
import sys

from tests.support import ROOT


def _config_with_system_folders(tmp_path):
    """The example configuration with its system folders moved under tmp_path/system, so that
    the test can see whether anything made them (the real /var paths are the same lines)."""
    system = tmp_path / "system"
    text = (ROOT / "deploy" / "table.example.toml").read_text()
    assert 'dir = "/var/lib/table-controller"' in text and 'dir = "/var/log/table-controller/audit"' in text
    text = text.replace('dir = "/var/lib/table-controller"', f'dir = "{system}/var/lib/table-controller"')
    text = text.replace('dir = "/var/log/table-controller/audit"', f'dir = "{system}/var/log/table-controller/audit"')
    config = tmp_path / "table.toml"
    config.write_text(text)
    return config, system


def _run(config, cwd, *extra):
    return subprocess.run([sys.executable, "-m", "controller.cli", "run", "--config", str(config), "--simulate",
                           "--autoplay", "--rounds", "1", "--port", "0", *extra],
                          cwd=cwd, capture_output=True, text=True, timeout=120)


def test_the_example_on_simulated_devices_stays_in_the_working_folder(tmp_path):
    config, system = _config_with_system_folders(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    out = _run(config, work)
    assert out.returncode == 0, out.stderr[-2000:]
    assert not system.exists()                                      # nothing made in the system's folders
    assert (work / "table-data" / "journal.sqlite").is_file()
    assert (work / "table-data" / "journal.key").is_file()
    assert any((work / "table-data" / "audit").iterdir())
    said = [line for line in out.stderr.splitlines() if "simulated devices:" in line]
    assert said == [f"table-controller: simulated devices: the journal and audit trail go to ./table-data/, not to "
                    f"the configuration's {system}/var/lib/table-controller (--data-dir DIR chooses another folder)"]


def test_data_dir_takes_key_and_audit_trail_with_it(tmp_path):
    config, system = _config_with_system_folders(tmp_path)
    out = _run(config, tmp_path, "--data-dir", str(tmp_path / "mine"))
    assert out.returncode == 0, out.stderr[-2000:]
    assert not system.exists() and not (tmp_path / "table-data").exists()
    assert {p.name for p in (tmp_path / "mine").iterdir()} >= {"journal.sqlite", "journal.key", "audit"}
    assert "simulated devices:" not in out.stderr
