"""Which program is this? The installed files' SHA-256 manifest, and the self-check against it.

Owns deciding what the running program is and whether its files are the ones
that were installed. The manifest is the installed distribution's ``RECORD``
(``*.dist-info/RECORD``), which pip writes at install time with the SHA-256 of
every file the wheel carried, as built (the digests are the wheel's own, not
recomputed from the disk): every Python file and package data file of
``controller/``, ``drivers/`` and ``simulators/``, and the console scripts.

The check (``run`` at start, ``table-controller verify-install`` for a lab)
hashes each of those files again and refuses, naming the file, when one is
changed or missing; and it refuses a file in the packages' folders that the
manifest does not list (a module added, or an extension module put beside a
``.py``, would be imported in its place). Byte-code in ``__pycache__`` is not
in RECORD (pip compiles it after writing the files): a ``.pyc`` is accepted only
when its code is exactly what compiling its verified source gives, because
Python would run a ``.pyc`` in place of its source.

A program run from a source tree (the developers' editable install, or
``python -m controller.cli`` in a checkout) has no manifest: it is
"development", said in words by both; only an installed program (its
packages inside the interpreter's site-packages) is held to a manifest, so
removing the RECORD of an installed program does not turn the check off.

The manifest's own digest (SHA-256 of its lines ``<sha256 hex>  <path>``,
sorted by path) names the release: a lab compares it with the one it certified.
"""

from __future__ import annotations

import base64
import hashlib
import marshal
import sys
import sysconfig
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from controller.errors import IntegrityError

DISTRIBUTION = "three-card-table"
PACKAGES = ("controller", "drivers", "simulators")
SCRIPTS = ("table-controller", "table-sim")
PYC_HEADER = 16                  # magic, flags, and mtime + size or the source's hash (PEP 552)


class ProgramError(IntegrityError):
    """The installed program is not what was installed: the message names each file."""


@dataclass(frozen=True)
class Entry:
    path: str                   # as RECORD gives it, relative to site-packages
    sha256: str                 # hex
    size: int | None
    status: str = "ok"          # ok | changed | missing


@dataclass
class Verdict:
    kind: str                   # installed | development
    version: str
    location: str               # site-packages, or the source tree
    entries: list[Entry] = field(default_factory=list)
    unexpected: list[tuple[str, str]] = field(default_factory=list)   # (path, why it does not belong)
    bytecode: int = 0           # .pyc files checked against their sources

    @property
    def digest(self) -> str | None:
        if self.kind != "installed":
            return None
        text = "".join(f"{e.sha256}  {e.path}\n" for e in sorted(self.entries, key=lambda e: e.path))
        return hashlib.sha256(text.encode()).hexdigest()

    @property
    def problems(self) -> list[str]:
        found = [f"{self.location}/{e.path}: {'changed since it was installed' if e.status == 'changed' else 'missing'}"
                 for e in self.entries if e.status != "ok"]
        found += [f"{self.location}/{path}: {why}" for path, why in self.unexpected]
        return found

    @property
    def verdict(self) -> str:
        if self.kind != "installed":
            return "development"
        return "changed" if self.problems else "verified"

    def as_json(self) -> dict:
        return {"program": DISTRIBUTION, "version": self.version, "kind": self.kind, "location": self.location,
                "manifest_digest": self.digest, "verdict": self.verdict, "problems": self.problems,
                "bytecode_checked": self.bytecode,
                "files": [{"path": e.path, "sha256": e.sha256, "size": e.size, "status": e.status}
                          for e in self.entries]}


def version() -> str:
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"


def program_root() -> Path:
    """The folder the running ``controller`` package was imported from."""
    import controller
    return Path(controller.__file__).resolve().parent.parent


def site_packages() -> set[Path]:
    paths = sysconfig.get_paths()
    return {Path(paths[k]).resolve() for k in ("purelib", "platlib")}


