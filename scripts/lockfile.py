#!/usr/bin/env python3
"""requirements.lock, the one lock of everything this project installs: what it promises and how to read it.

The lock is written by scripts/lock-requirements (uv resolves, this file lays it out) and read by
scripts/bootstrap.sh (a developer's and CI's .venv), scripts/build-wheelhouse and deploy/install.sh (a
table PC). It has two blocks, one resolution:

    # == table: ...          the program's dependencies and the floor's (psycopg): what a table PC runs
    # == development: ...    the test, lint, lock and benchmark tools and the build backend

and a header line ``# pyproject-digest: sha256:...`` naming the dependency lists it was resolved from.
A lock whose digest is not the one of today's pyproject.toml is stale: the bootstrap refuses it in one
sentence rather than install versions nobody resolved for these requirements.

    python3 scripts/lockfile.py check [LOCK]      # exit 1, one sentence, when the lock is stale
    python3 scripts/lockfile.py table [LOCK]      # the table block alone (deploy, wheelhouse)
    python3 scripts/lockfile.py only NAME... LOCK # those packages' entries (install.sh: the build backend)
    python3 scripts/lockfile.py strays PYTHON     # installed in PYTHON's environment but not in the lock
    python3 scripts/lockfile.py digest            # today's digest of pyproject.toml's dependency lists

Standard library only: install.sh runs it with the table PC's own python3, before any venv exists.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
DIGEST_LINE = "# pyproject-digest: "
DEVELOPMENT_MARK = "# == development:"
REGENERATE = "regenerate it with scripts/lock-requirements and commit both files"
# the project itself and the installer's own tools are not the lock's to list
NOT_LOCKED = {"three-card-table"}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_lists(pyproject: Path = ROOT / "pyproject.toml") -> dict[str, list[str]]:
    """What the lock is resolved from: the build backend, the program's dependencies, each extra."""
    doc = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    lists = {"build-system": list(doc["build-system"]["requires"]),
             "dependencies": list(doc["project"]["dependencies"])}
    for extra, requirements in doc["project"].get("optional-dependencies", {}).items():
        lists[f"extra:{extra}"] = list(requirements)
    return lists


def digest(pyproject: Path = ROOT / "pyproject.toml") -> str:
    """The lists' meaning, not the file's bytes: a comment or a reordered table changes nothing."""
    text = json.dumps(requirement_lists(pyproject), sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def recorded_digest(lock_text: str) -> str | None:
    for line in lock_text.splitlines():
        if line.startswith(DIGEST_LINE):
            return line[len(DIGEST_LINE):].strip()
    return None


def stale(lock: Path = LOCK, pyproject: Path = ROOT / "pyproject.toml") -> str | None:
    """One sentence saying why ``lock`` cannot be installed for ``pyproject``; None when it can."""
    if not lock.is_file():
        return f"{lock.name} is missing: {REGENERATE}"
    if recorded_digest(lock.read_text(encoding="utf-8")) != digest(pyproject):
        return f"{lock.name} was not made from today's {pyproject.name} (its dependencies changed): {REGENERATE}"
    return None


def table_block(lock_text: str) -> str:
    """The lines a table PC installs: everything above the development block."""
    head, mark, _ = lock_text.partition("\n" + DEVELOPMENT_MARK)
    if not mark:
        raise SystemExit(f"lockfile: no '{DEVELOPMENT_MARK}' line: {REGENERATE}")
    return head + "\n"


def pins(lock_text: str) -> dict[str, set[str]]:
    """Each locked package and its version(s): a universal lock may pin one per interpreter."""
    found: dict[str, set[str]] = {}
    for m in re.finditer(r"^([A-Za-z0-9][A-Za-z0-9_.-]*)==([^\s;\\]+)", lock_text, re.M):
        found.setdefault(canonical(m[1]), set()).add(m[2])
    return found


def strays(python: str, lock_text: str) -> list[str]:
    """Distributions installed in ``python``'s environment that the lock does not list (to remove)."""
    listing = subprocess.run([python, "-c", "import importlib.metadata as m, json; print(json.dumps("
                              "sorted({d.metadata['Name'] for d in m.distributions() if d.metadata['Name']})))"],
                             capture_output=True, text=True, check=True).stdout
    locked = set(pins(lock_text)) | NOT_LOCKED
    return [name for name in json.loads(listing) if canonical(name) not in locked]


def only(lock_text: str, names: list[str]) -> str:
    """The entries (pin line and hash lines) of ``names``, from the whole lock."""
    wanted = {canonical(n) for n in names}
    out, keep = [], False
    for line in lock_text.splitlines():
        if line and not line.startswith((" ", "#")):
            keep = canonical(re.split(r"[=\s;]", line, maxsplit=1)[0]) in wanted
        elif not line.startswith(" "):
            keep = False
        if keep:
            out.append(line)
    missing = wanted - set(pins("\n".join(out)))
    if missing:
        raise SystemExit(f"lockfile: {', '.join(sorted(missing))} not in the lock: {REGENERATE}")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    if argv[:1] == ["only"] and len(argv) >= 3:
        sys.stdout.write(only(Path(argv[-1]).read_text(encoding="utf-8"), argv[1:-1]))
        return 0
    if not argv or argv[0] not in {"check", "table", "strays", "digest"}:
        print(__doc__, file=sys.stderr)
        return 2
    command, rest = argv[0], argv[1:]
    if command == "digest":
        print(digest())
        return 0
    if command == "strays":
        print("\n".join(strays(rest[0], LOCK.read_text(encoding="utf-8"))))
        return 0
    lock = Path(rest[0]) if rest else LOCK
    if command == "check":
        problem = stale(lock)
        if problem:
            print(problem, file=sys.stderr)
            return 1
        return 0
    sys.stdout.write(table_block(lock.read_text(encoding="utf-8")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
