"""The controller's errors: one tree under ``TableError``.

Owns the base classes only; each module declares its own errors under the one
that says what went wrong, and the command line (controller/cli/) maps them to
exit statuses in one place:

    TableError                  everything the controller raises on purpose
    ├── InputError (ValueError) bad input refused with words: a file, card text,
    │                           configuration, pay table, round or PIN request   exit 2
    └── IntegrityError          the journal or audit trail cannot be trusted
        │                       or written                                        exit 3*
        └── JournalError        the journal (controller/store/journal.py) in particular

(* ``run``, ``recall``, ``meters`` and ``jackpot`` keep the 2 they exited with
for these before the tree existed; ``audit verify`` reports a broken chain as
its verdict, exit 1.)

``InputError`` is also a ``ValueError``, as the errors under it were before the
tree, so callers that catch ``ValueError`` still catch them. ``drivers/`` and
``simulators/`` keep their own exceptions: they do not import from here.
"""

from __future__ import annotations


class TableError(Exception):
    """Raised on purpose by the controller; the message says what and where."""


class InputError(TableError, ValueError):
    """Bad input refused with words: the message names the file, key, card or field."""


class IntegrityError(TableError):
    """The journal or the audit trail cannot be trusted or written; the message names file and record."""


class JournalError(IntegrityError, RuntimeError):
    """A journal that cannot be trusted or written; the message names the file and record. Declared
    here, not in controller/store/journal.py, so that its checks (controller/store/verify.py) raise it
    without importing the journal they check."""
