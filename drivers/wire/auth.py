"""Frame authentication for the framed link: HMAC-SHA256 truncated to 8 bytes, per device key (sans-I/O).

Owns one side's keys, nonces and counters (docs/protocols/framing.md,
Authentication, framing version 2). A host and its device share a 32-byte key,
given at pairing (a key file on each side). Every frame then carries a trailer:
COUNTER (u32) and MAC (the first 8 bytes of HMAC-SHA256 over VER..COUNTER).

- The host's Hello is sealed with the pairing key; its COUNTER is the host's
  nonce N_h, fresh for each Hello sent.
- A device that checks a Hello draws its nonce N_d and ACKs the Hello with N_d
  as COUNTER, sealed with the new session's device-to-host key: a challenge.
  The session is only **pending**: the device's live session, if any, goes on.
  A Hello replayed off the line holds its MAC, but whoever replayed it cannot
  answer the challenge, so it changes nothing.
- The host, which knows N_h, learns N_d from that ACK, derives the keys, and
  answers the challenge with its first frame sealed with the host-to-device key
  (a heartbeat, sent at once). Only then does the device replace its session.
- Each direction has its own key, both from the pairing key and both nonces:
  K_hd = HMAC-SHA256(key, "TCP2 host to device" | N_h | N_d), K_dh likewise
  with "TCP2 device to host". A frame reflected back to its sender never holds
  its MAC (version 1 had one key both ways: a reflected host ACK was accepted).
- Every frame after the challenge, in both directions (messages, ACKs, NAKs,
  heartbeats), carries a COUNTER one more than the sender's last (from 1); a
  receiver accepts only a COUNTER above the last it accepted.
- A sealed frame's VER says framing version 2; one sealed by version 1 (one key
  both ways, a Hello that restarts the session) is refused, naming it.

A frame refused here is never NAKed (a forged frame must not draw an answer)
and never acted on; the link reports it (``LinkFault``, ``security``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from pathlib import Path

from drivers.wire.framing import SEALED_VERSION as SCHEME
from drivers.wire.framing import Frame

KEY_SIZE = 32
MAC_SIZE = 8
HOST, DEVICE = "host", "device"


class KeyFileError(ValueError):
    """A device's key file that cannot be used, in words naming the file."""


def read_key(path: str | Path) -> bytes:
    """A pairing key from its file: 64 hexadecimal digits (32 bytes), whitespace ignored."""
    try:
        text = Path(path).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as err:
        raise KeyFileError(f"key file {path}: cannot be read ({err})") from None
    try:
        key = bytes.fromhex("".join(text.split()))
    except ValueError:
        raise KeyFileError(f"key file {path}: not hexadecimal digits") from None
    if len(key) != KEY_SIZE:
        raise KeyFileError(f"key file {path}: {len(key)} bytes, not {KEY_SIZE} (64 hexadecimal digits)")
    return key


def new_key() -> bytes:
    return secrets.token_bytes(KEY_SIZE)


def mac(key: bytes, signed: bytes) -> bytes:
    """A frame's MAC under ``key``, by the standard library's HMAC (what ``Mac`` computes faster)."""
    return hmac.digest(key, signed, "sha256")[:MAC_SIZE]


_IPAD = bytes(x ^ 0x36 for x in range(256))     # RFC 2104's pads, as translation tables
_OPAD = bytes(x ^ 0x5C for x in range(256))
_BLOCK = 64                                     # SHA-256's block


class Mac:
    """``mac`` under one key, its two padded key blocks hashed once (RFC 2104 section 4: HMAC is
    H(K ^ opad | H(K ^ ipad | text)), so the hash states after each padded key can be kept and
    copied). ``mac`` hashes them again for every frame: half of each MAC's work."""

    __slots__ = ("_inner", "_outer")

    def __init__(self, key: bytes):
        if len(key) > _BLOCK:
            key = hashlib.sha256(key).digest()
        key = key.ljust(_BLOCK, b"\0")
        self._inner = hashlib.sha256(key.translate(_IPAD))
        self._outer = hashlib.sha256(key.translate(_OPAD))

    def __call__(self, signed: bytes) -> bytes:
        inner = self._inner.copy()
        inner.update(signed)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()[:MAC_SIZE]


TO_DEVICE, TO_HOST = b"TCP2 host to device", b"TCP2 device to host"
STALE = "a frame of the session that ended"          # refused, but expected for a moment: quiet
NO_SESSION = "no session yet"


def direction_key(key: bytes, label: bytes, host_nonce: int, device_nonce: int) -> bytes:
    """One direction's session key: HMAC-SHA256(pairing key, label | N_h | N_d)."""
    return hmac.new(key, label + host_nonce.to_bytes(4, "big") + device_nonce.to_bytes(4, "big"),
                    hashlib.sha256).digest()


def session_keys(key: bytes, host_nonce: int, device_nonce: int) -> tuple[bytes, bytes]:
    """The session's (host-to-device, device-to-host) keys."""
    return (direction_key(key, TO_DEVICE, host_nonce, device_nonce),
            direction_key(key, TO_HOST, host_nonce, device_nonce))


def _holds(key: Mac | None, frame: Frame) -> bool:
    return key is not None and hmac.compare_digest(key(frame.signed), frame.mac)


