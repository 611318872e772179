"""What the IT tests share: the program built as a wheel from this tree, and installed (not editable)
into a temporary virtual environment, as deploy/install.sh does on a table PC."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.support import ROOT

PROGRAM = ("pyproject.toml", "README.md", "controller", "drivers", "simulators")


def copy_program(dest: Path) -> Path:
    """The files a wheel is built from, without build leftovers (setuptools would reuse a stale build/)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    dest.mkdir(parents=True, exist_ok=True)
    for name in PROGRAM:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, dest / name, ignore=ignore)
        else:
            shutil.copy2(source, dest / name)
    return dest


@pytest.fixture(scope="session")
def program_wheel(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    source = copy_program(work / "src")
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(source), "-w",
                          str(work / "dist")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return next((work / "dist").glob("three_card_table-*.whl"))


class Installed:
    def __init__(self, venv: Path):
        self.venv = venv
        self.python = venv / "bin" / "python"
        self.program = venv / "bin" / "table-controller"
        self.site = Path(subprocess.run([str(self.python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                                         "['purelib'])"], capture_output=True, text=True, check=True).stdout.strip())

    def run(self, *args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.program), *args], capture_output=True, text=True, timeout=timeout,
                              cwd=cwd)


@pytest.fixture(scope="module")
def installed_once(program_wheel, tmp_path_factory) -> tuple[Installed, Path]:
    """The wheel installed non-editable (pip compiles its byte-code, as on a table), once for a module,
    and a copy of its site-packages as pip left it. Its dependencies come from the test environment's
    own site-packages through a .pth file: installing them is what tests/ops/test_offline_install.py
    proves, and doing it here again would only cost time."""
    venv = tmp_path_factory.mktemp("installed") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    out = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                          "--no-deps", "--no-index", str(program_wheel)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    installed = Installed(venv)
    (installed.site / "zz-test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    as_installed = venv.parent / "site-packages-as-installed"
    shutil.copytree(installed.site, as_installed, symlinks=True)
    return installed, as_installed


@pytest.fixture
def installed(installed_once) -> Installed:
    """The installed program, its site-packages put back as pip left it before each test: the tests
    change, remove and add its files, and a venv and a pip install for each took seconds apiece
    (copy2 keeps the files' times, so the byte-code still matches its sources)."""
    installed, as_installed = installed_once
    shutil.rmtree(installed.site)
    shutil.copytree(as_installed, installed.site, symlinks=True)
    return installed
