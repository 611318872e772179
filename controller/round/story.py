"""The betting's story: every change of a bet spot while betting is open, in order, with its time after
the round opened, journaled once with the wagers at "No more bets" (one record, not a fsynced commit
and an audit anchor a chip). Owned by the felt (controller/round/felt.py), which tells it each change;
replay (controller/store/replay.py) reads it back. At most ``MOST`` changes are kept, the rest counted:
a sensor flickering for minutes must not grow the wagers record without bound.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules.spots import BET_SPOTS

if TYPE_CHECKING:
    from controller.round.clerk import Clerk
    from drivers.events import SpotChanged

MOST = 400


class BettingStory:
    def __init__(self, clerk: Clerk) -> None:
        self._clerk = clerk
        # [ms after the round opened, position, spot, cents (0: taken away; None: chips seen, not read)]
        self._changes: list[list[int | str | None]] = []
        self._cut = 0

    def start(self, lying: dict[tuple[int, str], int | None]) -> None:
        """Betting opens (again, after a restart): the story starts with what lies on the felt."""
        at = self._clerk.since_opened_ms()      # 0 at the opening; later after a restart during betting
        self._changes = [[at, p, s, v] for (p, s), v in sorted(lying.items()) if s in BET_SPOTS]
        self._cut = 0

    def tell(self, e: SpotChanged) -> None:
        if e.spot not in BET_SPOTS or self._clerk.round is None:
            return
        if len(self._changes) >= MOST:
            self._cut += 1
            return
        cents = 0 if e.change == "removed" else e.value
        self._changes.append([self._clerk.since_opened_ms(), e.position, e.spot, cents])

    def told(self) -> dict[str, object]:
        """The story as the wagers record carries it: ``felt``, and ``felt_cut`` where changes were cut."""
        out: dict[str, object] = {"felt": [list(entry) for entry in self._changes]}
        if self._cut:
            out["felt_cut"] = self._cut
        return out
