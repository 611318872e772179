"""Which program is this: ``--version``, ``verify-install`` and the start-up self-check, on the program
installed (not editable) in a virtual environment, then with one of its files changed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from tests.support import ROOT


def test_the_installed_program_names_itself_and_verifies(installed, tmp_path):
    version = installed.run("--version", cwd=tmp_path)
    assert version.returncode == 0, version.stderr
    first, second = version.stdout.splitlines()
    assert first == "table-controller 0.1.0"
    assert f"installed in {installed.site}" in second and "manifest sha256 " in second

    out = installed.run("verify-install", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["kind"] == "installed" and report["verdict"] == "verified" and report["problems"] == []
    files = {f["path"]: f for f in report["files"]}
    # every Python file and package data file of the three packages, and the console scripts
    for path in ("controller/store/journal.py", "drivers/shoe.py", "simulators/table.py",
                 "controller/page/static/index.html", "controller/rules/presets/sheet-004.toml"):
        assert files[path]["status"] == "ok", path
        assert len(files[path]["sha256"]) == 64
    assert any(p.endswith("bin/table-controller") for p in files)
    assert report["bytecode_checked"] > 50              # pip compiled them; each matches its source
    assert report["manifest_digest"] in second          # --version names the same manifest

    text = installed.run("verify-install", cwd=tmp_path)
    assert text.returncode == 0 and text.stdout.splitlines()[-1] == "verified"
    assert f"{files['drivers/shoe.py']['sha256']}  drivers/shoe.py  ok" in text.stdout


def test_a_changed_installed_file_refuses_the_start_naming_it(installed, tmp_path):
    journal = installed.site / "controller/store/journal.py"
    journal.write_text(journal.read_text() + "\n# a quiet change\n")
    start = installed.run("run", "--data-dir", str(tmp_path / "data"), "--port", "0", "--autoplay", "--rounds",
                          "1", cwd=tmp_path)
    assert start.returncode == 2, start.stdout + start.stderr         # run's status for a refused start
    assert f"{journal}: changed since it was installed" in start.stderr
    assert "does not start" in start.stderr
    assert not (tmp_path / "data").exists()                            # refused before touching anything

    check = installed.run("verify-install", "--json", cwd=tmp_path)
    assert check.returncode == 3
    report = json.loads(check.stdout)
    assert report["verdict"] == "changed"
    assert report["problems"] == [f"{journal}: changed since it was installed"]
    assert {f["path"]: f["status"] for f in report["files"]}["controller/store/journal.py"] == "changed"


def test_a_missing_file_an_added_module_and_foreign_byte_code_are_refused(installed, tmp_path):
    (installed.site / "drivers/sign.py").unlink()
    (installed.site / "controller/store/journal.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    cache = installed.site / "controller/store/__pycache__"
    shutil.copy(cache / f"lock.{sys.implementation.cache_tag}.pyc", cache / f"pins.{sys.implementation.cache_tag}.pyc")
    check = installed.run("verify-install", cwd=tmp_path)
    assert check.returncode == 3
    assert f"{installed.site}/drivers/sign.py: missing" in check.stderr
    assert "controller/store/journal.cpython-311-x86_64-linux-gnu.so: not part of the installed program" \
        in check.stderr
    assert f"controller/store/__pycache__/pins.{sys.implementation.cache_tag}.pyc: byte-code that is not its " \
        "source's" in check.stderr
    assert "drivers/sign.py  missing" in check.stdout
    start = installed.run("run", "--data-dir", str(tmp_path / "data"), "--port", "0", cwd=tmp_path)
    assert start.returncode == 2 and "drivers/sign.py: missing" in start.stderr


def test_an_installed_program_without_its_manifest_is_refused(installed, tmp_path):
    record = next(installed.site.glob("three_card_table-*.dist-info")) / "RECORD"
    record.unlink()
    start = installed.run("run", "--data-dir", str(tmp_path / "data"), "--port", "0", cwd=tmp_path)
    assert start.returncode == 2
    assert "the installed program has no manifest" in start.stderr
    check = installed.run("verify-install", cwd=tmp_path)
    assert check.returncode == 3 and "the installed program has no manifest" in check.stderr
    version = installed.run("--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("table-controller 0.1.0\n")
    assert "has no manifest" in version.stdout


def test_a_source_tree_says_it_has_no_manifest():
    out = subprocess.run([sys.executable, "-m", "controller.cli", "verify-install", "--json"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    report = json.loads(out.stdout)
    assert report["kind"] == "development" and report["verdict"] == "development"
    assert report["manifest_digest"] is None and report["files"] == []
    assert "nothing was verified" in out.stderr
    version = subprocess.run([sys.executable, "-m", "controller.cli", "--version"], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.startswith("table-controller 0.1.0\ndevelopment tree")
