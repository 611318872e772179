"""``run --autoplay --sim-apart``: the simulated devices, players and dealer in a process of their own
(simulators/apart.py), where hardware sits. The same seed plays the same rounds as in one process:
apart they are the same devices, only not on the controller's interpreter."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.support import ROOT


def _autoplay(data: Path, *extra: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--autoplay", "--rounds", "4", "--seed", "5",
                           "--data-dir", str(data), "--port", "0", "--log-format", "json", *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _dealt(data: Path) -> list[tuple[int, str, list[str], list[int]]]:
    db = sqlite3.connect(data / "journal.sqlite")
    try:
        rows = db.execute("SELECT round_id, data FROM records WHERE kind = 'settlement' ORDER BY seq").fetchall()
    finally:
        db.close()
    return [(r, s["dealer"], [seat["cards"] for seat in s["seats"]], [seat["net"] for seat in s["seats"]])
            for r, s in ((r, json.loads(d)) for r, d in rows)]


def test_the_devices_apart_play_the_same_rounds_as_in_one_process(tmp_path):
    apart = _autoplay(tmp_path / "apart", "--sim-apart")
    together = _autoplay(tmp_path / "together")
    assert apart["rounds_played"] == together["rounds_played"] == 4
    assert (apart["wagered_cents"], apart["paid_cents"]) == (together["wagered_cents"], together["paid_cents"])
    assert _dealt(tmp_path / "apart") == _dealt(tmp_path / "together")
    assert len(_dealt(tmp_path / "apart")) == 4
    assert apart["latency"]["frame_to_snapshot"]["n"] > 0     # the drivers' frames reached the engine


def test_apart_is_refused_where_the_devices_cannot_be_apart(tmp_path):
    for bad, said in ((["--sim-apart", "--shoe-usb"], "the simulated USB bus lives in the controller's process"),
                      (["--sim-apart", "--config", "deploy/table.example.toml"], "--sim-apart needs simulated")):
        done = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--data-dir", str(tmp_path / "d"),
                               *bad], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode != 0 and said in done.stderr, done.stderr[-1000:]
        assert not (tmp_path / "d" / "journal.sqlite").exists()


def test_a_child_that_stopped_reading_cannot_hold_the_controllers_stop():
    """Review finding: with the child hung and the pipe full, ``stop`` wrote its own "stop" message
    on that pipe and waited for ever (the run's stop, even after SIGTERM)."""
    import os
    import signal
    import threading
    import time

    from controller.rules.paytable import load_preset
    from simulators.apart import STOP_TIMEOUT, SimulatedTableApart
    from simulators.table import SimOptions
    sim = SimulatedTableApart(SimOptions(seed=1), load_preset("sheet-004"))
    observers: list = []
    sim.dealer(lambda *a, **k: None, observers, 1)
    os.kill(sim._process.pid, signal.SIGSTOP)          # hung: it reads nothing more
    for i in range(20):                                # snapshots of a full table fill the pipe
        observers[0]({"version": i, "positions": [str(i) * 1000 for _ in range(40)]})
        time.sleep(0.02)
    began = time.monotonic()
    stopping = threading.Thread(target=sim.stop, daemon=True)
    stopping.start()
    stopping.join(STOP_TIMEOUT + 15)
    assert not stopping.is_alive() and time.monotonic() - began < STOP_TIMEOUT + 10
    assert not sim._process.is_alive()
