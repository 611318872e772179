"""An install on a table PC with no network: the wheelhouse built here (as on the build machine),
then deploy/install.sh run in a network namespace of its own with no way out, installing exactly
requirements.lock's versions and the program's wheel; the program then verifies and plays."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.markers import Marker

from tests.support import ROOT, lockfile

# root makes a network namespace; anyone else maps themselves to root in a user namespace for it
OFFLINE = ["unshare", "--net"] if os.geteuid() == 0 else ["unshare", "--map-root-user", "--net"]


def _offline(script: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``script`` in a new network namespace: only its own loopback, brought up for the page."""
    return subprocess.run([*OFFLINE, "bash", "-c", f"ip link set lo up && {script}"], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


def _lock() -> dict[str, str]:
    """The table block's pins that apply to this interpreter (a universal lock may pin a name twice,
    under two markers): what a table PC installs."""
    table = lockfile.table_block((ROOT / "requirements.lock").read_text())
    pins = {}
    for m in re.finditer(r"^([A-Za-z0-9_.-]+)==([^\s;]+)(?: ; (.+?))? \\$", table, re.M):
        if m[3] is None or Marker(m[3]).evaluate():
            pins[lockfile.canonical(m[1])] = m[2]
    return pins


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheelhouse")
    built = subprocess.run(["bash", str(ROOT / "scripts/build-wheelhouse"), str(out)], capture_output=True, text=True,
                           timeout=600, env=dict(os.environ, PYTHON=sys.executable))
    assert built.returncode == 0, built.stderr
    return out


def test_the_lock_pins_every_dependency_with_a_hash():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    lock = _lock()
    for requirement in declared:
        assert re.split(r"[<>=~! ]", requirement)[0].lower() in lock, requirement
    assert "psycopg-binary" in lock and "pytest" not in lock and "uv" not in lock    # the floor's, not the tools
    text = lockfile.table_block((ROOT / "requirements.lock").read_text())
    entries = re.split(r"^(?=[A-Za-z0-9])", text, flags=re.M)[1:]
    assert len(entries) >= len(lock) > len(declared)                                # theirs too
    assert all("--hash=sha256:" in entry for entry in entries)                      # each hashed


def test_an_install_with_the_network_cut(wheelhouse, tmp_path):
    root = tmp_path / "root"
    program = root / "opt/table-controller/venv/bin"
    out = _offline(f"ip -o link show && bash deploy/install.sh --root {root} --wheelhouse {wheelhouse}")
    assert out.returncode == 0, out.stderr + out.stdout
    links = [line for line in out.stdout.splitlines() if re.match(r"\d+: ", line)]
    assert len(links) == 1 and ": lo:" in links[0]                  # no interface but loopback: no network
    assert "from the wheelhouse" in out.stdout and "installed in" in out.stdout

    checks = _offline(f"{program}/python -m pip --isolated list --format json && "
                      f"{program}/table-controller verify-install --json && "
                      f"{program}/table-controller run --autoplay --rounds 1 --data-dir {tmp_path}/data --port 0")
    assert checks.returncode == 0, checks.stderr
    decoder = json.JSONDecoder()
    installed, end = decoder.raw_decode(checks.stdout)
    report, end2 = decoder.raw_decode(checks.stdout[end:].lstrip())
    versions = {p["name"].lower().replace("_", "-"): p["version"] for p in installed}
    assert versions.pop("three-card-table") == "0.1.0"
    versions.pop("pip"), versions.pop("setuptools", None)           # the venv's own
    assert versions == _lock()                                      # exactly the lock, no more, no less
    assert report["verdict"] == "verified" and report["kind"] == "installed"
    assert '"rounds_played": 1' in checks.stdout.splitlines()[-1]


def test_a_wheel_that_is_not_the_one_built_is_refused(wheelhouse, tmp_path):
    changed = tmp_path / "wheelhouse"
    shutil.copytree(wheelhouse, changed)
    wheel = next(changed.glob("three_card_table-*.whl"))
    with zipfile.ZipFile(wheel, "a") as z:
        z.writestr("controller/extra.py", "print('not released')\n")
    out = _offline(f"bash deploy/install.sh --root {tmp_path}/root --wheelhouse {changed}")
    assert out.returncode == 1
    assert f"{wheel.name}: FAILED" in out.stdout + out.stderr
    assert "is not the one built" in out.stderr
    assert not (tmp_path / "root/opt/table-controller/venv/bin/table-controller").exists()
