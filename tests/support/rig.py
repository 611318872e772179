"""A whole table in the test process: the real controller (config file, journal, drivers,
engine) against the simulated devices on ptys, started the way ``table-controller run
--config FILE --simulate`` starts it. Nothing in the controller is patched."""

from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path

from controller.app.run import RunOptions, TableRun

# How long a device may be silent, or the sign slow to acknowledge, before it is offline: the product's
# margins (drivers/registry.py: 3 s of silence; the sign 0.5 s a try, three tries), not a test's hurry.
# With 0.6 s of silence (and 0.3 s a try for the sign) a loaded machine that kept a thread waiting for a
# moment took a device offline and held the round under a test that expected nothing of the kind (a
# late heartbeat failed test_page.py's misdeal test in CI). The few tests that make a device fall
# silent on purpose ask for a quick detection (``silence_after``, ``sign_ack_timeout``).
SILENCE_AFTER = 3.0
QUICK_SILENCE = 0.6             # for a test that silences a device and waits for the table to see it
SIGN_ACK_TIMEOUT = 0.5
QUICK_SIGN_ACK = 0.3


def config_text(preset: str = "sheet-004", *, positions: int = 6, two_positions: str = "allowed",
                hand_timeout: float = 5.0, page_settings: str = "", dealer_sign_in: bool = False,
                silence_after: float = SILENCE_AFTER, sign_ack_timeout: float = SIGN_ACK_TIMEOUT) -> str:
    """A table's configuration for tests. Its dealers have no PINs unless ``dealer_sign_in`` (the
    tests of the dealer's sign-in, tests/round/test_dealer_shift.py and the page's, ask for it; the
    shipped default is true, and the simulated dealer signs in)."""
    link = f"heartbeat_every = 0.1\nsilence_after = {silence_after:g}\n"
    if "dealer_sign_in" not in page_settings:
        page_settings = f"dealer_sign_in = {str(dealer_sign_in).lower()}\n{page_settings}"
    jackpot = "[jackpot]\nmega = 10000000\nmajor = 2500000\nminor = 250000\n\n" \
        if preset == "sheet-004" else ""
    return (f'[table]\nid = "T-TEST"\npreset = "{preset}"\npositions = {positions}\n'
            f'one_player_two_positions = "{two_positions}"\nhand_timeout = {hand_timeout}\n\n{jackpot}'
            '[log]\nformat = "json"\nlevel = "warning"\n\n'
            f'[page]\n{page_settings}\n'
            f'[devices.shoe]\ndriver = "shoe-framed"\nurl = "loop://"\n{link}\n'
            f'[devices.sensors]\ndriver = "sensors-framed"\nurl = "loop://"\n{link}\n'
            f'[devices.sign]\ndriver = "sign-alpha"\nurl = "loop://"\naddress = "01"\n'
            f'ack_timeout = {sign_ack_timeout:g}\n')


