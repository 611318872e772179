"""``table-sim`` as a separate process: URLs and configuration out, fault commands in, clean stop."""

import json
import signal
import subprocess
import sys

from controller.app.config import parse_config
from drivers.events import DeviceOnline, HandDealt, ShuffleDone
from tests.support.devices import driver_alone

FAST = dict(heartbeat_every=0.2, silence_after=3.0, backoff=(0.05, 0.2))


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
        config = parse_config(hello["config"], "table-sim output")
        assert config.devices["shoe"].url == hello["devices"]["shoe"]
        assert hello["devices"]["sensors"].startswith("socket://127.0.0.1:")
        with driver_alone("shoe", "shoe-framed", hello["devices"]["shoe"], **FAST) as (drv, events):
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


def test_same_seed_same_first_hand():
    hands = []
    for _ in range(2):
        proc, hello = _start("--seed", "9", "--no-players")
        try:
            with driver_alone("shoe", "shoe-framed", hello["devices"]["shoe"], **FAST) as (drv, events):
                events.of(DeviceOnline)
                drv.shuffle(1)
                events.of(ShuffleDone)
                drv.deliver_hand(1)
                hands.append(events.of(HandDealt).cards)
        finally:
            proc.send_signal(signal.SIGINT)
            assert proc.wait(10) == 0
    assert hands[0] == hands[1]
