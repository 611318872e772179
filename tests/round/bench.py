"""The round through the real engine with fake device ports and a fake clock: no thread, no port.

``Bench`` builds the controller's engine on a real SQLite journal in a test
folder and the table's own configuration, with ports that only record what
the table asked of each device (in the ports' domain words) and a clock the
test moves. Device facts are handed to the engine as the drivers would post
them; dealer actions go through the same path as the page's. Each call runs
the engine to quiescence with ``Engine.step``, so a test reads as the
procedure does and runs in milliseconds.
"""

from __future__ import annotations

import queue
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.app.config import TableConfig, parse_config
from controller.engine import Engine
from controller.engine_events import DealerAction, Verdict
from controller.rules.cards import parse_cards
from controller.store.journal import Journal
from drivers.events import DeckChecked, DeviceOnline, FeltRead, HandDealt, ShuffleDone, SpotChanged
from tests.support.rig import config_text


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class FakePort:
    """Records every request as (method, arguments), with the journal's record count at that moment
    (so a test can check that the facts behind a request were journaled before it went out)."""
    name: str
    journal: Journal
    calls: list[tuple[str, tuple[Any, ...], dict[str, Any], int]] = field(default_factory=list)

    def __getattr__(self, method: str) -> Any:
        if method.startswith("_"):
            raise AttributeError(method)

        def record(*args: Any, **kwargs: Any) -> bool:
            count = self.journal.db.execute("SELECT COUNT(*) FROM records").fetchone()[0]
            self.calls.append((method, args, kwargs, count))
            return True
        return record

    def asked(self, method: str) -> list[tuple[Any, ...]]:
        return [args for m, args, _, _ in self.calls if m == method]


class FakePorts:
    def __init__(self, journal: Journal) -> None:
        self.shoe = FakePort("shoe", journal)
        self.sensors = FakePort("sensors", journal)
        self.sign = FakePort("sign", journal)


class Bench:
    def __init__(self, tmp_path: Path, preset: str = "sheet-004", paytable: Path | None = None, **config: Any) -> None:
        """``paytable``: the table's own pay-table file instead of the preset (configured as the preset's)."""
        text = config_text(preset, **config)
        if paytable is not None:
            text = text.replace(f'preset = "{preset}"', f'paytable = "{paytable}"')
        self.config: TableConfig = parse_config(text, "bench.toml", tmp_path)
        self.journal = Journal(tmp_path / "journal.sqlite")
        self.ports = FakePorts(self.journal)
        self.clock = FakeClock()
        self.engine = Engine(self.config, self.journal, self.ports, clock=self.clock)
        self.table = self.engine.table

    # --- driving the engine ----------------------------------------------------------------

    def run(self) -> None:
        """Handle every queued event and every timer due by the fake clock."""
        while not self.engine.idle():
            self.engine.step(0)

    def post(self, *events: Any) -> None:
        for event in events:
            self.engine.post(event)
        self.run()

    def act(self, action: str, role: str = "dealer", who: str = "", **args: Any) -> Verdict:
        reply: queue.Queue[Verdict] = queue.Queue(maxsize=1)
        self.post(DealerAction(action, args, role, reply, who))
        return reply.get_nowait()

    def done(self, action: str, **args: Any) -> None:
        verdict = self.act(action, **args)
        assert verdict.ok, f"{action} {args} refused: {verdict.message}"

    def later(self, seconds: float) -> None:
        self.clock.now += seconds
        self.run()

    @property
    def snap(self) -> dict[str, Any]:
        return self.engine.snapshot

    @property
    def state(self) -> str:
        return self.table.state

    # --- the devices, as their drivers would report ----------------------------------------

    def devices_up(self) -> None:
        self.post(*(DeviceOnline(role, f"fake://{role}") for role in ("shoe", "sensors", "sign")), FeltRead("sensors"))

    def place(self, position: int, spot: str, value: int | None) -> None:
        previous = self.table.felt.sensed().get((position, spot))
        change = "changed" if (position, spot) in self.table.felt.sensed() else "placed"
        self.post(SpotChanged("sensors", position, spot, change, value, previous))

    def remove(self, position: int, spot: str) -> None:
        previous = self.table.felt.sensed().get((position, spot))
        self.post(SpotChanged("sensors", position, spot, "removed", None, previous))

    def shuffled(self, count: int = 52, *, checked: bool = True) -> None:
        """The shoe's shuffle done and (``checked``) its answer to the deck check the table asks for."""
        deck = self.ports.shoe.asked("shuffle")[-1][0]
        self.post(ShuffleDone("shoe", deck, count))
        if checked and count == 52:
            assert self.ports.shoe.calls[-1][0] == "deck_check", "the table did not ask for the deck check"
            self.post(DeckChecked("shoe", deck, 52, (), (), ()))

    def deliver(self, text: str, *, deck: int | None = None) -> None:
        """The hand the shoe was last asked for, with these cards ("As Kd 10h")."""
        hand_no = self.ports.shoe.asked("deliver_hand")[-1][0]
        deck = self.table.open_round.deck if deck is None else deck
        self.post(HandDealt("shoe", hand_no, tuple((c, deck) for c in parse_cards(text))))

    # --- whole steps of a round ---------------------------------------------------------------

    def open_and_bet(self, bets: dict[int, dict[str, int]]) -> None:
        self.done("open_betting")
        self.shuffled()
        for position, wagers in bets.items():
            for spot, value in wagers.items():
                self.place(position, spot, value)

    def deal(self, *hands: str) -> None:
        """No more bets, deal, then one hand per active position from the dealer's left, then the
        dealer's."""
        self.done("no_more_bets")
        self.done("deal")
        for hand in hands:
            self.deliver(hand)

    def play(self, position: int) -> None:
        """The player puts Play chips equal to the Ante on the Play spot."""
        self.place(position, "play", self.table.open_round.wagers[position]["ante"])

    def decide(self, plays: dict[int, bool]) -> None:
        """Each position plays (chips) or folds (the dealer's touch), then the folds are collected
        and the dealer's hand revealed."""
        for position, play in plays.items():
            if play:
                self.play(position)
            else:
                self.done("fold", position=position)
        self.done("reveal")

    def settle(self) -> None:
        for position in list(self.snap["settlement_order"]):
            if position not in self.table.open_round.paid:
                self.done("confirm", position=position)

    def records(self, kind: str | None = None) -> list[Any]:
        return [r for r in self.journal.records(self.table.open_round.id) if kind is None or r.kind == kind]
