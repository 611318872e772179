"""Device models with injected time (no sleeping), and the scripted players."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.cards import parse_cards
from controller.rules.paytable import load_preset, preset_names
from drivers.wire import framing
from drivers.wire import shoe_protocol as proto
from drivers.wire.link import Link
from drivers.wire.link_words import HEARTBEAT
from simulators.devices.shoe import SimulatedShoe
from simulators.players import Players, ScriptError, load_script, plays_optimally


class WirePort:
    """A port that keeps what the device wrote: no thread, no file descriptor."""

    def __init__(self):
        self.written = bytearray()

    def write(self, data):
        self.written += data

    def read(self, timeout):
        return b""

    def close(self):
        pass


def _frames(data):
    return [f for f in framing.FrameDecoder().feed(bytes(data)) if isinstance(f, framing.Frame)]


def test_heartbeat_and_delayed_replies_follow_the_injected_clock():
    now = [100.0]
    port = WirePort()
    shoe = SimulatedShoe(port, seed=1, clock=lambda: now[0], heartbeat_every=1.0)
    shoe.step(b"", now[0])                               # first heartbeat on start
    port.written.clear()
    now[0] += 0.9
    shoe.step(b"", now[0])
    assert _frames(port.written) == []                   # nothing to say yet
    now[0] += 0.2
    shoe.step(b"", now[0])
    assert [f.type for f in _frames(port.written)] == [HEARTBEAT]
    port.written.clear()

    host = Link(proto.host_decode)
    shoe.delay = 5.0                                     # replies held back past any timeout
    type_code, payload = proto.catalog.encode(proto.StatusRequest())
    shoe.step(host.send(type_code, payload, now[0]), now[0])
    assert _frames(port.written) == []                   # ACK and Status both held
    now[0] += 5.0
    shoe.step(b"", now[0])
    events, _ = host.receive(bytes(port.written), now[0])
    assert [type(e.message).__name__ for e in events if hasattr(e, "message")] == ["Status"]


class Recorder:
    def __init__(self):
        self.listeners, self.placed = [], []
        self.locked: set[tuple[int, int]] = set()       # the sensors' locks: none, betting is open

    def place(self, position, spot, value):
        self.placed.append((position, spot, value))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(preset_names()), st.integers(0, 2**32))
def test_seeded_players_bet_within_the_limits(name, seed):
    preset = load_preset(name)
    players = Players(preset, Recorder(), Recorder(), seed=seed)
    for _ in range(5):
        for position, wagers in players._random_bets().items():
            assert 1 <= position <= 6 and wagers
            for spot, value in wagers.items():
                limit = preset.limits[spot]
                assert limit.min <= value <= limit.max, (spot, value)
                if spot == "super6":
                    assert value in preset.super6


def test_same_seed_same_bets_different_seed_different_bets():
    preset = load_preset("sheet-004")
    def bets(seed):
        p = Players(preset, Recorder(), Recorder(), seed=seed)
        return [p._random_bets() for _ in range(10)]
    assert bets(3) == bets(3) and bets(3) != bets(4)


@pytest.mark.parametrize("hand, plays", [
    ("Qc 6d 4h", True), ("Qc 6d 3h", False), ("Qc 7d 2h", True), ("Jc Td 9h", True),
    ("Kc 2d 3h", True), ("2c 2d 3h", True), ("Jc 9d 7h", False), ("9c 7c 2c", True),
])
def test_optimal_strategy_is_queen_six_four(hand, plays):
    assert plays_optimally(parse_cards(hand)) is plays


def test_player_script_is_read_and_bad_lines_are_named(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text('# two rounds\n{"bets": {"1": {"ante": 500}}, "decisions": {"1": "fold"}}\n'
                    '{"bets": {"2": {"pair_plus": 500}}}\n')
    rounds = load_script(good)
    assert rounds[0] == {"bets": {1: {"ante": 500}}, "decisions": {1: "fold"}}
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"bets": {}}\n{"bet": {}}\n')
    with pytest.raises(ScriptError, match="bad.jsonl, line 2: expected"):
        load_script(bad)
    bad.write_text('{"bets": \n')
    with pytest.raises(ScriptError, match="line 1: not JSON"):
        load_script(bad)


def test_scripted_players_follow_their_script(tmp_path):
    from tests.support.rig import table
    script = tmp_path / "players.jsonl"
    script.write_text('{"bets": {"2": {"ante": 500}, "3": {"ante": 1000, "pair_plus": 500}}, '
                      '"decisions": {"2": "fold", "3": "play"}}\n')
    with table(tmp_path, "sheet-002") as rig:
        rig.sim.players.script = load_script(script)
        rig.sim.players.paused = False
        from simulators.dealer import ScriptedDealer
        dealer = ScriptedDealer(rig.engine.submit, rig.sim.players, rounds=2)
        rig.engine.observers.append(dealer.observe)
        rig.engine.post(object())                          # any event republishes the snapshot
        assert dealer.done.wait(20)
        for round_id in rig.journal.round_ids(2):
            records = rig.journal.records(round_id)
            assert next(r.data for r in records if r.kind == "wagers")["positions"] == {
                "2": {"ante": 500, "pair_plus": 0, "six_card_bonus": 0, "super6": 0},
                "3": {"ante": 1000, "pair_plus": 500, "six_card_bonus": 0, "super6": 0}}
            assert {r.data["position"]: r.data["play"] for r in records if r.kind == "decision"} == \
                {2: False, 3: True}


def test_the_scripted_dealer_opens_betting_once_the_sign_has_answered(tmp_path):
    """Not while a sign that is there is still taking the posted values (a Super 6 bet made then is
    refused, and when the sign answered decided the wagers: the same seed played other rounds); once it
    shows them, once it failed, or when it is offline (the game goes on with Super 6 closed). The words
    are the jackpot board's own."""
    from controller.round.links import DeviceLinks
    from controller.store.jackpot import JackpotBoard
    from controller.store.journal import Journal
    from simulators.dealer import ScriptedDealer
    from tests.round.parts import Desk, table_config
    config = table_config()
    desk = Desk("ready")
    not_connected = DeviceLinks(desk.clerk, desk.holds, ("sign",)).view()["sign"]      # the table's own words
    board = JackpotBoard(Journal(tmp_path / "journal.sqlite"), config.preset, config.jackpots)

    def ready(sign=None):
        return {"state": "ready", "round": None, "prompt": ["Open betting"], "positions": [], "holds": [],
                "devices": {"sign": sign or {"online": True, "detail": "online"}}, "jackpots": dict(board.values),
                "jackpot": {"super6_closed": board.super6_closed(), "won": []}}

    def dealer_sees(snap):
        submitted.clear()
        ScriptedDealer(lambda action, **args: submitted.append(action), players).observe(snap)
        return submitted == ["open_betting"]
    players = Players(config.preset, Recorder(), Recorder())
    submitted: list[str] = []
    # as the table starts: the sign not connected yet, then connected, its answer still to come
    assert not dealer_sees(ready(not_connected)) and not dealer_sees(ready())
    board.post(dict(board.values, mega=board.values["mega"] + 100), by="supervisor Ana", reason="weekly")
    assert board.super6_closed() and not dealer_sees(ready())           # new values on their way to the sign
    # posted while the sign is offline: nothing to wait for; the game goes on with Super 6 closed
    assert dealer_sees(ready({"online": False, "detail": "no answer within 0.5 s"}))
    board.sign_failed("sign offline: no answer")
    assert dealer_sees(ready())                             # a sign that failed: Super 6 stays closed
    board.sign_shows(board.values)
    assert board.super6_closed() is None and dealer_sees(ready())


