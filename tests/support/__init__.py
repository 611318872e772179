"""Helpers shared by the test tiers: the repository root, the simulated-device rig, the browser, and
the lock's reader (scripts/lockfile.py, a script rather than a package: install.sh runs it bare)."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]     # the repository

_spec = importlib.util.spec_from_file_location("lockfile", ROOT / "scripts" / "lockfile.py")
assert _spec and _spec.loader
lockfile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lockfile)
