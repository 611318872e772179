"""Who is dealing: the dealer signed in at the table, journaled as table events, between rounds only.

Owns the table's dealer on duty. A dealer signs in at the start of a shift with their own PIN: the
page checks it against the PIN file's dealer holders (controller/store/pins.py) and names the holder,
so the name is never one the request gives. A change of dealer is the next dealer signing in (one
touch and their PIN); a dealer signs out at the end of the table's day. Each is a table event in the
journal, on its keyed chain like every fact:

  dealer_signed_in   name, replaces (the dealer on duty before, or null)
  dealer_signed_out  name, by (the PIN holder who signed them out, or why the table did; absent in
                     journals before it was recorded)

Signing out takes a PIN too (the page checks it, machine.PIN_ROLES): the dealer on duty's own, or a
supervisor's or technician's; anyone at the page could sign the dealer out before. A dealer whose PIN
is removed (``table-controller pin remove dealer NAME``, journaled as ``pin_changed``) is signed out by
the table at the next round boundary: when a round ends (complete or void) and before betting opens.

Both are taken between rounds only (ready, complete, void), so one dealer deals a round from its
opening to its end, and the round's ``opened`` record names them (``opening``). Betting does not
open while nobody is signed in (``problem``, asked by the condition ``dealer_on_duty`` of
``open_betting``). At start-up the last of those events says who is on duty: a restart of the
controller does not sign the dealer out.

With ``page.dealer_sign_in = false`` (a table whose dealers have no PINs) nobody signs in, betting
opens as before, and each round's ``opened`` record says ``dealer: null``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from controller.round import machine as procedure
from controller.round.clerk import Clerk

if TYPE_CHECKING:
    from controller.app.config import TableConfig

SIGNED_IN, SIGNED_OUT = "dealer_signed_in", "dealer_signed_out"
DEALER_PREFIX = "dealer "           # who the page names a dealer's PIN holder: "dealer Ana"
OVERSEERS = ("supervisor ", "technician ")      # PIN holders who may sign any dealer out
PIN_CHANGED = "pin_changed"         # controller/cli/pins.py: a PIN set or removed, journaled
PIN_REMOVED = "the table: the dealer's PIN was removed"


class DealerShift:
    def __init__(self, clerk: Clerk, config: TableConfig) -> None:
        self._clerk = clerk
        self.required = config.dealer_sign_in
        self._name: str | None = None
        self._name_before: str | None = None      # the dealer just signed out (for the alert's words)
        self._since: str | None = None
        self._since_seq = 0             # the sign-in's table event: PIN changes after it count
        row = clerk.journal.db.execute(
            "SELECT kind, at, data, seq FROM table_events WHERE kind IN (?, ?) ORDER BY seq DESC LIMIT 1",
            (SIGNED_IN, SIGNED_OUT)).fetchone()
        if row is not None and row[0] == SIGNED_IN:
            self._name, self._since, self._since_seq = json.loads(row[2])["name"], row[1], row[3]

    @property
    def name(self) -> str | None:
        """The dealer on duty (None: nobody is signed in)."""
        return self._name

    def view(self) -> dict[str, Any]:
        """The snapshot's ``shift``: whether dealers sign in here, who is on duty and since when."""
        return {"sign_in": self.required, "dealer": self._name, "since": self._since}

    def opening(self) -> dict[str, Any]:
        """What a new round's ``opened`` record says of who deals it."""
        return {"dealer": self._name if self.required else None}

    def problem(self) -> str | None:
        """Why betting cannot open for want of a dealer (None: it can); the condition ``dealer_on_duty``
        (controller/round/conditions.py) asks it."""
        if self.required and self._name is None:
            return "no dealer is signed in: the dealer signs in with their PIN first (Dealer sign in)"
        return None

    # --- the table's actions (machine.SHIFT_ACTIONS) -----------------------------------------

    def sign_in(self, by: str) -> bool:
        """``by`` is the PIN holder the page checked, "dealer NAME"."""
        clerk = self._clerk
        if not self.required:
            return clerk.refuse("this table's dealers do not sign in (page.dealer_sign_in = false)")
        if not by.startswith(DEALER_PREFIX) or not by[len(DEALER_PREFIX):].strip():
            return clerk.refuse("a dealer signs in with their own dealer PIN")
        if not self._between_rounds():
            return False
        name = by[len(DEALER_PREFIX):].strip()
        self._since = clerk.journal.table_event(SIGNED_IN, {"name": name, "replaces": self._name})
        self._since_seq = clerk.journal.db.execute("SELECT MAX(seq) FROM table_events").fetchone()[0]
        clerk.log.info("table.dealer_signed_in", dealer=name, replaces=self._name, state=clerk.state)
        self._name = name
        return True

    def sign_out(self, by: str) -> bool:
        """``by`` is the PIN holder the page checked: the dealer on duty, or a supervisor or technician."""
        clerk = self._clerk
        if self._name is None:
            return clerk.refuse("no dealer is signed in")
        if by.startswith(DEALER_PREFIX) and by[len(DEALER_PREFIX):].strip() != self._name:
            return clerk.refuse("the dealer on duty signs out with their own PIN, or a supervisor with theirs")
        if not by.startswith(OVERSEERS) and not by.startswith(DEALER_PREFIX):
            return clerk.refuse("signing the dealer out needs the dealer's own PIN or a supervisor's")
        if not self._between_rounds():
            return False
        self._signed_out(by)
        return True

    def round_boundary(self) -> None:
        """A round ended, or betting is about to open: a dealer whose PIN was removed since they signed
        in is signed out (journaled, by the table); betting then waits for a dealer with a PIN."""
        if self._name is None or not self.required:
            return
        last = None
        for (text,) in self._clerk.journal.db.execute("SELECT data FROM table_events WHERE kind = ? AND seq > ? "
                                                      "ORDER BY seq", (PIN_CHANGED, self._since_seq)):
            change = json.loads(text)
            if change.get("role") == "dealer" and change.get("name") == self._name:
                last = change.get("action")
        if last == "removed":
            self._signed_out(PIN_REMOVED)
            self._clerk.alert("dealer_signed_out", f"Dealer {self._name_before} signed out: their PIN was removed. "
                              "Betting opens once a dealer signs in")

    def _signed_out(self, by: str) -> None:
        clerk = self._clerk
        clerk.journal.table_event(SIGNED_OUT, {"name": self._name, "by": by})
        clerk.log.info("table.dealer_signed_out", dealer=self._name, by=by, state=clerk.state)
        self._name_before, self._name, self._since = self._name, None, None

    def _between_rounds(self) -> bool:
        clerk = self._clerk
        if clerk.state in procedure.BETWEEN_ROUNDS:
            return True
        if clerk.round is not None and clerk.state != "starting":
            return clerk.refuse(f"the dealer changes between rounds: finish round {clerk.round.id} first "
                                f"(it is {clerk.state})")
        return clerk.refuse(f"the dealer changes between rounds, not while {clerk.state}")
