"""The felt's spots by key, their locks as sets, and the fewest Lock commands from one set to the next.

Owns the vocabulary of a felt's spots (``Key``: a position and a spot; ``Locks``: the spots locked),
what is kept by spot sorted out by position (``by_position``: the readings, the problems, the overrides)
and the pure arithmetic the felt (controller/round/felt.py) uses to tell the sensors only what changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from controller.round.ports import LockSpots
from controller.rules.spots import SPOT_NAMES

Key = tuple[int, str]
Locks = frozenset[Key]              # the spots locked
V = TypeVar("V")


def by_position(per_spot: Mapping[Key, V]) -> dict[int, tuple[tuple[str, V], ...]]:
    """What is kept by spot, by position: each position's (spot, value) pairs in the mapping's order,
    sorted out in one pass (not one per position)."""
    grouped: dict[int, list[tuple[str, V]]] = {}
    for (position, spot), value in per_spot.items():
        grouped.setdefault(position, []).append((spot, value))
    return {position: tuple(pairs) for position, pairs in grouped.items()}


def lock_commands(before: Locks, after: Locks, positions: int) -> list[LockSpots]:
    """The fewest Lock commands that take the sensors from ``before`` to ``after``: a spot that
    keeps its lock is not sent again; a change on every spot of the table, or on the same spots of
    every position, is one command."""
    everything = frozenset((p, name) for p in range(1, positions + 1) for _, name in SPOT_NAMES)
    out: list[LockSpots] = []
    for locked, keys in ((True, after - before), (False, before - after)):
        if not keys:
            continue
        if keys == everything:
            out.append(LockSpots(locked))
            continue
        by_position = {p: tuple(s for s, name in SPOT_NAMES if (p, name) in keys) for p in range(1, positions + 1)}
        by_position = {p: spots for p, spots in by_position.items() if spots}
        if len(by_position) == positions and len(set(by_position.values())) == 1:
            out.append(LockSpots(locked, None, by_position[1]))
        else:
            out += [LockSpots(locked, p, spots) for p, spots in sorted(by_position.items())]
    return out
