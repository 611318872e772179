"""The round through the engine with fake device ports and a fake clock (tests/round/bench.py).

What the procedure decides, what it journals and what it asks of each
device, in the ports' domain words, with no thread, no port and no sleep.
"""

from __future__ import annotations

from controller.round.ports import Lamp, LockSpots, Shuffle
from controller.rules.cards import parse_cards
from controller.rules.paytable import load_preset
from controller.rules.spots import Spot
from drivers.events import SignShowing
from tests.round.bench import Bench
from tests.rules.reference import reference_settle

BETS = {1: {"ante": 1000, "pair_plus": 500}, 3: {"ante": 500}, 5: {"ante": 1000, "pair_plus": 1000}}
HANDS = ("As Ad 3c", "2h 7d 9s", "Kh Qh Jh", "Ks 9c 4d")     # positions 1, 3, 5, then the dealer


def ready(tmp_path, preset: str = "sheet-004", **config) -> Bench:
    bench = Bench(tmp_path, preset, **config)
    assert bench.state == "starting"
    bench.devices_up()
    assert bench.state == "ready"
    return bench


def test_a_whole_round_journals_each_fact_before_its_device_request(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet(BETS)
    bench.deal(*HANDS)
    assert bench.state == "decisions"
    bench.decide({1: True, 3: False, 5: True})
    assert bench.state == "settling"
    bench.settle()
    assert bench.state == "complete"

    kinds = [r.kind for r in bench.records()]
    assert kinds[0] == "opened" and kinds[-1] == "complete" and kinds.count("hand") == 4
    # every hand was asked for after the record of the one before it was journaled
    asks = [(args[0], count) for m, args, _, count in bench.ports.shoe.calls if m == "deliver_hand"]
    assert [n for n, _ in asks] == [1, 2, 3, 4]
    hand_seqs = [i for i, k in enumerate(kinds) if k == "hand"]
    for (hand_no, journaled), later_hand in zip(asks[1:], hand_seqs, strict=False):
        assert journaled > later_hand, f"hand {hand_no} was asked for before hand {hand_no - 1} was journaled"
    # dealing order: from the dealer's left (position 1) on, then the dealer
    assert [r.data["target"] for r in bench.records("hand")] == [1, 3, 5, 0]


def test_payments_equal_an_independent_settlement_from_the_sheets_words(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet(BETS)
    bench.deal(*HANDS)
    bench.decide({1: True, 3: False, 5: True})
    bench.settle()
    paid = {r.data["position"]: r.data["net"] for r in bench.records("paid")}
    preset = load_preset("sheet-004")
    dealer = parse_cards(HANDS[-1])
    expected = {}
    for position, cards, play in ((1, HANDS[0], True), (3, HANDS[1], False), (5, HANDS[2], True)):
        wagers = {"ante": 0, "pair_plus": 0, "six_card_bonus": 0, "super6": 0, **BETS[position]}
        results = reference_settle(preset, dealer, parse_cards(cards), wagers, play, {})
        expected[position] = sum(results.values())
    assert paid == expected
    # the fold (position 3) was collected before the reveal; then the pay order runs from the
    # dealer's right (the highest position) to the left
    assert [(r.data["position"], r.data.get("folded", False)) for r in bench.records("paid")] == \
        [(3, True), (5, False), (1, False)]


def test_opening_betting_unlocks_the_felt_and_shuffles_the_rounds_deck(tmp_path):
    bench = ready(tmp_path)
    locks = [(args, kwargs) for m, args, kwargs, _ in bench.ports.sensors.calls if m == "lock"]
    # the sensors came online with no betting open: the whole felt locked (every spot shows closed)
    assert locks == [((True,), {"position": None, "spots": None})]
    bench.table.take_commands()
    bench.done("open_betting")
    locks = [(args, kwargs) for m, args, kwargs, _ in bench.ports.sensors.calls if m == "lock"]
    # every spot unlocked, but Super 6 stays locked: the sign has not yet shown the posted values
    assert locks[1:] == [((False,), {"position": None, "spots": (Spot.ANTE, Spot.PLAY, Spot.PAIR_PLUS,
                                                                  Spot.SIX_CARD_BONUS)})]
    bench.post(SignShowing("sign", {"mega": 10000000, "major": 2500000, "minor": 250000}, ""))
    assert bench.ports.sensors.calls[-1][:3] == ("lock", (False,), {"position": None, "spots": (Spot.SUPER6,)})
    deck = bench.table.open_round.deck
    assert bench.ports.shoe.asked("shuffle") == [(deck,)]
    shuffle_record = [r for r in bench.records() if r.kind == "shuffle"]
    assert shuffle_record and shuffle_record[0].data == {"deck": deck}


def test_the_core_returns_commands_and_sends_nothing_itself(tmp_path):
    bench = ready(tmp_path)
    table = bench.table
    before = len(bench.ports.sensors.calls) + len(bench.ports.shoe.calls)
    assert table.trigger("open_betting", by="dealer")
    commands = table.take_commands()
    assert len(bench.ports.sensors.calls) + len(bench.ports.shoe.calls) == before   # nothing went out
    assert LockSpots(False, None, (Spot.ANTE, Spot.PLAY, Spot.PAIR_PLUS, Spot.SIX_CARD_BONUS)) in commands
    assert Shuffle(table.open_round.deck) in commands


def test_a_stack_over_the_limit_flashes_its_lamp_and_refuses_no_more_bets(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet({2: {"ante": 5000}})
    assert (2, "ante", Lamp.FLASH) in bench.ports.sensors.asked("lamp")
    verdict = bench.act("no_more_bets")
    assert not verdict.ok and verdict.message == "position 2 Ante: $50.00 is above the $10.00 maximum"
    bench.place(2, "ante", 1000)
    assert (2, "ante", Lamp.OFF) in bench.ports.sensors.asked("lamp")
    bench.done("no_more_bets")
    assert bench.state == "closed"


def test_a_card_read_twice_is_a_misdeal_that_voids_and_reshuffles(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet({1: {"ante": 500}, 2: {"ante": 500}})
    bench.deal("As Kd 3c", "As 7d 9s")
    assert bench.state == "void"
    void = bench.records("void")[0].data
    assert void == {"reason": "As was read twice (position 2's hand)", "by": "controller"}
    assert bench.ports.shoe.asked("shuffle")[-1] == (bench.table.open_round.deck,)
    assert bench.ports.sensors.asked("lock")[-1] == (True,)
    assert len(bench.ports.shoe.asked("deliver_hand")) == 2        # no hand asked for after the misdeal


def test_a_slow_shoe_is_asked_again_when_the_hand_timer_runs_out(tmp_path):
    bench = ready(tmp_path, hand_timeout=2.0)
    bench.open_and_bet({4: {"ante": 500}})
    bench.done("no_more_bets")
    bench.done("deal")
    assert bench.ports.shoe.asked("deliver_hand") == [(1,)]
    bench.later(1.9)
    assert bench.ports.shoe.asked("deliver_hand") == [(1,)]
    bench.later(0.2)
    assert bench.ports.shoe.asked("deliver_hand") == [(1,), (1,)]
    assert bench.snap["alerts"][-1]["kind"] == "shoe_slow"


def test_a_stack_removed_after_no_more_bets_is_past_posting_only_after_the_debounce(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet({3: {"ante": 1000}})
    bench.done("no_more_bets")
    bench.done("deal")
    bench.remove(3, "ante")
    bench.later(0.3)
    bench.place(3, "ante", 1000)                     # a blink of the sensor: back within the debounce
    bench.later(1.0)
    assert not [a for a in bench.snap["alerts"] if a["kind"] == "past_posting"]
    bench.remove(3, "ante")
    bench.later(0.6)
    alerts = [(a["position"], a["message"], a["round"]) for a in bench.snap["alerts"] if a["kind"] == "past_posting"]
    assert alerts == [(3, "Past posting: position 3 Ante removed after No more bets; not accepted "
                          "(the wager stays $10.00)", 1)]


def test_play_chips_equal_to_the_ante_are_the_positions_play(tmp_path):
    bench = ready(tmp_path)
    bench.open_and_bet({2: {"ante": 500}})
    bench.deal("As Ad 3c", "Ks 9c 4d")
    bench.place(2, "play", 1000)
    assert bench.state == "decisions"
    assert bench.snap["alerts"][-1]["kind"] == "play_amount"
    assert (2, "play", Lamp.FLASH) in bench.ports.sensors.asked("lamp")
    bench.place(2, "play", 500)
    assert bench.state == "collecting"
    assert bench.records("decision")[0].data == {"position": 2, "play": True, "by": "sensor"}


def test_a_lost_shoe_holds_the_round_and_its_return_resumes_it(tmp_path):
    from drivers.events import DeviceOffline, DeviceOnline
    bench = ready(tmp_path)
    bench.open_and_bet({1: {"ante": 500}})
    bench.done("no_more_bets")
    bench.done("deal")
    bench.post(DeviceOffline("shoe", "fake://shoe", "no answer"))
    assert bench.state == "held" and bench.snap["holds"] == [
        "The shoe is not answering: check its power and cable, or call a technician"]
    assert bench.snap["devices"]["shoe"]["status"] == "offline"
    bench.post(DeviceOnline("shoe", "fake://shoe"))
    assert bench.state == "dealing"
    assert [r.data for r in bench.records("state")][-2:] == [{"state": "held", "from": "dealing"},
                                                             {"state": "dealing"}]


def test_a_journal_that_cannot_be_written_halts_the_table_and_says_why(tmp_path):
    from controller.engine_events import Probe
    from controller.store.failpoints import Failpoints
    bench = ready(tmp_path)
    failpoints = Failpoints(f"journal.commit={bench.journal.commits + 1}:fail")
    failpoints.commits = bench.journal.commits
    bench.journal.failpoints = failpoints
    sent_before = len(bench.ports.shoe.calls)
    verdict = bench.act("open_betting")
    assert not verdict.ok and verdict.message.startswith("The table has stopped: the journal cannot be written")
    assert bench.journal.last_round() is None                    # nothing of the event was kept
    assert len(bench.ports.shoe.calls) == sent_before            # and nothing was asked of a device
    assert bench.snap["halted"].endswith("call a technician")
    assert bench.snap["state"] == "ready" and bench.snap["round"] is None     # the last committed truth
    later = bench.act("open_betting")
    assert not later.ok and later.message == verdict.message
    probe = Probe()
    bench.post(probe)
    assert not probe.done.is_set()                               # the watchdog stops being fed


def test_recovery_rechecks_the_cards_it_replays_and_voids_a_misdeal_left_open(tmp_path):
    """A hand that is a misdeal, journaled by a process that died before voiding the round (an older
    release, or a journal written outside this code): the restarted table voids it, pays nothing."""
    bench = ready(tmp_path)
    bench.open_and_bet({1: {"ante": 500}, 2: {"ante": 500}})
    bench.done("no_more_bets")
    bench.done("deal")
    round_id = bench.table.open_round.id
    # the process before wrote a hand with the ace of spades twice, and nothing after it
    from controller.rules.cards import parse_cards
    bench.journal.append(round_id, "hand", {"hand_no": 1, "target": 1,
                                            "cards": [[c, 1] for c in parse_cards("As Kd 3c")]})
    bench.journal.append(round_id, "hand", {"hand_no": 2, "target": 2,
                                            "cards": [[c, 1] for c in parse_cards("As 7d 9s")]})
    bench.journal.close()
    again = Bench(tmp_path)
    again.devices_up()
    assert again.state == "void"
    void = again.records("void")[0].data
    assert void == {"reason": "on recovery: As was read twice (position 2's hand)", "by": "controller"}
    assert again.records("paid") == [] and again.journal.last_round() == (round_id, "void")


class SensorLocks:
    """What a sensor controller holds after each Lock the table sent (docs/protocols/sensors.md)."""

    def __init__(self, positions: int) -> None:
        self.positions = positions
        self.locked: set[tuple[int, str]] = set()

    def apply(self, locked: bool, position: int | None, spots) -> bool:
        """Apply one Lock; False when it changed nothing (the command was sent for nothing)."""
        keys = {(p, s) for p in ([position] if position else range(1, self.positions + 1))
                for s in (spots or tuple(Spot))}
        before = set(self.locked)
        if locked:
            self.locked |= keys
        else:
            self.locked -= keys
        return self.locked != before


def test_each_lock_is_sent_once_and_all_of_them_again_after_the_sensors_reconnect(tmp_path):
    """Issue 17: each lock burst went out twice (entering dealing, then decisions, locked the same
    spots again); a command that changes nothing on the sensors is no longer sent."""
    from drivers.events import DeviceOffline, DeviceOnline
    bench = ready(tmp_path)
    bench.post(SignShowing("sign", {"mega": 10000000, "major": 2500000, "minor": 250000}, ""))
    sensors = SensorLocks(bench.config.positions)
    seen = 0

    def locks_sent() -> list:
        nonlocal seen
        calls = [(args[0], kwargs["position"], kwargs["spots"])
                 for m, args, kwargs, _ in bench.ports.sensors.calls[seen:] if m == "lock"]
        seen = len(bench.ports.sensors.calls)
        return calls

    def held() -> set:
        return set(sensors.locked)

    everything = {(p, s) for p in range(1, 7) for s in Spot}
    plays = {(p, Spot.PLAY) for p in BETS}
    steps = [("open and bet", lambda: bench.open_and_bet(BETS), set()),
             ("deal", lambda: bench.deal(*HANDS), everything - plays),
             ("decide", lambda: bench.decide({1: True, 3: False, 5: True}), everything),
             ("settle", bench.settle, everything)]
    for name, step, expected in steps:
        step()
        sent = locks_sent()
        if name == "open and bet":      # the sensors came online between rounds: the whole table locked first
            assert sent[0] == (True, None, None)
        for command in sent:
            assert sensors.apply(*command), f"{name}: {command} changed nothing on the sensors"
        assert held() == expected, name
    # the sensors reconnect (a Hello clears their locks): everything they should hold, from the top
    bench.done("open_betting")
    bench.place(2, "ante", 500)
    locks_sent()
    bench.post(DeviceOffline("sensors", "fake://sensors", "unplugged"))
    bench.post(DeviceOnline("sensors", "fake://sensors"))
    sensors.locked.clear()
    sent = locks_sent()
    assert sent[0] == (False, None, None) and held() == set()   # betting: a whole-table unlock first
    for command in sent:
        sensors.apply(*command)
    assert held() == set()


def test_a_burst_of_readings_ending_on_a_probe_is_still_drawn(tmp_path):
    """A reading handled while a watchdog's probe waited is drawn (publishing waits for the end of a
    burst; a probe is no event of the table's, so the engine draws before it waits again)."""
    from controller.engine_events import Probe
    from drivers.events import SpotChanged
    bench = Bench(tmp_path, "sheet-004")
    bench.devices_up()
    bench.done("open_betting")
    version = bench.snap["version"]
    bench.post(SpotChanged("sensors", 1, "ante", "placed", 500, None), Probe())
    assert bench.engine.idle()
    felt = {p["position"]: p["felt"] for p in bench.snap["positions"]}
    assert felt[1] == {"ante": 500} and bench.snap["version"] > version


def test_a_persons_action_is_drawn_before_its_verdict_is_answered(tmp_path):
    bench = Bench(tmp_path, "sheet-004")
    bench.devices_up()
    seen = []
    bench.engine.observers.append(lambda snap: seen.append(snap["state"]))
    verdict = bench.act("open_betting")
    assert verdict.ok and seen and seen[-1] == "betting" and bench.snap["state"] == "betting"



def test_sensors_that_reconnect_between_rounds_are_locked_whole_until_betting_opens(tmp_path):
    """sensors.md, Locks: a Hello unlocks every spot on the sensors, and between rounds no bet is
    open, so the host locks the whole table again at once (every spot shows closed), as it is after
    a round's settlement; it used to send nothing until betting opened (issue 33 item 16)."""
    from drivers.events import DeviceOffline, DeviceOnline, FeltRead
    bench = ready(tmp_path)                  # before the first round
    for settled in (False, True):
        if settled:                         # and after one (the table waits in complete)
            bench.open_and_bet(BETS)
            bench.deal(*HANDS)
            bench.decide({1: True, 3: False, 5: True})
            bench.settle()
        bench.post(DeviceOffline("sensors", "fake://sensors", "unplugged"))
        calls = len(bench.ports.sensors.calls)
        bench.post(DeviceOnline("sensors", "fake://sensors"))
        locks = [(args, kwargs) for m, args, kwargs, _ in bench.ports.sensors.calls[calls:] if m == "lock"]
        assert locks == [((True,), {"position": None, "spots": None})], bench.state
        bench.post(FeltRead("sensors"))     # their snapshot of every spot (drivers/sensors.py)


def test_a_shuffle_the_shoe_never_acknowledged_is_sent_again_and_the_round_goes_on(tmp_path):
    """The shoe's driver gives a Shuffle up after four unacknowledged attempts (CommandFailed) while the
    shoe stays online: the engine has the round ask again, and the shuffle that then comes is the round's."""
    from drivers.events import CommandFailed
    bench = ready(tmp_path)
    bench.done("open_betting")
    asked = len(bench.ports.shoe.asked("shuffle"))
    bench.post(CommandFailed("shoe", "Shuffle", "no acknowledgement after 4 attempts"))
    assert len(bench.ports.shoe.asked("shuffle")) == asked + 1
    assert any("not taking the command" in a["message"] for a in bench.snap["alerts"])
    bench.shuffled()
    assert bench.table.open_round.shuffled and bench.table.open_round.deck_checked
