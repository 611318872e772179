"""A role's SCRAM-SHA-256 verifier, computed here so that a table's password never reaches the server.

Owns ``scram_verifier``: what PostgreSQL stores in ``pg_authid.rolpassword`` for a SCRAM role,
``SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`` (RFC 5802 / 7677, PostgreSQL's
``scram_build_secret``): SaltedPassword = PBKDF2-HMAC-SHA-256(SASLprep(password), salt,
iterations), ClientKey = HMAC(SaltedPassword, "Client Key"), StoredKey = SHA-256(ClientKey),
ServerKey = HMAC(SaltedPassword, "Server Key"). ``CREATE ROLE ... PASSWORD 'SCRAM-SHA-256$...'``
then stores it as given: a statement that lands in the server's log (``log_statement``, an
error's context) shows the verifier, from which the password cannot be read back, never the
password itself. The password is SASLprep'ed as PostgreSQL does, and used as its raw UTF-8
bytes when SASLprep refuses it (PostgreSQL's own fallback), so the role logs in with exactly it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import stringprep
import unicodedata

ITERATIONS = 4096           # PostgreSQL's scram_iterations default
SALT_BYTES = 16             # PostgreSQL's SCRAM_DEFAULT_SALT_LEN

_PROHIBITED = (stringprep.in_table_c12, stringprep.in_table_c21_c22, stringprep.in_table_c3, stringprep.in_table_c4,
               stringprep.in_table_c5, stringprep.in_table_c6, stringprep.in_table_c7, stringprep.in_table_c8,
               stringprep.in_table_c9)


def saslprep(password: str) -> bytes:
    """The bytes PostgreSQL hashes for ``password``: RFC 4013 SASLprep, or the raw UTF-8 when the
    password holds what SASLprep prohibits (PostgreSQL's pg_saslprep falls back the same way)."""
    raw = password.encode("utf-8")
    if password.isascii() and password.isprintable():
        return raw                                  # SASLprep leaves printable ASCII as it is
    mapped = "".join(" " if stringprep.in_table_c12(c) else c for c in password if not stringprep.in_table_b1(c))
    prepared = unicodedata.normalize("NFKC", mapped)
    if not prepared or any(test(c) for c in prepared for test in _PROHIBITED[1:]):
        return raw
    rand_al = [stringprep.in_table_d1(c) for c in prepared]
    if any(rand_al):                                # RFC 3454 section 6: right-to-left text
        if any(stringprep.in_table_d2(c) for c in prepared) or not (rand_al[0] and rand_al[-1]):
            return raw
    return prepared.encode("utf-8")


def scram_verifier(password: str, salt: bytes | None = None, iterations: int = ITERATIONS) -> str:
    """The SCRAM-SHA-256 verifier of ``password`` (a fresh random salt unless given)."""
    salt = os.urandom(SALT_BYTES) if salt is None else salt
    salted = hashlib.pbkdf2_hmac("sha256", saslprep(password), salt, iterations)
    client_key = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
    stored_key = hashlib.sha256(client_key).digest()
    server_key = hmac.new(salted, b"Server Key", hashlib.sha256).digest()

    def b64(data: bytes) -> str:
        return base64.b64encode(data).decode("ascii")

    return f"SCRAM-SHA-256${iterations}:{b64(salt)}${b64(stored_key)}:{b64(server_key)}"
