"""Who may do what: the roles, their PINs as salted scrypt hashes, and lockout after wrong PINs.

Owns the PIN file (``pins.json`` in the data directory, mode 0600) and the
only check of a PIN. Each holder is a role and a name ("supervisor", "Ana");
the page asks for the role and the PIN, and the holder whose PIN matches is
who did the action.

The lockout is the table's, across roles: after ``attempts`` wrong PINs in a
row, whatever role each named, PIN entry is locked for every role, even
against the right PIN, for ``lockout`` seconds; each further lockout before a
right PIN lasts twice the one before, up to ``LOCKOUT_MOST`` (a day). A right
PIN clears the count and the doubling. So guessing across roles gains
nothing, and guessing for long gains little (docs/page-api.md has the
figures). The count and the lock are kept in the file, so restarting the
controller does not clear them. The file is re-read under an exclusive
``flock`` before every check or change, so a PIN set with ``table-controller
pin set`` while the controller runs is seen at once and neither process
overwrites the other. Every refusal and lock is logged at warning level, so
it lands in the audit trail.

File format (JSON, written whole to a temporary file and renamed):
  {"version": 1,
   "holders": [{"role", "name", "salt" (hex), "hash" (hex), "n", "r", "p", "set_at"}],
   "lockout": {"failures": int (wrong PINs in a row since the last lock or right PIN),
               "until": epoch seconds (0: not locked), "lockouts": int (since the last right PIN)}}
A file of the earlier per-role form (``"lockouts": {role: {"failures", "until"}}``) is read as
the table's lockout: the latest lock and the most failures of any role. The version stays 1 (the
change only adds a key), so an earlier controller still reads the file; it ignores the lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import structlog

from controller.errors import InputError
from controller.rules.typed_text import text_problem
from controller.store.private_file import replace_private

ROLES = ("dealer", "supervisor", "technician")
PRIVILEGED_ROLES = ("supervisor", "technician")
PIN_FILE = "pins.json"
MIN_PIN, MAX_PIN = 4, 12
# scrypt cost: about 16 MiB and a few tens of milliseconds per check on a table PC,
# so guessing offline from a stolen file is slow while a touch on the page is not.
SCRYPT = {"n": 2 ** 14, "r": 8, "p": 1}


def never_a_pin(role: str, pin: str) -> str | None:
    """Why ``pin`` can be no PIN at all (too short, too long, not digits), in the page's words; None
    for one that could be. Such a PIN is refused without being tried: a slip (or a pasted name) does
    not count towards the lockout, and nothing can be learned from it."""
    if len(pin) < MIN_PIN:
        return f"a {role} PIN has at least {MIN_PIN} digits; this one was not tried and does not count as a wrong PIN"
    if not pin_shaped(pin):
        return (f"a {role} PIN is {MIN_PIN} to {MAX_PIN} digits; this one was not tried and does not count as a "
                "wrong PIN")
    return None


def pin_shaped(pin: str) -> bool:
    """What every PIN is: MIN_PIN to MAX_PIN ASCII digits (``set_pin`` takes no other)."""
    return pin.isascii() and pin.isdigit() and MIN_PIN <= len(pin) <= MAX_PIN


LOCKOUT_MOST = 86_400.0         # the doubling stops at a day: a supervisor is not locked out for good


class PinError(InputError):
    """A PIN that cannot be set (format, unknown role) or a PIN file that cannot be read."""


class PinRefused(InputError, PermissionError):
    """A wrong PIN, locked PIN entry, or no holder for the role; the message says which.
    ``locked`` is the length of the lockout this refusal started (seconds), else 0."""

    def __init__(self, message: str, *, locked: float = 0.0):
        super().__init__(message)
        self.locked = locked


@dataclass(frozen=True)
class Identity:
    role: str
    name: str

    def __str__(self) -> str:
        return f"{self.role} {self.name}"


def _hash(pin: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    try:
        return hashlib.scrypt(pin.encode(), salt=salt, n=n, r=r, p=p, maxmem=64 * 1024 * 1024, dklen=32)
    finally:
        _give_back()


def _malloc_trim() -> Callable[[int], int] | None:
    try:                                        # a Python built without ctypes still checks PINs
        import ctypes
        trim = ctypes.CDLL(None).malloc_trim    # glibc's; another C library has none and needs none
    except (ImportError, OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int     # int malloc_trim(size_t pad)
    return trim


_TRIM = _malloc_trim()


def _give_back() -> None:
    """scrypt's 16 MiB buffer, freed by OpenSSL, stayed in glibc's heap from the second check on
    (the first free raises malloc's mmap threshold to its size): the controller's resident memory
    stepped from 70 to 86 MB at a soak's first jackpot verification and stayed there. Trimming
    hands it back to the system; PIN checks are rare, the trim takes well under a millisecond."""
    if _TRIM is not None:
        _TRIM(0)


class PinStore:
    def __init__(self, path: str | Path, *, attempts: int = 5, lockout: float = 300.0,
                 clock=time.time):
        self.path = Path(path)
        self.attempts = attempts
        self.lockout = lockout
        self.clock = clock
        self.log = structlog.get_logger("pins")
        self._lock = threading.Lock()
        self._doc = self._read()

    # --- the file ----------------------------------------------------------------------

    def _read(self) -> dict:
        if not self.path.exists():
            return {"version": 1, "holders": [], "lockout": _unlocked()}
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
            if doc.get("version") != 1 or not isinstance(doc.get("holders"), list):
                raise ValueError("not a version 1 PIN file")
            for i, h in enumerate(doc["holders"]):
                missing = {"role", "name", "salt", "hash", "n", "r", "p"} - set(h)
                if missing or h["role"] not in ROLES:
                    problem = f"missing {', '.join(sorted(missing))}" if missing else f"unknown role {h['role']!r}"
                    raise ValueError(f"holder {i + 1}: {problem}")
            doc["lockout"] = _lockout(doc)
            return doc
        except (OSError, ValueError) as err:
            raise PinError(f"{self.path}: cannot read the PIN file: {err}") from None

    @contextlib.contextmanager
    def _locked(self):
        """The thread lock and the file lock around one read-check-write."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock, open(self.path.with_suffix(".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                self._doc = self._read()
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        replace_private(self.path, json.dumps(self._doc, indent=1, sort_keys=True).encode("utf-8"),
                        self.path.with_suffix(".tmp"))

    # --- holders -----------------------------------------------------------------------

    def holders(self) -> list[Identity]:
        return [Identity(h["role"], h["name"]) for h in self._doc["holders"]]

    def set_pin(self, role: str, name: str, pin: str) -> Callable[[], None]:
        """Give ``name`` (in ``role``) a PIN, replacing the one they had; how to take that back."""
        if role not in ROLES:
            raise PinError(f"role {role!r} unknown (roles: {', '.join(ROLES)})")
        name = name.strip()
        if not name:
            raise PinError("a PIN holder needs a name")
        if (problem := text_problem("a PIN holder's name", name)) is not None:   # shown on the page, journaled
            raise PinError(problem)
        if not pin_shaped(pin):
            raise PinError(f"a PIN is {MIN_PIN} to {MAX_PIN} digits")
        with self._locked():
            for h in self._doc["holders"]:
                if h["role"] == role and h["name"] != name and \
                        hmac.compare_digest(_hash(pin, bytes.fromhex(h["salt"]), h["n"], h["r"], h["p"]),
                                            bytes.fromhex(h["hash"])):
                    # two holders of one role with one PIN could not be told apart
                    raise PinError(f"another {role} already has that PIN; choose another")
            salt = secrets.token_bytes(16)
            entry = {"role": role, "name": name, "salt": salt.hex(),
                     "hash": _hash(pin, salt, **SCRYPT).hex(), **SCRYPT,
                     "set_at": datetime.now(UTC).isoformat(timespec="seconds")}
            undo = self._undo(role, name)
            self._doc["holders"] = [h for h in self._doc["holders"]
                                    if not (h["role"] == role and h["name"] == name)] + [entry]
            self._write()
        self.log.info("pin.set", role=role, holder=name)
        return undo

    def remove(self, role: str, name: str) -> Callable[[], None] | None:
        """Take ``name``'s PIN in ``role`` away; how to give it back, or None: there was none."""
        with self._locked():
            undo = self._undo(role, name)
            before = len(self._doc["holders"])
            self._doc["holders"] = [h for h in self._doc["holders"]
                                    if not (h["role"] == role and h["name"] == name)]
            removed = len(self._doc["holders"]) < before
            if removed:
                self._write()
        if removed:
            self.log.info("pin.removed", role=role, holder=name)
        return undo if removed else None

    def _undo(self, role: str, name: str) -> Callable[[], None]:
        """How to take back a change to one holder, read under the lock the change is made under: the
        holder's entry as it is now goes back, under the lock again, and nothing else does. A lockout
        count the playing table wrote in between stays (a copy of the whole file put back would have
        reset it, and let a guesser go on)."""
        holders = self._doc["holders"]
        at = next((i for i, h in enumerate(holders) if h["role"] == role and h["name"] == name), len(holders))
        kept = [dict(h) for h in holders if h["role"] == role and h["name"] == name]

        def undo() -> None:
            with self._locked():
                others = [h for h in self._doc["holders"] if not (h["role"] == role and h["name"] == name)]
                self._doc["holders"] = others[:at] + kept + others[at:]
                self._write()
            self.log.info("pin.put_back", role=role, holder=name)
        return undo

    # --- the check -----------------------------------------------------------------------

    def locked_for(self, role: str | None = None) -> float:
        """Seconds PIN entry stays locked (0 when it is not): the lock is the table's, the same
        for every role (``role`` is accepted for callers that ask per role)."""
        return max(0.0, self._doc["lockout"]["until"] - self.clock())

    def check(self, role: str, pin: str, *, action: str = "", source: str | None = "") -> Identity:
        """The holder of ``role`` whose PIN this is; ``PinRefused`` saying why otherwise.
        ``source`` (logged) is the asking address, None where the server does not know it."""
        if role not in ROLES:
            raise PinRefused(f"role {role!r} unknown (roles: {', '.join(ROLES)})")
        with self._locked():
            lock = self._doc["lockout"]
            wait = self.locked_for()
            if wait > 0:
                self.log.warning("pin.locked_out", role=role, action=action, source=source,
                                 seconds_left=round(wait))
                raise PinRefused(f"PIN entry is locked for every role after {self.attempts} wrong PINs in a "
                                 f"row; try again in {duration(wait)}")
            candidates = [h for h in self._doc["holders"] if h["role"] == role]
            if not candidates:
                raise PinRefused(f"no {role} PIN is set on this table "
                                 f"(a technician sets one with `table-controller pin set {role} NAME`)")
            for h in candidates:
                if hmac.compare_digest(_hash(str(pin), bytes.fromhex(h["salt"]), h["n"], h["r"], h["p"]),
                                       bytes.fromhex(h["hash"])):
                    if lock != _unlocked():
                        self._doc["lockout"] = _unlocked()
                        self._write()
                    return Identity(role, h["name"])
            lock["failures"] += 1
            failures = lock["failures"]
            locked = 0.0
            if failures >= self.attempts:
                lock["lockouts"] += 1
                locked = min(self.lockout * 2 ** min(lock["lockouts"] - 1, 32), max(LOCKOUT_MOST, self.lockout))
                lock["until"] = self.clock() + locked
                lock["failures"] = 0
            self._write()
        if locked:
            self.log.warning("pin.lockout", role=role, action=action, source=source, seconds=locked,
                             lockouts=lock["lockouts"])
            raise PinRefused(f"wrong {role} PIN; PIN entry locked for every role for {duration(locked)} "
                             f"after {self.attempts} wrong PINs in a row", locked=locked)
        self.log.warning("pin.wrong", role=role, action=action, source=source, failures=failures)
        left = self.attempts - failures
        raise PinRefused(f"wrong {role} PIN (PIN entry locks for every role after {left} more wrong "
                         f"{'PIN' if left == 1 else 'PINs'})")


def _unlocked() -> dict:
    return {"failures": 0, "until": 0, "lockouts": 0}


def _lockout(doc: dict) -> dict:
    """The table's lockout from a file: its own, or the one of the earlier per-role form."""
    lock = doc.pop("lockout", None)
    old = doc.pop("lockouts", None)
    if isinstance(lock, dict):
        merged = _unlocked()
        for key in merged:
            value = lock.get(key, 0)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f"lockout.{key}: {value!r} is not a count or a time")
            merged[key] = value
        return merged
    merged = _unlocked()
    for role, entry in (old.items() if isinstance(old, dict) else ()):
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k, 0), (int, float))
                                                  for k in ("failures", "until")):
            raise ValueError(f"lockouts.{role}: not a count of failures and a time")
        merged["failures"] = max(merged["failures"], int(entry.get("failures", 0)))
        merged["until"] = max(merged["until"], entry.get("until", 0))
    merged["lockouts"] = 1 if merged["until"] else 0
    return merged


def duration(seconds: float) -> str:
    """A length of time in words: "20 s", "4 min 10 s", "2 h 40 min"."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        minutes, rest = divmod(seconds, 60)
        return f"{minutes} min" + (f" {rest} s" if rest else "")
    hours, rest = divmod(seconds, 3600)
    return f"{hours} h" + (f" {rest // 60} min" if rest // 60 else "")
