"""Device models with injected time (no sleeping), and the scripted players."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.cards import parse_cards
from controller.rules.paytable import load_preset, preset_names
from drivers.wire import framing
from drivers.wire import shoe_protocol as proto
from drivers.wire.link import HEARTBEAT, Link
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