class Authenticator:
    """One side of an authenticated link: ``seal`` what we send, ``check`` what we receive."""

    def __init__(self, key: bytes, role: str, *, nonce: Callable[[], int] = lambda: secrets.randbits(32)):
        if len(key) != KEY_SIZE:
            raise ValueError(f"a pairing key is {KEY_SIZE} bytes, not {len(key)}")
        self.key, self.role, self._nonce = key, role, nonce
        self._pairing = Mac(key)
        self.reset()

    def reset(self) -> None:
        """No session (a new connection, a reboot)."""
        self._send_key: Mac | None = None       # this session's key for what we send
        self._recv_key: Mac | None = None       # and for what we receive
        self._ended: Mac | None = None          # the host: the receive key of the session its Hello ended
        self._pending: tuple[Mac, Mac] | None = None   # the device: a checked Hello's (send, receive)
        self.host_nonce: int | None = None      # the host: its last Hello's; the device: the last checked
        self.sent = 0                           # the last COUNTER we sent in this session
        self.heard = 0                          # the last COUNTER we accepted in this session
        self.pending_ack_nonce = 0              # the device: its nonce, for the ACK of the Hello checked

    @property
    def ready(self) -> bool:
        return self._send_key is not None

    def _start(self, send_key: Mac, recv_key: Mac, heard: int = 0) -> None:
        self._send_key, self._recv_key, self.sent, self.heard = send_key, recv_key, 0, heard

    # --- sending ---------------------------------------------------------------------------------

    def seal_hello(self, body: bytes) -> bytes:
        """The host's Hello: a new nonce, under the pairing key; the old session ends."""
        self.host_nonce = self._nonce()
        self._ended = self._recv_key or self._ended
        self._send_key = self._recv_key = None
        self.sent = self.heard = 0
        return self._trailer(self._pairing, body, self.host_nonce)

    def seal_hello_ack(self, body: bytes, device_nonce: int) -> bytes:
        """The device's ACK of a Hello, its challenge: its nonce, under the pending session's key."""
        assert self._pending is not None
        return self._trailer(self._pending[0], body, device_nonce)

    def seal(self, body: bytes) -> bytes | None:
        """Any other frame: the next COUNTER under our session key; None without a session."""
        if self._send_key is None:
            return None
        return self.seal_next(body)

    def seal_next(self, body: bytes) -> bytes:
        """``seal`` when ``ready`` (a session): the link's path for every frame it sends."""
        key = self._send_key
        assert key is not None, "sealing with no session"
        self.sent += 1
        count = self.sent.to_bytes(4, "big")
        return count + key(body + count)

    @staticmethod
    def _trailer(key: Mac, body: bytes, counter: int) -> bytes:
        count = counter.to_bytes(4, "big")
        return count + key(body + count)

    # --- receiving -------------------------------------------------------------------------------

    @staticmethod
    def _old_scheme(frame: Frame) -> str | None:
        if frame.version != SCHEME:
            return (f"sealed by framing version {frame.version} (one key both ways; its Hello restarts the "
                    f"session): this controller takes version {SCHEME} only, the device needs new firmware")
        return None

    def check_hello(self, frame: Frame) -> str | None:
        """A device's check of a Hello; on success a pending session and the nonce for its challenge.
        The live session, if any, is untouched until the host answers the challenge (``confirm``)."""
        if not frame.authenticated:
            return "unauthenticated Hello"
        if (old := self._old_scheme(frame)) is not None:
            return old
        if not _holds(self._pairing, frame):
            return "Hello with a bad MAC"
        assert frame.counter is not None
        device_nonce = self._nonce()
        to_device, to_host = session_keys(self.key, frame.counter, device_nonce)
        self._pending, self.pending_ack_nonce = (Mac(to_host), Mac(to_device)), device_nonce
        return None

    def confirm(self, frame: Frame) -> bool:
        """The device: True when ``frame`` answers the pending Hello's challenge (sealed with its
        host-to-device key); the pending session is then ours."""
        if self._pending is None or not frame.authenticated or self._old_scheme(frame) is not None:
            return False
        if not _holds(self._pending[1], frame) or not frame.counter:
            return False
        self._start(*self._pending, heard=frame.counter)
        self._pending = None
        return True

    def check_hello_ack(self, frame: Frame) -> bool:
        """The host's check of a frame that may be its Hello's ACK: True (a new session) when it is."""
        if not frame.authenticated or self.host_nonce is None or frame.counter is None:
            return False
        if self._old_scheme(frame) is not None:
            return False
        to_device, to_host = session_keys(self.key, self.host_nonce, frame.counter)
        receive = Mac(to_host)
        if not _holds(receive, frame):
            return False
        self._start(Mac(to_device), receive)
        return True

    def check(self, frame: Frame) -> str | None:
        """Any other frame: None when it is authentic and new, else why it is refused."""
        counter, key = frame.counter, self._recv_key       # every frame passes here: written out flat
        if counter is None:
            return "unauthenticated frame"
        if frame.version != SCHEME:
            return self._old_scheme(frame)
        if key is None or not hmac.compare_digest(key(frame.signed), frame.mac):
            if _holds(self._ended, frame):
                return STALE
            return NO_SESSION if key is None else "bad MAC"
        if counter <= self.heard:
            return f"replayed frame (counter {counter}, last {self.heard})"
        self.heard = counter
        return None
