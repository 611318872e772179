"""Frame authentication for the framed link: HMAC-SHA256 truncated to 8 bytes, per device key (sans-I/O).

Owns one side's keys, nonces and counters (docs/protocols/framing.md,
Authentication). A host and its device share a 32-byte key, given at pairing
(a key file on each side). Every frame then carries a trailer: COUNTER (u32)
and MAC (the first 8 bytes of HMAC-SHA256 over VER..COUNTER).

- The host's Hello is sealed with the pairing key; its COUNTER is the host's
  nonce N_h, fresh for each Hello sent. A device accepts any Hello whose MAC
  holds (it only restarts the session) and starts a new session.
- The device ACKs that Hello with its nonce N_d as COUNTER, sealed with the
  session key K = HMAC-SHA256(key, "TCP1 session" | N_h | N_d): the host,
  which knows N_h, learns N_d from it and derives the same K.
- Every other frame, in both directions (messages, ACKs, NAKs, heartbeats), is
  sealed with K and a COUNTER one more than the sender's last (from 1); a
  receiver accepts only a COUNTER above the last it accepted. An old frame
  (another session: another K) or a replayed one (a COUNTER already seen) is
  refused.
- Without a session (a device before any Hello, a host between its Hello and
  that Hello's ACK) a side sends nothing but the host's Hello.

A frame refused here is never NAKed (a forged frame must not draw an answer)
and never acted on; the link reports it (``LinkFault``, ``security``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from pathlib import Path

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
    return hmac.new(key, signed, hashlib.sha256).digest()[:MAC_SIZE]


def session_key(key: bytes, host_nonce: int, device_nonce: int) -> bytes:
    return hmac.new(key, b"TCP1 session" + host_nonce.to_bytes(4, "big") + device_nonce.to_bytes(4, "big"),
                    hashlib.sha256).digest()


class Authenticator:
    """One side of an authenticated link: ``seal`` what we send, ``check`` what we receive."""

    def __init__(self, key: bytes, role: str, *, nonce: Callable[[], int] = lambda: secrets.randbits(32)):
        if len(key) != KEY_SIZE:
            raise ValueError(f"a pairing key is {KEY_SIZE} bytes, not {len(key)}")
        self.key, self.role, self._nonce = key, role, nonce
        self.reset()

    def reset(self) -> None:
        """No session (a new connection, a reboot)."""
        self.session: bytes | None = None
        self.host_nonce: int | None = None      # the host: its last Hello's; the device: the session's
        self.sent = 0                           # the last COUNTER we sent in this session
        self.heard = 0                          # the last COUNTER we accepted in this session
        self.pending_ack_nonce = 0              # the device: its nonce, for the ACK of the Hello checked

    @property
    def ready(self) -> bool:
        return self.session is not None

    # --- sending ---------------------------------------------------------------------------------

    def seal_hello(self, body: bytes) -> bytes:
        """The host's Hello: a new nonce, under the pairing key; the old session ends."""
        self.host_nonce = self._nonce()
        self.session, self.sent, self.heard = None, 0, 0
        return self._trailer(self.key, body, self.host_nonce)

    def seal_hello_ack(self, body: bytes, device_nonce: int) -> bytes:
        """The device's ACK of a Hello: its nonce, under the new session key."""
        assert self.session is not None
        return self._trailer(self.session, body, device_nonce)

    def seal(self, body: bytes) -> bytes | None:
        """Any other frame: the next COUNTER under the session key; None without a session."""
        if self.session is None:
            return None
        self.sent += 1
        return self._trailer(self.session, body, self.sent)

    @staticmethod
    def _trailer(key: bytes, body: bytes, counter: int) -> bytes:
        signed = body + counter.to_bytes(4, "big")
        return signed[len(body):] + mac(key, signed)

    # --- receiving -------------------------------------------------------------------------------

    def check_hello(self, frame: Frame) -> str | None:
        """A device's check of a Hello; on success a new session and the nonce for its ACK."""
        if not frame.authenticated:
            return "unauthenticated Hello"
        if not hmac.compare_digest(mac(self.key, frame.signed), frame.mac):
            return "Hello with a bad MAC"
        device_nonce = self._nonce()
        assert frame.counter is not None
        self.host_nonce = frame.counter
        self.session, self.sent, self.heard = session_key(self.key, frame.counter, device_nonce), 0, 0
        self.pending_ack_nonce = device_nonce
        return None

    def check_hello_ack(self, frame: Frame) -> bool:
        """The host's check of a frame that may be its Hello's ACK: True (a new session) when it is."""
        if not frame.authenticated or self.host_nonce is None or frame.counter is None:
            return False
        candidate = session_key(self.key, self.host_nonce, frame.counter)
        if not hmac.compare_digest(mac(candidate, frame.signed), frame.mac):
            return False
        self.session, self.sent, self.heard = candidate, 0, 0
        return True

    def check(self, frame: Frame) -> str | None:
        """Any other frame: None when it is authentic and new, else why it is refused."""
        if not frame.authenticated:
            return "unauthenticated frame"
        if self.session is None:
            return "no session yet"
        if not hmac.compare_digest(mac(self.session, frame.signed), frame.mac):
            return "bad MAC"
        assert frame.counter is not None
        if frame.counter <= self.heard:
            return f"replayed frame (counter {frame.counter}, last {self.heard})"
        self.heard = frame.counter
        return None