class Rig:
    def __init__(self, run: TableRun):
        self.run = run
        self.engine = run.engine
        self.sim = run.sim
        self.journal = run.journal
        self.prompts: list[list[str]] = []          # every prompt the dealer was shown, in order
        self.engine.observers.append(lambda snap: self.prompts.append(snap["prompt"]))

    @property
    def snap(self) -> dict:
        return self.engine.snapshot

    def wait(self, predicate, timeout: float = 10.0, what: str = "the table"):
        deadline = time.monotonic() + timeout
        snap = self.engine.snapshot
        while not predicate(snap):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{what} not reached within {timeout} s; state {snap['state']}, "
                                     f"prompt {snap['prompt']}, alerts {snap['alerts'][-3:]}")
            snap = self.engine.wait_snapshot(snap["version"], min(remaining, 0.5))
        return snap

    def state(self, state: str, timeout: float = 10.0) -> dict:
        return self.wait(lambda s: s["state"] == state, timeout, f"state {state}")

    @staticmethod
    def eventually(check, timeout: float = 5.0, what: str = "condition"):
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} not met within {timeout} s")
            time.sleep(0.01)

    def act(self, action: str, **args):
        verdict = self.engine.act(action, **args)
        assert verdict.ok, f"{action} {args} refused: {verdict.message}"
        return verdict

    def refused(self, action: str, **args) -> str:
        verdict = self.engine.act(action, **args)
        assert not verdict.ok, f"{action} {args} was accepted"
        return verdict.message

    def bet(self, bets: dict[int, dict[str, int]]) -> dict:
        """Chips on the felt by hand, then wait until the controller sees every stack."""
        for position, wagers in bets.items():
            for spot, value in wagers.items():
                self.sim.sensors.place(position, spot, value)
        return self.wait(lambda s: all(s["positions"][p - 1]["felt"].get(k) == v
                                       for p, w in bets.items() for k, v in w.items()),
                         what="the wagers on the felt")

    def clear_table(self) -> dict:
        """Every chip picked up, then wait until the controller sees the felt empty: the felt a
        snapshot shows before the readings arrive is the last round's, and a bet of the same
        stack would seem seen at once (a flaky test in CI until this waited)."""
        self.sim.sensors.clear_table()
        return self.wait(lambda s: not any(p["felt"] for p in s["positions"]), what="the felt cleared")

    def open_and_bet(self, bets: dict[int, dict[str, int]], *, super6_open: bool = True) -> dict:
        # ready, and the sensors' reading of every spot since they connected in (No more bets waits for it)
        self.wait(lambda s: "open_betting" in s["actions"] and s["state"] != "starting"
                  and s["devices"]["sensors"]["detail"] == "online", what="ready")
        if super6_open and any("super6" in w for w in bets.values()):   # as a dealer would wait for the sign
            self.wait(lambda s: s["jackpot"]["super6_closed"] is None, what="Super 6 open")
        self.act("open_betting")
        self.state("betting")
        self.bet(bets)
        return self.closable()

    def closable(self) -> dict:
        """Wait for what No more bets needs of the devices: the shuffle done and the sensors' reading
        of every spot since they connected. Either may come last (on CI's slower machine the shuffle
        finished before the sensors' first reading, and No more bets was then rightly refused)."""
        return self.wait(lambda s: "Shoe shuffling" not in s["prompt"]
                         and s["devices"]["sensors"]["detail"] == "online",
                         what="the shuffle and the sensors' reading of every spot")

    def deal(self) -> dict:
        """No more bets, then deal (two touches of the dealer's, as on the page)."""
        self.act("no_more_bets")
        self.state("closed")
        self.act("deal")
        return self.snap

    def play(self, position: int) -> dict:
        """The player puts Play chips equal to the Ante: the felt makes the Play."""
        ante = self.snap["positions"][position - 1]["wagers"]["ante"]
        self.sim.sensors.place(position, "play", ante)
        return self.wait(lambda s: s["positions"][position - 1]["decision"] == "play",
                         what=f"position {position}'s Play")

    def reveal(self) -> dict:
        """Every position decided: the dealer collects the folds and reveals the dealer's hand."""
        self.state("collecting")
        self.act("reveal")
        return self.state("settling")

    def records(self, kind: str | None = None, round_id: int | None = None) -> list:
        round_id = round_id or self.snap["round"]
        return [r for r in self.journal.records(round_id) if kind is None or r.kind == kind]


@contextmanager
def table(tmp_path: Path, preset: str = "sheet-004", *, autoplay: bool = False, rounds: int | None = None,
          seed: int = 1, strategy: str = "optimal", data_dir: Path | None = None, page: bool = False,
          players: bool = False, prepare=None, port: int = 0, **config):
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / f"table-{preset}.toml"
    path.write_text(config_text(preset, **config), encoding="utf-8")
    run = TableRun(RunOptions(config=str(path), simulate=True, autoplay=autoplay, rounds=rounds, seed=seed,
                              strategy=strategy, data_dir=str(data_dir or tmp_path / "data"),
                              page=page, port=port))
    if not autoplay and not players:
        run.sim.players.paused = True
    if prepare is not None:
        prepare(run)                    # e.g. stack the shoe or script the players before anything runs
    run.start()
    try:
        yield Rig(run)
    finally:
        run.stop()
