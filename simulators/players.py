"""Scripted players: chips on the simulated sensors, and play or fold on the cards they get.

Owns what the people at the table do, so whole rounds run unattended. Players
act only on what a player could see: the spots unlocking when betting opens
(the sensor controller's Lock command), and the hands the shoe delivers,
given out in dealing order (from the dealer's left, one per position with a
wager, then the dealer). Wagers come from a seeded generator kept within the
preset's limits, or from a script file; decisions from the optimal strategy
(play Q-6-4 or better), always play, or the script.

Script file: one JSON object per line, used round after round (and again from
the top): {"bets": {"1": {"ante": 500, "pair_plus": 500}}, "decisions": {"1": "play"}}
Positions missing from "decisions" follow the strategy.

A rigged round (``rigged``: the players' round number, from 1, to cards) is
played on purpose for a rare path: the players sit at position 1 only with an
Ante of $5 and a Super 6 of $10, and the shoe's next shuffle deals those cards
first (set when the round before is collected, so it is the shuffle of that
round), e.g. position 1 Ah Kh Qh and the dealer Jh Th 2c: a five-card royal
flush, Super 6's MINOR on sheet 004.

A player who plays puts chips equal to the Ante on the Play spot; a player
who folds leaves it empty and the dealer (simulators/dealer.py) sees the fold.

Players take whatever hand the shoe delivers, faults included: a hand of two
or four cards is a misdeal they do not act on; a hand of three they cannot
judge (a card read twice, a card the reader could not read) is folded by the
optimal strategy, played by "always", and follows the script where it says;
a card of the other deck is judged as the card it is. Nothing a hand holds
may raise on the shoe's thread (simulators/devices/framed.py logs and goes on
if something does).

Think times (``pace``, the deterministic simulation's): each position places its chips, and makes
its Play or its fold, after a think time of its own drawn from a seeded stream, on the caller's
clock; so stacks and decisions reach the table in varied orders and at varied times. Without it
(the whole table on ptys) players act the moment they see the table change, as before.

With no scripted dealer (``table-controller run`` worked from the page), the
players pick up what lay on the felt from the last round when the next
betting opens (the spots unlocking after having been locked), then bet.
"""

from __future__ import annotations

import functools
import json
import random
import threading
from collections.abc import Callable
from pathlib import Path

from controller.rules.hand3 import score3
from controller.rules.paytable import Preset
from drivers.wire import sensor_protocol as sensor_proto
from drivers.wire import shoe_protocol as shoe_proto

ANTE_BIT = sensor_proto.spot_mask(["ante"])                     # in a Lock message's spot mask
QUEEN_SIX_FOUR = score3((10 * 4 + 0, 4 * 4 + 1, 2 * 4 + 2))        # Qc 6d 4h: the play threshold
STRATEGIES = ("optimal", "always")
WAGER_SPOTS = tuple(s for s in sensor_proto.SPOTS if s != "play")     # Play chips follow a decision


class ScriptError(ValueError):
    pass


def load_script(path: str | Path) -> list[dict]:
    rounds = []
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as err:       # it was a traceback
        raise ScriptError(f"{path}: not UTF-8 text (byte {err.object[err.start]:#04x} at offset {err.start})") from None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            doc = json.loads(line)
        except json.JSONDecodeError as err:
            raise ScriptError(f"{path}, line {number}: not JSON: {err.msg}") from None
        if not isinstance(doc, dict) or set(doc) - {"bets", "decisions"}:
            raise ScriptError(f"{path}, line {number}: expected {{\"bets\": ..., \"decisions\": ...}}")
        rounds.append(_script_round(doc, f"{path}, line {number}"))
    if not rounds:
        raise ScriptError(f"{path}: no rounds")
    return rounds


def _script_round(doc: dict, where: str) -> dict:
    """One round of a script, every position, spot, amount and decision checked."""
    bets_doc, decisions_doc = doc.get("bets", {}), doc.get("decisions", {})
    if not isinstance(bets_doc, dict) or not isinstance(decisions_doc, dict):
        raise ScriptError(f"{where}: \"bets\" and \"decisions\" are objects keyed by position")
    bets: dict[int, dict[str, int]] = {}
    for key, wagers in bets_doc.items():
        position = _script_position(key, where)
        if not isinstance(wagers, dict):
            raise ScriptError(f"{where}: bets of position {position} must be an object of cents by spot")
        for spot, value in wagers.items():
            if spot not in WAGER_SPOTS:
                raise ScriptError(f"{where}: position {position}: spot {spot!r} unknown "
                                  f"(spots: {', '.join(WAGER_SPOTS)})")
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ScriptError(f"{where}: position {position} {spot}: {value!r} is not a whole "
                                  "number of cents, 1 or more")
        bets[position] = dict(wagers)
    decisions: dict[int, str] = {}
    for key, decision in decisions_doc.items():
        position = _script_position(key, where)
        if decision not in ("play", "fold"):
            raise ScriptError(f"{where}: decision of position {position}: {decision!r} is not \"play\" "
                              "or \"fold\"")
        decisions[position] = decision
    return {"bets": bets, "decisions": decisions}


