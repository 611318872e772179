"""The felt: what lies on each spot, what may be accepted, and what a change means now.

Owns the sensors' picture of the chips (with a supervisor's override in place
of an unreadable reading during betting), the spots whose sensor reports a
fault, which stacks cannot be accepted now (each checked against the table's
limits and offers by controller/round/stacks.py), the spot lamps that show the
dealer a stack that cannot be accepted, the spots' locks (each change told to
the sensors once: the felt keeps what they were told, as it does for the
lamps, and tells them all again only after they reconnect), and the meaning of
a change on the felt in each state (``machine.FELT_CHANGES``): a wager being
made while betting is open, past posting once the spots are locked, and the
Play chips that make a position's decision. It asks the clerk
(controller/round/clerk.py) for the round and the state, and the jackpot board
(controller/store/jackpot.py), through the ``super6_closed`` it is given,
whether Super 6 takes wagers; the jackpot desk tells it when that changes.
Nothing else reads its state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from controller.round import machine as procedure
from controller.round.clerk import Clerk, Holds
from controller.round.locks import Key, Locks, by_position, lock_commands
from controller.round.ports import Lamp, LockSpots, SetLamp
from controller.round.stacks import stack_problem
from controller.round.story import BettingStory
from controller.rules.spots import BET_SPOTS, SPOT_NAMES, Spot, label, spot_named
from controller.rules.words import money
from drivers.events import SpotChanged, SpotFault

if TYPE_CHECKING:
    from controller.app.config import TableConfig
    from controller.rules.paytable import Preset

SENSOR_DEBOUNCE = 0.5               # seconds a stack may vanish before it counts as removed
REMOVED_TIMER = "removed"           # timer "removed <position> <spot>": a stack gone after the debounce

class Felt:
    def __init__(self, clerk: Clerk, holds: Holds, config: TableConfig, preset: Preset,
                 super6_closed: Callable[[], str | None]) -> None:
        self._clerk = clerk
        self._holds = holds
        self._config = config
        self._preset = preset
        self._super6_closed = super6_closed     # the jackpot desk's: why Super 6 takes no wagers now
        self._sensed: dict[Key, int | None] = {}    # the sensors' readings: cents, None where only presence is seen
        self._lamps: dict[Key, Lamp] = {}           # lamps that are not off
        self._locks: Locks | None = None            # what the sensors were last told is locked; None: not known
        self._faults: dict[Key, str] = {}           # spots whose sensor reports a fault, until they read again
        self._story = BettingStory(clerk)          # the betting as it happened, for the wagers record
        self._sensed_changes = 0                    # readings changed so far (keys ``by_position``)
        self._by_position: tuple[tuple, dict[int, tuple]] | None = None
        self._problems: tuple[tuple, dict[Key, str]] | None = None       # kept with what it was made of

    # --- what lies on the felt --------------------------------------------------------------

    def sensed(self) -> dict[Key, int | None]:
        """The sensors' own readings, without a supervisor's override."""
        return dict(self._sensed)

    def readings(self) -> dict[Key, int | None]:
        """What lies on each spot: the sensors' readings, with a supervisor's override in place
        of the sensor's for this round (0 = no wager there), while betting and while players
        decide (a Play the sensor could not read)."""
        reading = dict(self._sensed)
        if self._clerk.round is not None and self._clerk.state in ("betting", "decisions"):
            for key, amount in self._clerk.round.overrides.items():
                if amount:
                    reading[key] = amount
                else:
                    reading.pop(key, None)
        return reading

    def by_position(self) -> dict[int, tuple[tuple[str, int | None], ...]]:
        """``readings()`` by position, each its (spot, value) pairs: the snapshot asks at every event
        (about 45 a round) and the felt changes at about half of them, so it is worked out again only
        when a reading or an override in effect changed."""
        key = self._readings_key()
        kept = self._by_position
        if kept is None or kept[0] != key:
            kept = self._by_position = (key, by_position(self.readings()))
        return kept[1]

    def _readings_key(self) -> tuple:
        """What ``readings()`` is made of, in short: the sensors' changes so far, the overrides in effect."""
        rnd = self._clerk.round
        overriding = rnd is not None and rnd.overrides and self._clerk.state in ("betting", "decisions")
        return (self._sensed_changes, tuple(rnd.overrides.items()) if overriding and rnd is not None else None)

    def wagers(self) -> dict[int, dict[str, int]]:
        wagers: dict[int, dict[str, int]] = {}
        for (position, spot), value in self.readings().items():
            if spot in BET_SPOTS and value:
                wagers.setdefault(position, {})[spot] = value
        return wagers

    def accepted_wagers(self) -> dict[str, dict[str, int]]:
        """The wagers as "No more bets" journals them: every bet spot of every position with chips."""
        return {str(p): {s.value: w.get(s, 0) for s in BET_SPOTS} for p, w in sorted(self.wagers().items())}

    def problems(self) -> dict[Key, str]:
        """Spots whose chips cannot be accepted as they lie, with the reason. Asked at every snapshot
        while betting and at every reading: worked out again only when the readings, the faults, the
        overrides or Super 6's closing changed. Callers read it, never change it."""
        rnd, super6_closed = self._clerk.round, self._super6_closed()
        key = (self._readings_key(), super6_closed, tuple(self._faults.items()),
               tuple(rnd.overrides) if self._faults and rnd is not None else None)
        kept = self._problems
        if kept is None or kept[0] != key:
            kept = self._problems = (key, self.problems_now(super6_closed))
        return kept[1]

    def problems_now(self, super6_closed: str | None) -> dict[Key, str]:
        problems = {}
        for (position, spot), value in self.readings().items():
            problems_here = self.stack_problem(spot, value, super6_closed)
            if problems_here:
                problems[(position, spot)] = problems_here
        overridden = self._clerk.round.overrides if self._clerk.round is not None else {}
        for key, problem in self._faults.items():        # what lies there is not known: not a wager yet
            if key[1] in BET_SPOTS and key not in overridden:
                problems[key] = (f"the sensor reports {problem}, so the spot cannot be read: call a technician, "
                                 "or a supervisor enters what lies there")
        return problems

    def stack_problem(self, spot: str, value: int | None, super6_closed: str | None) -> str | None:
        """Why a stack of ``value`` on ``spot`` cannot be accepted as a wager; None when it can."""
        return stack_problem(self._preset, spot, value, super6_closed)

    # --- lamps and locks --------------------------------------------------------------------

    def show_flags(self) -> None:
        problems = self.problems()
        for key in set(problems) | set(self._lamps):
            self.set_lamp(*key, Lamp.FLASH if key in problems else Lamp.OFF)

    def set_lamp(self, position: int, spot: str, lamp: Lamp) -> None:
        """Only changes go to the sensors: every command waits for its ACK on the link."""
        if self._lamps.get((position, spot), Lamp.OFF) != lamp:
            self._clerk.emit(SetLamp(position, Spot(spot), lamp))
        if lamp == Lamp.OFF:
            self._lamps.pop((position, spot), None)
        else:
            self._lamps[(position, spot)] = lamp

    def _all_spots(self) -> Locks:
        return frozenset((p, name) for p in range(1, self._config.positions + 1) for _, name in SPOT_NAMES)

    def _lock_spots(self, locked: Locks) -> None:
        """Tell the sensors which spots are locked: only what changed since they were told, each
        change once; when what they hold is not known (after they connect), everything, from a
        Lock of the whole table."""
        before = self._locks
        self._locks = locked
        if before is None:
            whole = 2 * len(locked) >= len(self._all_spots())       # from the nearer of all or none
            self._clerk.emit(LockSpots(whole))
            before = self._all_spots() if whole else frozenset()
        for command in lock_commands(before, locked, self._config.positions):
            self._clerk.emit(command)

    def lock_for_betting(self) -> None:
        """Betting open: every spot unlocked, but the Super 6 spots while Super 6 is closed."""
        self._lock_spots(frozenset((p, Spot.SUPER6.value) for p in range(1, self._config.positions + 1))
                         if self._super6_closed() else frozenset())

    def on_super6_changed(self) -> None:
        """Super 6 closed or opened (the jackpot desk says so): while betting, its spots lock or
        unlock and the stacks that cannot be accepted now flash."""
        if self._clerk.state == "betting":
            self.lock_for_betting()
            self.show_flags()

    def sensors_back(self) -> None:
        """A Hello clears the sensors' locks and lamps (docs/protocols/sensors.md): all told again."""
        self._locks = None
        state = self._clerk.state if self._clerk.round is not None else None
        if state == "betting":
            self.lock_for_betting()
        elif state in ("dealing", "decisions", "held"):
            self.lock_for_decisions()
        else:           # no betting open (between rounds, before the first): every spot shows closed
            self.lock_all()
        for (position, spot), lamp in sorted(self._lamps.items()):
            self._clerk.emit(SetLamp(position, Spot(spot), lamp))

    def sensors_lost(self) -> None:
        """Commands meanwhile fail: what the sensors hold is not known."""
        self._locks = None

    def lock_all(self) -> None:
        """No chip may change: "No more bets" and after every Play was made or not."""
        self._lock_spots(self._all_spots())

    def lock_for_decisions(self) -> None:
        """Every spot locked, but the Play spot of each position that has an Ante to decide."""
        self._lock_spots(self._all_spots() - {(p, Spot.PLAY.value) for p in self._clerk.open_round.deciders})

    def start_story(self) -> None:                  # the betting's story (controller/round/story.py)
        self._story.start(self.readings())

    def round_opened(self) -> None:
        """A spot that cannot be read held the last round because that round depended on it; the new
        one has no wager yet (the fault flags the spot while betting, as one found now would)."""
        for position, spot in self._faults:
            self._holds.set(f"spot {position} {spot}", None)

    def story(self) -> dict[str, object]:
        return self._story.told()

    # --- a change on the felt ---------------------------------------------------------------

    def on_spot(self, e: SpotChanged) -> None:
        if not self._config.has_position(e.position):
            # a position the table does not have: the sensor controller is wrong, never a wager
            self._clerk.log.warning("device.fault", device=e.device, position=e.position, spot=e.spot,
                                    change=e.change, value=e.value, state=self._clerk.state)
            self._clerk.alert("device_fault", f"The bet sensors reported chips on position {e.position}, which this "
                              f"table does not have (positions 1 to {self._config.positions}): not a wager. "
                              "Call a technician to check the sensors' set-up.")
            return
        if spot_named(e.spot) is None:
            self._unknown_spot(e.device, e.position, e.spot)
            return
        key = (e.position, e.spot)
        self._holds.set(f"spot {e.position} {e.spot}", None)       # a reading again: the spot is back
        self._faults.pop(key, None)
        if e.change == "removed":
            self._sensed.pop(key, None)
        else:
            self._sensed[key] = e.value
        self._sensed_changes += 1
        self._clerk.log.debug("device.spot", round=self._clerk.round_id, state=self._clerk.state,
                              position=e.position, spot=e.spot, change=e.change, value=e.value)
        meaning = procedure.FELT_CHANGES.get(self._clerk.round_state)
        if meaning == "wager":
            self._story.tell(e)
            self.set_lamp(e.position, e.spot, Lamp.FLASH if key in self.problems() else Lamp.OFF)
        elif meaning == "collecting" and e.change == "removed" and self._forfeited(e.position, e.spot):
            return                                  # the dealer collecting a fold's forfeited chips
        elif meaning in ("locked", "collecting"):
            if e.spot == Spot.PLAY:
                self._play_spot_changed(e)
            else:
                self._past_posting(e)
        elif meaning == "paying" and not self._settling_at(e.position):
            self._past_posting(e)

    def on_spot_fault(self, e: SpotFault) -> None:
        """A sensor that cannot read its spot: alerted; while betting, the spot takes no wager (its
        lamp flashes, "No more bets" is refused) until it reads again or a supervisor enters what
        lies there; while the round depends on that spot (a wager on it, or a Play still to be
        made), it holds the round until the spot reads again."""
        if not self._config.has_position(e.position):
            self._clerk.alert("device_fault", f"The bet sensors reported a fault on position {e.position}, which this "
                              "table does not have: call a technician to check the sensors' set-up.")
            return
        if spot_named(e.spot) is None:
            self._unknown_spot(e.device, e.position, e.spot)
            return
        self._clerk.alert("sensor_fault", f"Position {e.position} {label(e.spot)}: the sensor reports "
                          f"{e.problem}; the spot cannot be read. Call a technician", e.position)
        self._faults[(e.position, e.spot)] = e.problem
        if procedure.FELT_CHANGES.get(self._clerk.round_state) == "wager":
            self.show_flags()
        rnd = self._clerk.round
        matters = rnd is not None and (self.accepted_stake(e.position, e.spot)
                                       or (e.spot == Spot.PLAY and e.position in rnd.undecided))
        if matters:
            self._holds.set(f"spot {e.position} {e.spot}", f"Position {e.position} {label(e.spot)} cannot be read "
                            f"({e.problem}): call a technician")

    def _settling_at(self, position: int) -> bool:
        """The dealer settles this position now or has settled it: collecting and paying move chips."""
        rnd = self._clerk.open_round
        return position in rnd.paid or position == rnd.next_to_pay

    def _forfeited(self, position: int, spot: str) -> bool:
        """A folded position's wager given up with its cards: the dealer collects it before the reveal.
        Its 6 Card Bonus and Super 6 stay in action where the preset says so (rule sheet 004)."""
        if position not in self._clerk.open_round.folds:
            return False
        return spot not in (Spot.SIX_CARD_BONUS, Spot.SUPER6) or not self._preset.side_bets_stay_after_fold

    def accepted_stake(self, position: int, spot: str) -> int:
        """What the round accepted on a spot: the wager at "No more bets"; for Play, the Ante once
        the position played."""
        rnd = self._clerk.open_round
        if spot == Spot.PLAY:
            return rnd.wagers.get(position, {}).get(Spot.ANTE, 0) if rnd.decisions.get(position) else 0
        return rnd.wagers.get(position, {}).get(spot, 0)

    def refused_chips(self) -> list[dict[str, object]]:
        """Chips on the felt the round did not accept, at the reveal: placed or added after No more
        bets, a Play with no Ante or after a fold, a Play above the Ante. Each is returned to its
        player at settlement: ``{"position", "spot", "amount" (cents, None: unread), "why"}``."""
        rnd, out = self._clerk.open_round, []
        for (position, spot), value in sorted(self._sensed.items()):
            if spot_named(spot) is None or value == 0:
                continue
            accepted = self.accepted_stake(position, spot)
            if value is not None and value <= accepted or value is None and accepted:
                continue            # as accepted, or fewer chips: a past post the alert has said
            if spot != Spot.PLAY:
                why = f"{label(spot)} {'added' if accepted else 'placed'} after No more bets"
            elif position not in rnd.deciders:
                why = "Play placed with no Ante"
            elif rnd.decisions.get(position) is False:
                why = "Play placed after the fold"
            else:
                why = "Play above the Ante"
            out.append({"position": position, "spot": spot, "amount": None if value is None else value - accepted,
                        "why": why})
        return out

    def _unknown_spot(self, device: str, position: int, spot: str) -> None:
        """A spot no layout has (the drivers refuse unknown codes, so only a driver's bug gets here):
        a device fault, never a wager, and never a crash of the engine's thread."""
        self._clerk.log.warning("device.fault", device=device, position=position, spot=spot, state=self._clerk.state)
        self._clerk.alert("device_fault", f"The bet sensors reported an unknown spot ({spot}) on position {position}: "
                          "not a wager. Call a technician to check the sensors' set-up.")

    def _past_posting(self, e: SpotChanged) -> None:
        accepted = self.accepted_stake(e.position, e.spot)
        timer = f"{REMOVED_TIMER} {e.position} {e.spot}"
        if e.change == "removed":
            # A sensor that blinks reports removed-then-placed within milliseconds: only a stack
            # still gone after the debounce time is an alert. Taking back chips that were never
            # accepted (a past post withdrawn) is no offence.
            if accepted:
                self._clerk.schedule(timer, SENSOR_DEBOUNCE)
            return
        self._clerk.cancel(timer)
        if e.value == accepted:
            return                                      # back as it was: nothing to alert
        what = {"placed": f"placed {money(e.value or 0)}", "changed": f"changed to {money(e.value or 0)}"}
        stays = f"the wager stays {money(accepted)}" if accepted else "no wager there this round"
        self._clerk.alert("past_posting", f"Past posting: position {e.position} {label(e.spot)} {what[e.change]} "
                          f"after No more bets; not accepted ({stays})", e.position)

    def on_stack_gone(self, position: int, spot: str) -> None:
        """The debounce timer of a removed stack: still gone, so it is past posting."""
        meaning = procedure.FELT_CHANGES.get(self._clerk.round_state)
        if (self._clerk.round is None or meaning not in ("locked", "collecting", "paying")
                or (position, spot) in self._sensed):
            return
        if meaning == "paying" and self._settling_at(position) or \
                meaning == "collecting" and self._forfeited(position, spot):
            return
        accepted = self.accepted_stake(position, spot)
        if accepted:
            self._clerk.alert("past_posting", f"Past posting: position {position} {label(spot)} removed "
                              f"after No more bets; not accepted (the wager stays {money(accepted)})", position)

    def _play_spot_changed(self, e: SpotChanged) -> None:
        position, rnd = e.position, self._clerk.open_round
        if position not in rnd.deciders:
            if e.change != "removed":
                self._clerk.alert("past_posting", f"Past posting: position {position} Play placed with no Ante; "
                                  "not accepted", position)
            return
        if position in rnd.decisions:
            if rnd.decisions[position]:
                # the Play accepted is a wager like the others: chips added or taken from it are past
                # posting (a stack gone after the debounce), and chips put back as they were are nothing
                self._past_posting(e)
            elif e.change != "removed":         # chips never accepted taken back: no offence
                self._clerk.alert("past_posting", f"Position {position} Play {e.change} after the decision "
                                  "(folded); not accepted", position)
            return
        if self._clerk.state in procedure.DECIDING_STATES:
            self.play_chips(position, e.value, e.change != "removed")

    def take_play_chips(self) -> None:
        """Decisions begin: Play chips put out while others were dealt are each their position's Play."""
        for position in list(self._clerk.open_round.undecided):
            key = (position, Spot.PLAY.value)
            self.play_chips(position, self._sensed.get(key), key in self._sensed)

    def play_chips(self, position: int, value: int | None, present: bool) -> None:
        """Play chips on an undecided position: equal to the Ante, they are the position's Play."""
        if not present:
            return
        ante = self._clerk.open_round.wagers[position]["ante"]
        if value is None:
            self._clerk.alert("unread_spot", f"Position {position}: the sensor cannot read the Play chips; "
                              "a supervisor reads them (override)", position)
            self.set_lamp(position, Spot.PLAY, Lamp.FLASH)
            return
        if value != ante:
            self._clerk.alert("play_amount", f"Position {position}: the Play must equal the Ante ({money(ante)}), "
                              f"not {money(value)}", position)
            self.set_lamp(position, Spot.PLAY, Lamp.FLASH)
            return
        self.set_lamp(position, Spot.PLAY, Lamp.OFF)
        self._clerk.fire("play", position=position, by="sensor")
