"""What a person may type for the table to journal and show: a reason, mostly.

Owns the rule for such text, one for every door it comes in by: the dealer's page and the engine
(controller/engine_events.py ``bad_arguments``), the floor's pit page (controller/floor/pit_page.py),
the technicians' ``table-controller behind clear``. It is journaled, shown on pages in every snapshot
while its alert stands, and printed by the technicians' tools, so: at most ``MOST`` characters (the
page's own reason field holds as many, index.html; the test lab's 16 KiB reasons took a snapshot
from 4.8 to 157 KB), and nothing that would move or hide what is around it where it is shown or
printed (a line break, a terminal's escape, a right-to-left override, a lone surrogate).
"""

from __future__ import annotations

import unicodedata

MOST = 200
# a number a person types (a position, an amount, a jackpot's value in cents) has at most this many
# digits: ten trillion dollars. Larger ones were refused further on, in words that repeated them
DIGITS_MOST = 15
# control (Cc), formatting (Cf: bidirectional overrides, zero-width), lone surrogates (Cs), line and
# paragraph separators (Zl, Zp)
UNSHOWABLE = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
# but the zero-width non-joiner and joiner (Cf too): words are spelled with them (Persian, the Indic
# scripts) and emoji made of them (a health worker is woman + joiner + staff); they move nothing
JOINERS = frozenset({"\u200c", "\u200d"})


def text_problem(name: str, value: str) -> str | None:
    """Why ``value`` cannot be taken as ``name`` (in the words the page shows), or None."""
    if len(value) > MOST:
        return f"{name} must be at most {MOST} characters, not {len(value)}"
    if any(unicodedata.category(c) in UNSHOWABLE and c not in JOINERS for c in value):
        return f"{name} must be plain text, without control or formatting characters"
    return None


def number_problem(name: str, value: int) -> str | None:
    if abs(value) >= 10 ** DIGITS_MOST:
        return f"{name} must be a whole number of at most {DIGITS_MOST} digits"
    return None