def test_the_scripted_dealer_asks_again_once_a_device_that_dropped_is_back():
    """Open betting asked, then refused while the shoe was away; back, the table looks as it did when it
    was first asked. The dealer asks again, as a person would; before, it had asked that already and
    waited: seed 100207 of the million-round campaign stood 10 virtual minutes at "Round complete"."""
    from simulators.dealer import ScriptedDealer
    submitted: list[str] = []
    players = Players(load_preset("sheet-002"), Recorder(), Recorder())
    dealer = ScriptedDealer(lambda action, **args: submitted.append(action), players)

    def complete(shoe_online: bool) -> dict:
        return {"state": "complete", "round": 45, "prompt": ["Round complete", "Open betting"], "positions": [],
                "holds": [], "jackpots": {}, "jackpot": {"super6_closed": None, "won": []},
                "devices": {"shoe": {"online": shoe_online, "detail": "online" if shoe_online else "silent"},
                            "sensors": {"online": True, "detail": "online"}}}
    dealer.observe(complete(True))
    dealer.observe(complete(True))                           # nothing new: asked once
    assert submitted == ["open_betting"]
    dealer.observe(complete(False))                          # asked again, refused: "waiting for the shoe"
    asked = len(submitted)
    dealer.observe(complete(True))                           # back: as when first asked, but asked again
    assert len(submitted) == asked + 1 and submitted[-1] == "open_betting"


# --- faults the lab asks for never crash the simulator ---------------------------------------------

def _players_with_a_bet(strategy="optimal"):
    from drivers.wire import sensor_protocol as sensor_proto
    players = Players(load_preset("sheet-002"), Recorder(), Recorder(), strategy=strategy,
                      script=[{"bets": {1: {"ante": 500}, 2: {"pair_plus": 500}}, "decisions": {}}])
    players._sensors_heard("received", sensor_proto.Lock(sensor_proto.ALL_POSITIONS, sensor_proto.ALL_SPOTS, 0))
    assert players.betting_done
    return players


AS, KS, QS, TWO_C = parse_cards("As Ks Qs 2c")


