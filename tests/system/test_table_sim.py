"""``table-sim`` as a separate process: URLs and configuration out, fault commands in, clean stop."""

import json
import signal
import subprocess
import sys

from controller.app.config import parse_config
from controller.rules.cards import card_text
from drivers.events import DeviceOffline, DeviceOnline, HandDealt, ShuffleDone, SpotChanged
from tests.support.devices import driver_alone

FAST = dict(heartbeat_every=0.2, silence_after=3.0, backoff=(0.05, 0.2))


def framed(hello, role):
    """A driver for table-sim's shoe or sensors, paired with the key file table-sim printed."""
    return driver_alone(role, f"{role}-framed", hello["devices"][role], key_file=hello["key_files"][role], **FAST)


def _start(*args):
    proc = subprocess.Popen([sys.executable, "-m", "simulators.cli", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, json.loads(proc.stdout.readline())


def _command(proc, line):
    proc.stdin.write(line + "\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def test_table_sim_serves_devices_takes_faults_and_stops_on_sigterm():
    proc, hello = _start("--transport", "tcp", "--seed", "5", "--no-players")
    try:
        assert hello["seed"] == 5
        config = parse_config(hello["config"], "table-sim output")
        assert config.devices["shoe"].url == hello["devices"]["shoe"]
        assert hello["devices"]["sensors"].startswith("socket://127.0.0.1:")
        with framed(hello, "shoe") as (drv, events):
            events.of(DeviceOnline)
            drv.shuffle(1)
            events.of(ShuffleDone)
            assert _command(proc, "shoe hand-size 4") == {"ok": True, "done": "shoe hand-size 4"}
            drv.deliver_hand(1)
            assert len(events.of(HandDealt).cards) == 4
        bad = _command(proc, "shoe explode")
        assert not bad["ok"] and "shoe has no fault 'explode'" in bad["error"]
        assert "unknown command" in _command(proc, "toaster on")["error"]
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0


def test_without_a_seed_one_is_taken_from_the_clock_and_named():
    """Issue 31: a fixed default seed replayed the same rounds after every restart."""
    seeds = []
    for _ in range(2):
        proc, hello = _start("--transport", "tcp", "--no-players")
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
        seeds.append(hello["seed"])
    assert all(isinstance(s, int) and s >= 0 for s in seeds) and seeds[0] != seeds[1]


def test_same_seed_same_first_hand():
    hands = []
    for _ in range(2):
        proc, hello = _start("--seed", "9", "--no-players")
        try:
            with framed(hello, "shoe") as (drv, events):
                events.of(DeviceOnline)
                drv.shuffle(1)
                events.of(ShuffleDone)
                drv.deliver_hand(1)
                hands.append(events.of(HandDealt).cards)
        finally:
            proc.send_signal(signal.SIGINT)
            assert proc.wait(10) == 0
    assert hands[0] == hands[1]


def _free_ports(count=3):
    """A run of ``count`` free TCP ports on 127.0.0.1 (free when looked at)."""
    import socket
    for _ in range(50):
        held = []
        try:
            first = socket.socket()
            first.bind(("127.0.0.1", 0))
            held.append(first)
            base = first.getsockname()[1]
            if base + count - 1 > 65535:
                continue
            for port in range(base + 1, base + count):
                s = socket.socket()
                held.append(s)
                s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for s in held:
                s.close()
    raise AssertionError("no run of free ports")


def _stop(proc):
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(10) == 0


def test_repeat_card_while_players_play_does_not_kill_the_shoe():
    """The players' strategy raised KeyError on a hand with one card twice, on the shoe's thread:
    the shoe answered nothing more and its driver saw it fall silent."""
    proc, hello = _start("--transport", "tcp", "--seed", "5")
    try:
        with framed(hello, "sensors") as (sensors, seen), \
                framed(hello, "shoe") as (shoe, events):
            events.of(DeviceOnline)
            seen.of(DeviceOnline)
            sensors.lock(False)                         # betting opens: the players put chips out
            seen.of(SpotChanged)
            shoe.shuffle(1)
            events.of(ShuffleDone)
            assert _command(proc, "shoe repeat-card")["ok"]
            shoe.deliver_hand(1)
            first = events.of(HandDealt).cards
            assert first[0] == first[1]                 # the reader saw one card twice
            for hand in (2, 3, 4):
                shoe.deliver_hand(hand)
                assert len(events.of(HandDealt, hand_no=hand).cards) == 3
            assert not any(isinstance(e, DeviceOffline) for e in events.seen)
        assert _command(proc, "players pause") == {"ok": True, "done": "players paused"}
    finally:
        _stop(proc)
    assert "Traceback" not in proc.stderr.read()


def test_bad_fault_commands_answer_one_line_in_words_and_change_nothing():
    proc, hello = _start("--transport", "tcp", "--no-players")
    try:
        for line, words in [
            ("sensors place 3 dealer 500", ["'dealer'", "SPOT", "ante, play, pair_plus"]),
            ("sensors place 9 ante 500", ["'9'", "POS", "from 1 to 6"]),
            ("sensors place 3 ante lots", ["'lots'", "CENTS", "whole number"]),
            ("sensors place 3 ante", ["CENTS missing"]),
            ("shoe hand-size x", ["'x'", "from 1 to 9"]),
            ("shoe hand-size 300", ["'300'", "from 1 to 9"]),
            ("shoe jam 999", ["'999'", "CODE", "from 1 to 255"]),
            ("shoe door ajar", ["'ajar'", "open, closed"]),
            ("shoe stack As,Ks,As", ["'As,Ks,As'", "different cards"]),
            ("shoe stack As,Kz", ["'As,Kz'", "CARD,CARD,..."]),
            ("shoe silent maybe", ["'maybe'", "on, off"]),
            ("shoe delay soon", ["'soon'", "seconds"]),
            ("shoe repeat-card twice", ["'twice'", "one word too many"]),
            ("sign nak -1", ["'-1'", "from 1 to 1000"]),
            ("sign delay 2", ["'delay'", "faults: silent, drop, nak"]),
            ("shoe 'unclosed", ["No closing quotation"]),
            ("players dance", ["'dance'", "players pause or players resume"]),
            ("toaster on", ["unknown command 'toaster'", "shoe, sensors, sign or players"]),
        ]:
            answer = _command(proc, line)
            assert answer["ok"] is False and "\n" not in answer["error"], (line, answer)
            for word in words:
                assert word in answer["error"], (line, answer["error"], word)
            assert "tuple" not in answer["error"] and "invalid literal" not in answer["error"]
        # nothing was changed: the next hand has three cards and the spots are empty
        with framed(hello, "shoe") as (drv, events):
            events.of(DeviceOnline)
            drv.shuffle(1)
            events.of(ShuffleDone)
            drv.deliver_hand(1)
            assert len(events.of(HandDealt).cards) == 3
        assert _command(proc, "help")["commands"]                  # the loop is alive
    finally:
        _stop(proc)


def test_base_port_chooses_the_ports_and_a_taken_port_is_refused_in_words():
    import socket
    base = _free_ports()
    proc, hello = _start("--base-port", str(base), "--no-players")     # TCP without saying so
    try:
        assert hello["devices"] == {"shoe": f"socket://127.0.0.1:{base}",
                                    "sensors": f"socket://127.0.0.1:{base + 1}",
                                    "sign": f"socket://127.0.0.1:{base + 2}"}
        assert parse_config(hello["config"], "table-sim").devices["sign"].url == hello["devices"]["sign"]
        # the ports are held now: a second table-sim on them is refused, naming the port and the device
        taken = subprocess.run([sys.executable, "-m", "simulators.cli", "--base-port", str(base)],
                               capture_output=True, text=True, timeout=30)
        assert taken.returncode == 2 and taken.stdout == ""
        assert taken.stderr == (f"table-sim: the shoe cannot listen on 127.0.0.1 port {base}: it is taken; "
                                "choose another --base-port\n")
    finally:
        _stop(proc)
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", base + 1))
    blocker.listen(1)
    try:
        taken = subprocess.run([sys.executable, "-m", "simulators.cli", "--base-port", str(base)],
                               capture_output=True, text=True, timeout=30)
        assert taken.returncode == 2
        assert f"the sensors cannot listen on 127.0.0.1 port {base + 1}: it is taken" in taken.stderr
    finally:
        blocker.close()
    for args, words in [(["--base-port", "65534"], "from 1 to 65533"),
                        (["--base-port", "x"], "'x' is not a port number"),
                        (["--transport", "pty", "--base-port", str(base)], "cannot be given with --transport pty")]:
        refused = subprocess.run([sys.executable, "-m", "simulators.cli", *args], capture_output=True, text=True,
                                 timeout=30)
        assert refused.returncode == 2 and words in refused.stderr, refused.stderr


def test_help_documents_base_port():
    out = subprocess.run([sys.executable, "-m", "simulators.cli", "--help"], capture_output=True, text=True,
                         timeout=30)
    assert "--base-port N" in out.stdout and "sensors N+1, sign N+2" in out.stdout


def test_a_stacked_shoe_deals_the_chosen_hands_first_in_order():
    """Rare hands on purpose: the next shuffle deals the stacked cards first, hand after hand."""
    proc, hello = _start("--transport", "tcp", "--no-players")
    try:
        done = _command(proc, "shoe stack As,Ks,Qs,Jh,Th,9h,2c")
        assert done == {"ok": True, "done": "shoe stack As,Ks,Qs,Jh,Th,9h,2c"}
        with framed(hello, "shoe") as (drv, events):
            events.of(DeviceOnline)
            drv.shuffle(1)
            assert events.of(ShuffleDone).count == 52
            hands = []
            for hand_no in (1, 2, 3):
                drv.deliver_hand(hand_no)
                hands.append([card_text(card) for card, _deck in events.of(HandDealt).cards])
        assert hands[0] == ["As", "Ks", "Qs"] and hands[1] == ["Jh", "10h", "9h"]
        assert hands[2][0] == "2c" and len(set(hands[2])) == 3
    finally:
        _stop(proc)

