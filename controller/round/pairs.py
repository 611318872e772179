"""Positions played by one player: the pairs the dealer links while betting is open.

Owns the round's pairs of adjacent positions one player plays (rule sheet
000's "one player on two positions", when the configuration allows it), why a
pair cannot be linked, and what "No more bets" journals of them (the
``wagers`` record's ``linked``). A new round starts with none.
"""

from __future__ import annotations

Pair = tuple[int, int]


class PositionPairs:
    def __init__(self, positions: int, allowed: bool) -> None:
        self._positions = positions
        self._allowed = allowed
        self._pairs: list[Pair] = []

    def link_problem(self, position: object, other: object) -> str | None:
        """Why ``position`` and ``other`` cannot be linked; None when they can."""
        if not isinstance(position, int) or not isinstance(other, int):
            return "name the two positions to link (position and other)"
        a, b = sorted((position, other))
        if not self._allowed:
            return ("one player on two positions is not allowed at this table "
                    "(table.one_player_two_positions = \"refused\")")
        if not (1 <= a and b <= self._positions and b - a == 1):
            return f"positions {a} and {b} are not two adjacent positions"
        if any(a in pair or b in pair for pair in self._pairs):
            return f"position {a} or {b} is already linked"
        return None

    def link(self, position: int, other: int) -> Pair:
        pair = (min(position, other), max(position, other))
        self._pairs.append(pair)
        return pair

    def unlink(self, position: object) -> None:
        self._pairs = [p for p in self._pairs if position not in p]

    def clear(self) -> None:
        self._pairs = []

    def partner(self, position: int) -> int | None:
        if not self._pairs:             # most tables link nobody; asked for every position of every snapshot
            return None
        return next((q for pair in self._pairs for q in pair if position in pair and q != position), None)

    def as_record(self) -> list[list[int]]:
        return [list(p) for p in self._pairs]
