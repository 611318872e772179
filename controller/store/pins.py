"""Who may do what: the roles, their PINs as salted scrypt hashes, and lockout after wrong PINs.

Owns the PIN file (``pins.json`` in the data directory, mode 0600) and the
only check of a PIN. Each holder is a role and a name ("supervisor", "Ana");
the page asks for the role and the PIN, and the holder whose PIN matches is
who did the action. After ``attempts`` wrong PINs in a row for one role that
role is locked for ``lockout`` seconds, even against the right PIN; the count
and the lock are kept in the file, so restarting the controller does not
clear them. The file is re-read under an exclusive ``flock`` before every
check or change, so a PIN set with ``table-controller pin set`` while the
controller runs is seen at once and neither process overwrites the other.
Every refusal and lock is logged at warning level, so it lands in the audit
trail.

File format (JSON, written whole to a temporary file and renamed):
  {"version": 1,
   "holders": [{"role", "name", "salt" (hex), "hash" (hex), "n", "r", "p", "set_at"}],
   "lockouts": {role: {"failures": int, "until": epoch seconds}}}
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import structlog

from controller.errors import InputError

ROLES = ("dealer", "supervisor", "technician")
PRIVILEGED_ROLES = ("supervisor", "technician")
PIN_FILE = "pins.json"
MIN_PIN, MAX_PIN = 4, 12
# scrypt cost: about 16 MiB and a few tens of milliseconds per check on a table PC,
# so guessing offline from a stolen file is slow while a touch on the page is not.
SCRYPT = {"n": 2 ** 14, "r": 8, "p": 1}


class PinError(InputError):
    """A PIN that cannot be set (format, unknown role) or a PIN file that cannot be read."""


class PinRefused(InputError, PermissionError):
    """A wrong PIN, a locked role, or no holder for the role; the message says which."""


@dataclass(frozen=True)
class Identity:
    role: str
    name: str

    def __str__(self) -> str:
        return f"{self.role} {self.name}"


def _hash(pin: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(pin.encode(), salt=salt, n=n, r=r, p=p, maxmem=64 * 1024 * 1024, dklen=32)


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
            return {"version": 1, "holders": [], "lockouts": {}}
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
            if doc.get("version") != 1 or not isinstance(doc.get("holders"), list):
                raise ValueError("not a version 1 PIN file")
            for i, h in enumerate(doc["holders"]):
                missing = {"role", "name", "salt", "hash", "n", "r", "p"} - set(h)
                if missing or h["role"] not in ROLES:
                    problem = f"missing {', '.join(sorted(missing))}" if missing else f"unknown role {h['role']!r}"
                    raise ValueError(f"holder {i + 1}: {problem}")
            doc.setdefault("lockouts", {})
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
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(self._doc, f, indent=1, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    # --- holders -----------------------------------------------------------------------

    def holders(self) -> list[Identity]:
        return [Identity(h["role"], h["name"]) for h in self._doc["holders"]]

    def set_pin(self, role: str, name: str, pin: str) -> None:
        """Give ``name`` (in ``role``) a PIN, replacing the one they had."""
        if role not in ROLES:
            raise PinError(f"role {role!r} unknown (roles: {', '.join(ROLES)})")
        name = name.strip()
        if not name:
            raise PinError("a PIN holder needs a name")
        if not (pin.isascii() and pin.isdigit() and MIN_PIN <= len(pin) <= MAX_PIN):
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
            self._doc["holders"] = [h for h in self._doc["holders"]
                                    if not (h["role"] == role and h["name"] == name)] + [entry]
            self._write()
        self.log.info("pin.set", role=role, holder=name)

    def remove(self, role: str, name: str) -> bool:
        with self._locked():
            before = len(self._doc["holders"])
            self._doc["holders"] = [h for h in self._doc["holders"]
                                    if not (h["role"] == role and h["name"] == name)]
            removed = len(self._doc["holders"]) < before
            if removed:
                self._write()
        if removed:
            self.log.info("pin.removed", role=role, holder=name)
        return removed

    # --- the check -----------------------------------------------------------------------

    def locked_for(self, role: str) -> float:
        """Seconds the role stays locked (0 when it is not)."""
        entry = self._doc["lockouts"].get(role)
        return max(0.0, entry["until"] - self.clock()) if entry else 0.0

    def check(self, role: str, pin: str, *, action: str = "", source: str | None = "") -> Identity:
        """The holder of ``role`` whose PIN this is; ``PinRefused`` saying why otherwise.
        ``source`` (logged) is the asking address, None where the server does not know it."""
        if role not in ROLES:
            raise PinRefused(f"role {role!r} unknown (roles: {', '.join(ROLES)})")
        with self._locked():
            wait = self.locked_for(role)
            if wait > 0:
                self.log.warning("pin.locked_out", role=role, action=action, source=source,
                                 seconds_left=round(wait))
                raise PinRefused(f"{role} PIN locked after {self.attempts} wrong PINs; "
                                 f"try again in {_duration(wait)}")
            candidates = [h for h in self._doc["holders"] if h["role"] == role]
            if not candidates:
                raise PinRefused(f"no {role} PIN is set on this table "
                                 f"(a technician sets one with `table-controller pin set {role} NAME`)")
            for h in candidates:
                if hmac.compare_digest(_hash(str(pin), bytes.fromhex(h["salt"]), h["n"], h["r"], h["p"]),
                                       bytes.fromhex(h["hash"])):
                    if role in self._doc["lockouts"]:
                        del self._doc["lockouts"][role]
                        self._write()
                    return Identity(role, h["name"])
            entry = self._doc["lockouts"].setdefault(role, {"failures": 0, "until": 0})
            entry["failures"] += 1
            failures = entry["failures"]
            if failures >= self.attempts:
                entry["until"] = self.clock() + self.lockout
                entry["failures"] = 0
            self._write()
        if failures >= self.attempts:
            self.log.warning("pin.lockout", role=role, action=action, source=source,
                             seconds=self.lockout)
            raise PinRefused(f"wrong {role} PIN; {role} PIN locked for {_duration(self.lockout)} "
                             f"after {self.attempts} wrong PINs")
        self.log.warning("pin.wrong", role=role, action=action, source=source, failures=failures)
        left = self.attempts - failures
        raise PinRefused(f"wrong {role} PIN ({left} more {'try' if left == 1 else 'tries'} "
                         f"before the {role} PIN is locked)")


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, rest = divmod(seconds, 60)
    return f"{minutes} min" + (f" {rest} s" if rest else "")
