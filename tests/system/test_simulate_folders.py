"""A configuration's table on simulated devices writes nothing into a table PC's system folders:
the README's example (`run --config deploy/table.example.toml --simulate`) keeps its journal, key
and audit trail in ./table-data (or --data-dir) and says so in one line, and never makes
/var/lib/table-controller or /var/log/table-controller on a developer's machine. A configuration
whose folders are elsewhere (a test's, the floor demo's) is used as written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support import ROOT

EXAMPLE = ROOT / "deploy" / "table.example.toml"
SYSTEM = [Path("/var/lib/table-controller"), Path("/var/log/table-controller")]


def _listing() -> dict[Path, set[str] | None]:
    """What is in the example's system folders now (None: the folder does not exist)."""
    return {p: ({str(f) for f in p.rglob("*")} if p.exists() else None) for p in SYSTEM}


def _run(config, cwd, *extra):
    return subprocess.run([sys.executable, "-m", "controller.cli", "run", "--config", str(config), "--simulate",
                           "--autoplay", "--rounds", "1", "--port", "0", *extra],
                          cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_the_example_on_simulated_devices_stays_in_the_working_folder(tmp_path):
    text = EXAMPLE.read_text()
    assert 'dir = "/var/lib/table-controller"' in text and 'dir = "/var/log/table-controller/audit"' in text
    before = _listing()
    out = _run(EXAMPLE, tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert _listing() == before                                     # nothing made in the system's folders
    assert (tmp_path / "table-data" / "journal.sqlite").is_file()
    assert (tmp_path / "table-data" / "journal.key").is_file()
    assert any((tmp_path / "table-data" / "audit").iterdir())
    said = [line for line in out.stderr.splitlines() if "simulated devices:" in line]
    assert said == ["table-controller: simulated devices: the journal and audit trail go to ./table-data/, not to "
                    "the configuration's /var/lib/table-controller (--data-dir DIR chooses another folder)"]


def test_data_dir_takes_key_and_audit_trail_with_it(tmp_path):
    before = _listing()
    out = _run(EXAMPLE, tmp_path, "--data-dir", str(tmp_path / "mine"))
    assert out.returncode == 0, out.stderr[-2000:]
    assert _listing() == before and not (tmp_path / "table-data").exists()
    assert {p.name for p in (tmp_path / "mine").iterdir()} >= {"journal.sqlite", "journal.key", "audit"}
    assert "simulated devices:" not in out.stderr


def test_a_configuration_with_folders_of_its_own_is_used_as_written(tmp_path):
    """The floor's demo runs each table from a configuration naming a folder in /tmp: its journal
    stays there (moving it to ./table-data made the demo's tables share one journal)."""
    own = tmp_path / "T1"
    text = EXAMPLE.read_text().replace('dir = "/var/lib/table-controller"', f'dir = "{own}"')
    text = text.replace('dir = "/var/log/table-controller/audit"', f'dir = "{own}/trail"')
    config = tmp_path / "table.toml"
    config.write_text(text)
    work = tmp_path / "work"
    work.mkdir()
    out = _run(config, work)
    assert out.returncode == 0, out.stderr[-2000:]
    assert (own / "journal.sqlite").is_file() and any((own / "trail").iterdir())
    assert not (work / "table-data").exists() and "simulated devices:" not in out.stderr
