"""One lock for everything installed: requirements.lock is made from today's pyproject.toml, the
environment the tests run in is exactly its pins, and a stale lock is refused before anything is
installed, in one sentence that says how to regenerate it."""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
from pathlib import Path

from packaging.markers import Marker

from tests.support import ROOT, lockfile


def _applying_pins(text: str) -> dict[str, str]:
    pins = {}
    for m in re.finditer(r"^([A-Za-z0-9_.-]+)==([^\s;]+)(?: ; (.+?))? \\$", text, re.M):
        if m[3] is None or Marker(m[3]).evaluate():
            pins[lockfile.canonical(m[1])] = m[2]
    return pins


def test_the_committed_lock_is_made_from_todays_pyproject():
    assert lockfile.stale() is None


def test_the_tests_run_on_exactly_the_locked_versions():
    """What CI and a developer test is what the lock says: no package more, none less, none other."""
    installed = {lockfile.canonical(d.metadata["Name"]): d.version for d in importlib.metadata.distributions()}
    installed.pop("three-card-table")
    assert installed == _applying_pins((ROOT / "requirements.lock").read_text())


def test_the_digest_reads_the_lists_not_the_bytes(tmp_path):
    original = (ROOT / "pyproject.toml").read_text()
    commented = tmp_path / "commented.toml"
    commented.write_text(original.replace("[project]\n", "[project]\n# a note that changes no requirement\n"))
    assert lockfile.digest(commented) == lockfile.digest()
    changed = tmp_path / "changed.toml"
    changed.write_text(original.replace('"pyserial>=3.5",', '"pyserial>=3.5",\n    "rich>=13",'))
    assert lockfile.digest(changed) != lockfile.digest()
    extra = tmp_path / "extra.toml"
    extra.write_text(original.replace('"treys==0.1.8",', '"treys==0.1.8",\n    "rich>=13",'))
    assert lockfile.digest(extra) != lockfile.digest()                  # an extra's list counts too


def test_the_bootstrap_refuses_a_stale_lock_and_installs_nothing(tmp_path):
    tree = tmp_path / "clone"
    (tree / "scripts").mkdir(parents=True)
    for name in ("bootstrap.sh", "lockfile.py", "run-table"):
        shutil.copy(ROOT / "scripts" / name, tree / "scripts" / name)
    shutil.copy(ROOT / "requirements.lock", tree / "requirements.lock")
    (tree / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text()
                                         .replace('"pyserial>=3.5",', '"pyserial>=3.5",\n    "rich>=13",'))
    env = {k: v for k, v in os.environ.items() if k != "TABLE_VENV"}
    out = subprocess.run(["bash", str(tree / "scripts" / "run-table"), "--version"], capture_output=True,
                         text=True, timeout=60, env=env)
    assert out.returncode == 1
    first = out.stderr.splitlines()[0]
    assert first == ("requirements.lock was not made from today's pyproject.toml (its dependencies changed): "
                     "regenerate it with scripts/lock-requirements and commit both files")
    assert not (tree / ".venv").exists()                                # nothing installed


def test_the_table_block_is_the_programs_and_the_floors_and_closed(tmp_path):
    text = (ROOT / "requirements.lock").read_text()
    table = _applying_pins(lockfile.table_block(text))
    everything = _applying_pins(text)
    assert table.items() <= everything.items()                          # one resolution, a subset of it
    for name in table:                                                  # every requirement of each is there
        for requirement in importlib.metadata.requires(name) or []:
            if ";" in requirement and not Marker(requirement.split(";", 1)[1]).evaluate({"extra": ""}):
                continue
            dependency = lockfile.canonical(re.split(r"[\s<>=!~\[;(]", requirement, maxsplit=1)[0])
            assert dependency in table, f"{name} needs {dependency}, not in the table block"
    assert Path(ROOT / "scripts" / "lock-requirements").stat().st_mode & 0o111


def test_the_build_backends_entries_come_from_the_lock_with_their_hashes():
    """The build backend's entries, hash-pinned, for an install that builds the program from source."""
    text = lockfile.only((ROOT / "requirements.lock").read_text(), ["setuptools", "wheel"])
    assert set(lockfile.pins(text)) == {"setuptools", "wheel"} and text.count("--hash=sha256:") >= 2