def _script_position(key: str, where: str) -> int:
    if not key.isdigit() or int(key) < 1:
        raise ScriptError(f"{where}: position {key!r} is not a position number (1, 2, ...)")
    return int(key)


def judgeable(cards) -> bool:
    """Three different cards the reader could read (0-51): a hand a strategy can rank."""
    return len(cards) == 3 and len(set(cards)) == 3 and all(isinstance(c, int) and 0 <= c < 52 for c in cards)


def plays_optimally(cards) -> bool:
    """Q-6-4 or better; a hand that cannot be ranked (see ``judgeable``) is folded."""
    return judgeable(cards) and score3(cards) >= QUEEN_SIX_FOUR


class Players:
    def __init__(self, preset: Preset, sensors, shoe, *, positions: int = 6, seed: int = 1,
                 strategy: str = "optimal", script: list[dict] | None = None, sit_chance: float = 0.8,
                 rigged: dict[int, list[int]] | None = None):
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy {strategy!r}: choose {' or '.join(STRATEGIES)}")
        self.preset = preset
        self.sensors, self.shoe = sensors, shoe
        self.positions = positions
        self.rng = random.Random(seed)
        self.strategy = strategy
        self.script = script
        self.rigged = rigged or {}
        if 1 in self.rigged:
            shoe.planned = list(self.rigged[1])
        self.sit_chance = sit_chance
        self.rounds = 0
        self.lock = threading.Lock()
        self.bets: dict[int, dict[str, int]] = {}
        self.hands: dict[int, tuple[int, ...]] = {}
        self.folded: set[int] = set()
        self._dealt = 0
        self.betting_done = False
        self.paused = False          # a test or the CLI places chips by hand instead
        self._locked_since_bets = False
        self._later: Callable[[float, Callable[[], None]], None] | None = None     # ``pace``
        self._placing = 0            # positions whose chips are still to be placed (think times)
        self._generation = 0         # a round's pending moves die with it (``collect``)
        self._think_rng = random.Random(seed)
        self._bet = self._decide_in = (0.0, 0.0)
        self._noticed: Callable[[], None] = lambda: None
        sensors.listeners.append(self._sensors_heard)
        shoe.listeners.append(self._shoe_said)

    def pace(self, later: Callable[[float, Callable[[], None]], None], rng: random.Random, *,
             bet: tuple[float, float], decide: tuple[float, float], noticed: Callable[[], None]) -> None:
        """Think times (see the header): ``later(seconds, action)`` runs ``action`` on the caller's
        clock; ``rng`` draws each position's think time, from ``bet`` (seconds before its chips go
        down) and ``decide`` (before its Play or fold); ``noticed()`` when a player folds, who then
        shows the dealer the cards are folded (no chips move: the dealer looks at the table again)."""
        self._later, self._think_rng, self._bet, self._decide_in, self._noticed = later, rng, bet, decide, noticed

    def _after(self, seconds: tuple[float, float], action: Callable[[], None]) -> None:
        """``action`` after a think time, unless the round is over by then."""
        assert self._later is not None
        generation = self._generation

        def act() -> None:
            if generation == self._generation:
                action()
        self._later(self._think_rng.uniform(*seconds), act)

    # --- what players see ------------------------------------------------------------

    def _sensors_heard(self, direction: str, message) -> None:
        if direction != "received" or not isinstance(message, sensor_proto.Lock) or self.paused:
            return
        # A round's edge is what the locks now show, not the command that made it: the host sends
        # only changes, so "No more bets" may lock all but the already locked Super 6 spots.
        antes = {(position, 0) for position in range(1, self.positions + 1)}
        locked = antes & self.sensors.locked     # the device took the Lock before telling listeners
        if locked == antes:
            self._locked_since_bets = True
            return
        if locked:
            return                       # some Antes locked: no edge of a round
        if message.locked or not message.spots & ANTE_BIT:
            # the edge is the Antes being unlocked. A sensor whose Hello cleared every lock (a new
            # connection: a restarted controller, a dropped link) and that is now told its other
            # locks or the deciders' Play spots again is mid-round: new bets there were past posting
            # (found by the soak: a round recovered in dealing stalled on them)
            return
        if self.betting_done and self._locked_since_bets:
            self.collect()               # a new round opened with last round's chips still out
        self._place_bets()

    def _shoe_said(self, direction: str, message) -> None:
        if direction == "sent" and isinstance(message, shoe_proto.HandDelivered) and not self.paused:
            self._take_hand(message)

    # --- betting ---------------------------------------------------------------------

    def _place_bets(self) -> None:
        with self.lock:
            if self.betting_done or self._placing:
                return
            if self.rounds + 1 in self.rigged:
                bets = {1: {"ante": 500, "super6": 1000}}
            elif self.script:
                plan = self.script[self.rounds % len(self.script)]
                bets = {p: dict(w) for p, w in plan["bets"].items()}
            else:
                bets = self._random_bets()
            self.bets, self.hands, self.folded = bets, {}, set()
            self._dealt = 0
            if self._later is not None:
                self._placing = len(bets)
        if self._later is not None and bets:
            for position, wagers in sorted(bets.items()):
                self._after(self._bet, functools.partial(self._place, position, wagers))
            return
        for position, wagers in sorted(bets.items()):
            for spot, value in wagers.items():
                self.sensors.place(position, spot, value)
        with self.lock:
            self.betting_done = True
            self._locked_since_bets = False

    def _place(self, position: int, wagers: dict[str, int]) -> None:
        """One position's chips down after its think time (none while paused: a test or the CLI places
        chips by hand); the last one down ends the betting."""
        for spot, value in wagers.items() if not self.paused else ():
            self.sensors.place(position, spot, value)
        with self.lock:
            self._placing -= 1
            if not self._placing:
                self.betting_done = True
                self._locked_since_bets = False

    def _random_bets(self) -> dict[int, dict[str, int]]:
        # nobody sitting down (about once in 15,000 rounds at six positions) is drawn again: a table is
        # dealt only to someone, and an empty round left the dealer nothing to do (it hung a soak)
        while not (bets := self._draw_bets()) and self.sit_chance > 0:
            pass
        return bets

    def _draw_bets(self) -> dict[int, dict[str, int]]:
        bets = {}
        for position in range(1, self.positions + 1):
            if self.rng.random() >= self.sit_chance:
                continue
            wagers = {}
            if self.rng.random() < 0.9:
                wagers["ante"] = self._amount("ante")
            if self.rng.random() < 0.6 or not wagers:
                wagers["pair_plus"] = self._amount("pair_plus")
            if self.preset.offers("six_card_bonus") and self.rng.random() < 0.3:
                wagers["six_card_bonus"] = self._amount("six_card_bonus")
            if self.preset.super6 and self.rng.random() < 0.3:
                wagers["super6"] = self.rng.choice(sorted(self.preset.super6))
            bets[position] = wagers
        return bets

    def _amount(self, spot: str) -> int:
        limit = self.preset.limits[spot]
        steps = [limit.min * k for k in (1, 2, 3, 4, 5, 10) if limit.min * k <= limit.max]
        return self.rng.choice(steps + [limit.max])

    def placed(self) -> set[tuple[int, str]]:
        with self.lock:
            return {(p, spot) for p, w in self.bets.items() for spot in w}

    def take_back(self, position: int, spot: str) -> None:
        """The dealer refused a stack (a closed or invalid spot): the player picks it up."""
        with self.lock:
            wagers = self.bets.get(position, {})
            wagers.pop(spot, None)
            if not wagers:
                self.bets.pop(position, None)
        self.sensors.remove(position, spot)

    # --- the hands ---------------------------------------------------------------------

    def _take_hand(self, message) -> None:
        with self.lock:
            active = sorted(p for p, w in self.bets.items() if any(w.values()))
            index = self._dealt
            self._dealt += 1
            if index >= len(active) or len(message.cards) != 3:
                return                                  # the dealer's hand, or a misdeal (2 or 4 cards)
            position = active[index]
            cards = tuple(c for c, _ in message.cards)
            self.hands[position] = cards
            ante = self.bets[position].get("ante")
            if not ante:
                return
            plays = self._decide(position, cards)
            if not plays and self._later is None:
                self.folded.add(position)
        if self._later is not None:
            self._after(self._decide_in, lambda: self._play(position, ante) if plays else self._fold(position))
        elif plays:
            self.sensors.place(position, "play", ante)

    def _play(self, position: int, ante: int) -> None:
        if not self.paused:
            self.sensors.place(position, "play", ante)

    def _fold(self, position: int) -> None:
        if self.paused:
            return
        with self.lock:
            self.folded.add(position)
        self._noticed()

    def _decide(self, position: int, cards) -> bool:
        if self.script:
            choice = self.script[self.rounds % len(self.script)]["decisions"].get(position)
            if choice is not None:
                return choice == "play"
        if self.strategy == "always":
            return True
        return plays_optimally(cards)

    # --- between rounds ------------------------------------------------------------------

    def play_unseen(self, position: int, ante: int) -> None:
        """A round recovered after a restart: these players never saw the cards the process before
        dealt, so the one still to decide plays: Play chips equal to its Ante (as the table
        recorded it), as any Play is made."""
        self.sensors.place(position, "play", ante)

    def collect(self) -> None:
        """The round is over: every stack leaves the felt (paid, taken or picked up)."""
        self.sensors.clear_table()
        with self.lock:
            self._generation += 1            # chips and decisions still to come are not made
            self._placing = 0
            self.rounds += 1
            if self.rounds + 1 in self.rigged:         # the next shuffle is the rigged round's
                self.shoe.planned = list(self.rigged[self.rounds + 1])
            self.betting_done = False
            self.bets, self.hands, self.folded = {}, {}, set()