@pytest.mark.parametrize("fault, cards, strategy, hand, folded, plays", [
    ("none", ((AS, 1), (KS, 1), (QS, 1)), "optimal", (AS, KS, QS), False, True),
    ("repeat-card", ((AS, 1), (AS, 1), (QS, 1)), "optimal", (AS, AS, QS), True, False),
    ("repeat-card", ((AS, 1), (AS, 1), (QS, 1)), "always", (AS, AS, QS), False, True),
    ("unreadable-card", ((AS, 1), (proto.UNREADABLE, 1), (QS, 1)), "optimal", (AS, 255, QS), True, False),
    ("foreign-card", ((AS, 1), (KS, 2), (QS, 1)), "optimal", (AS, KS, QS), False, True),
    ("foreign-card", ((TWO_C, 1), (TWO_C, 2), (QS, 1)), "optimal", (TWO_C, TWO_C, QS), True, False),
    ("hand-size 2", ((AS, 1), (KS, 1)), "optimal", None, False, False),
    ("hand-size 4", ((AS, 1), (KS, 1), (QS, 1), (TWO_C, 1)), "optimal", None, False, False),
])
def test_players_cope_with_any_hand_the_shoe_delivers(fault, cards, strategy, hand, folded, plays):
    """A repeated or unreadable card once raised KeyError in the strategy, on the shoe's thread."""
    players = _players_with_a_bet(strategy)
    players._shoe_said("sent", proto.HandDelivered(1, cards))           # position 1's hand
    assert players.hands.get(1) == hand
    assert (1 in players.folded) is folded
    assert ((1, "play", 500) in players.sensors.placed) is plays
    players._shoe_said("sent", proto.HandDelivered(2, ((5, 1), (9, 1), (20, 1))))   # position 2's: no Ante
    assert players.hands[2] == (5, 9, 20) and 2 not in players.folded


class QueuePort:
    """A device's port fed by the test: what the host sends goes in ``feed``; the device's bytes
    are kept in ``written``."""

    def __init__(self):
        import queue
        self.incoming = queue.Queue()
        self.written = bytearray()

    def feed(self, data):
        self.incoming.put(data)

    def read(self, timeout):
        import queue
        try:
            return self.incoming.get(timeout=timeout)
        except queue.Empty:
            return b""

    def write(self, data):
        self.written += data

    def close(self):
        pass


def test_a_listener_that_raises_does_not_stop_the_device_thread(caplog):
    import time
    port = QueuePort()
    shoe = SimulatedShoe(port, seed=3)
    heard = []

    def broken(direction, message):
        raise KeyError("a bug in a listener")
    shoe.listeners[:] = [broken, lambda direction, message: heard.append((direction, type(message).__name__))]
    host = Link(proto.host_decode)
    shoe.start()
    try:
        def ask(message, answer):
            port.feed(host.send(*proto.catalog.encode(message), time.monotonic()))
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                events, out = host.receive(bytes(port.written), time.monotonic())
                port.written.clear()
                if out:
                    port.feed(out)                               # the host's ACKs
                for event in events:
                    if type(getattr(event, "message", None)).__name__ == answer:
                        return event.message
                time.sleep(0.01)
            raise AssertionError(f"no {answer}; thread alive: {shoe._thread.is_alive()}")
        ask(proto.Shuffle(1), "ShuffleComplete")
        shoe.repeat_next_card = True
        assert len(ask(proto.DeliverHand(1), "HandDelivered").cards) == 3    # still sent
        assert ask(proto.DeliverHand(2), "HandDelivered").hand_no == 2      # the thread goes on
        assert shoe._thread.is_alive() and shoe.caught >= 4
        assert ("sent", "HandDelivered") in heard and ("received", "DeliverHand") in heard
        assert "a listener of sent HandDelivered failed (the device goes on)" in caplog.text
        assert "KeyError" in caplog.text
    finally:
        shoe.stop()


def test_an_exception_in_a_step_is_logged_and_the_thread_goes_on(caplog):
    import time
    port = QueuePort()
    shoe = SimulatedShoe(port, seed=3)
    steps = []
    real_step = shoe.step

    def step(data, now):
        steps.append(now)
        if len(steps) == 2:
            raise OSError("the port went away for a moment")
        real_step(data, now)
    shoe.step = step
    shoe.start()
    try:
        deadline = time.monotonic() + 5
        while len(steps) < 10 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(steps) >= 10 and shoe._thread.is_alive()
        assert "step failed (the device goes on): OSError: the port went away" in caplog.text
    finally:
        shoe.stop()


def test_a_bad_script_is_refused_naming_line_and_word(tmp_path):
    bad = tmp_path / "bad.jsonl"
    for line, message in [('{"bets": {"one": {"ante": 500}}}', "line 1: position 'one' is not a position number"),
                          ('{"bets": {"1": {"antee": 500}}}', "line 1: position 1: spot 'antee' unknown"),
                          ('{"bets": {"1": {"ante": "5"}}}', "position 1 ante: '5' is not a whole number"),
                          ('{"decisions": {"1": "call"}}', "decision of position 1: 'call' is not \"play\"")]:
        bad.write_text(line + "\n")
        with pytest.raises(ScriptError, match=re.escape(message)):
            load_script(bad)