def inspect(root: Path | None = None, *, hash_files: bool = True) -> Verdict:
    """What the running program is; with ``hash_files``, each file checked against the manifest."""
    root = root or program_root()
    if root not in site_packages():
        return Verdict("development", version(), str(root))
    dist = next((d for d in metadata.distributions(path=[str(root)])
                 if (d.metadata["Name"] or "").lower() == DISTRIBUTION), None)
    if dist is None or dist.files is None:
        raise ProgramError(f"{root}: the installed program has no manifest ({DISTRIBUTION}'s RECORD is "
                           "missing): it cannot be verified; reinstall it")
    verdict = Verdict("installed", dist.version, str(root))
    listed: set[Path] = set()
    for item in dist.files:
        if not _is_program_file(item.parts) or item.hash is None:
            continue
        if item.hash.mode != "sha256":
            raise ProgramError(f"{root}/{item}: the manifest gives a {item.hash.mode} digest, not sha256")
        expected = base64.urlsafe_b64decode(item.hash.value + "=" * (-len(item.hash.value) % 4)).hex()
        path = Path(str(dist.locate_file(item))).resolve()
        listed.add(path)
        status = "ok"
        if hash_files:
            status = _status(path, expected)
        verdict.entries.append(Entry(str(item), expected, item.size, status))
    if hash_files:
        verdict.unexpected, verdict.bytecode = _unlisted(root, listed)
    return verdict


def check_at_start() -> Verdict:
    """The start-up self-check: raises ProgramError naming every changed, missing or added file."""
    verdict = inspect()
    if verdict.problems:
        raise ProgramError("the program's files are not the ones installed; the table does not start:\n"
                           + "\n".join(verdict.problems))
    return verdict


def _is_program_file(parts: tuple[str, ...]) -> bool:
    if parts[0] in PACKAGES:
        return True
    return parts[0] == ".." and parts[-1] in SCRIPTS and parts[-2] == "bin"   # pip's console scripts


def _status(path: Path, expected: str) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return "missing"
    return "ok" if hashlib.sha256(data).hexdigest() == expected else "changed"


def _unlisted(root: Path, listed: set[Path]) -> tuple[list[tuple[str, str]], int]:
    """Files under the packages' folders that the manifest does not list (a ``.pyc`` passes when it
    compiles from its listed, verified source); and how many ``.pyc`` were checked."""
    unexpected: list[tuple[str, str]] = []
    checked = 0
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*")):
            if path.is_dir() or path.resolve() in listed:
                continue
            why = "not part of the installed program"
            if path.parent.name == "__pycache__" and path.suffix == ".pyc":
                source = _source_of(path)
                if source is not None and source.resolve() in listed:
                    # without its source Python never runs it (the missing source is reported)
                    if not source.exists() or _bytecode_matches(path, source):
                        checked += 1
                        continue
                    why = "byte-code that is not its source's (Python would run it in the source's place)"
            unexpected.append((str(path.relative_to(root)), why))
    return unexpected, checked


def _source_of(pyc: Path) -> Path | None:
    """``pkg/__pycache__/name.cpython-311[.opt-N].pyc`` -> ``pkg/name.py``, for this interpreter's tag."""
    name, tag, *rest = pyc.stem.split(".")
    if tag != sys.implementation.cache_tag or rest not in ([], ["opt-1"], ["opt-2"]):
        return None
    return pyc.parent.parent / f"{name}.py"


def _bytecode_matches(pyc: Path, source: Path) -> bool:
    optimize = int(pyc.stem.rsplit(".opt-", 1)[1]) if ".opt-" in pyc.stem else 0
    try:
        code = marshal.loads(pyc.read_bytes()[PYC_HEADER:])
        # equal code objects: the same instructions, constants, names and line table
        return bool(code == compile(source.read_bytes(), str(source), "exec", dont_inherit=True, optimize=optimize))
    except (OSError, ValueError, EOFError, TypeError, SyntaxError):
        return False
