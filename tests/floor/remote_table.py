"""A whole table in a process of its own, driven line by line from a test (JSON on stdin/stdout).

Two tables cannot share one test process: the audit trail is the process's logging set-up
(controller/app/logs.py), one per table as in production. The child runs the table of
``tests/floor/conftest.py: start_table`` (simulated devices, its forwarder on the floor) and
answers each request ``{"call": NAME, "args": [...], "kwargs": {...}}`` with ``{"ok": true,
"result": ...}`` or ``{"ok": false, "error": ...}``; NAME is a method of ``Rig`` or of
``Calls``. ``RemoteTable`` is the test's side, with ``wait`` as ``Rig.wait`` has it (each wait
is the child's ``Engine.wait_snapshot``: no polling interval)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from controller.rules.cards import parse_card
from controller.store.failpoints import VARIABLE


class Calls:
    """What the test may ask of the child besides ``Rig``'s own methods."""

    def __init__(self, rig):
        self.rig = rig

    def open_and_bet(self, bets: dict[str, dict[str, int]], **kwargs) -> dict:
        return self.rig.open_and_bet({int(p): w for p, w in bets.items()}, **kwargs)   # JSON's keys are text

    def stack(self, cards: list[str]) -> None:
        self.rig.sim.shoe.planned = [parse_card(c) for c in cards]

    def wait_snapshot(self, after: int, timeout: float) -> dict:
        return self.rig.engine.wait_snapshot(after, timeout)

    def sign(self) -> str:
        return self.rig.sim.sign.display()

    def records_of(self, kind: str, round_id: int) -> list[dict]:
        return [r.data for r in self.rig.records(kind, round_id)]

    def stop_table(self) -> None:
        self.rig.run.stop()

    def table_events(self) -> list[list]:
        return [[k, json.loads(d)] for k, d in self.rig.journal.db.execute(
            "SELECT kind, data FROM table_events ORDER BY seq")]


def serve(config: Path) -> None:
    from tests.floor.conftest import start_table
    rig = start_table(config)
    calls = Calls(rig)
    print(json.dumps({"ok": True, "result": "started"}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        name = request["call"]
        try:
            target = getattr(calls, name, None) or getattr(rig, name)
            result = target(*request.get("args", []), **request.get("kwargs", {}))
            answer = {"ok": True, "result": result if isinstance(result, (dict, list, str, int, type(None)))
                      else repr(result)}
        except Exception as err:            # told to the test, which fails with it
            answer = {"ok": False, "error": f"{type(err).__name__}: {err}"}
        print(json.dumps(answer), flush=True)
        if name == "stop_table":
            return


class RemoteTable:
    def __init__(self, config: Path, failpoints: str | None = None):
        """``failpoints``: the child's TABLE_FAILPOINTS (controller/store/failpoints.py), e.g. a SIGKILL."""
        self.log = open(config.parent / "remote.log", "a")
        env = {k: v for k, v in os.environ.items() if k != VARIABLE}
        if failpoints:
            env[VARIABLE] = failpoints
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.floor.remote_table", str(config)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True,
                                     cwd=Path(__file__).resolve().parents[2], env=env)
        self._answer()                              # "started"

    def _answer(self) -> Any:
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if not line:
            raise AssertionError(f"the remote table died (exit {self.proc.poll()}); see {self.log.name}")
        answer = json.loads(line)
        if not answer["ok"]:
            raise AssertionError(answer["error"])
        return answer["result"]

    def call(self, name: str, *args, **kwargs) -> Any:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"call": name, "args": list(args), "kwargs": kwargs}) + "\n")
        self.proc.stdin.flush()
        return self._answer()

    def __getattr__(self, name: str):
        return lambda *args, **kwargs: self.call(name, *args, **kwargs)

    @property
    def snap(self) -> dict:
        return self.call("wait_snapshot", 1 << 60, 0)

    def wait(self, predicate, timeout: float = 10.0, what: str = "the table") -> dict:
        deadline = time.monotonic() + timeout
        snap = self.snap
        while not predicate(snap):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{what} not reached within {timeout} s; state {snap['state']}, "
                                     f"prompt {snap['prompt']}, alerts {snap['alerts'][-3:]}")
            snap = self.call("wait_snapshot", snap["version"], min(remaining, 0.5))
        return snap

    def eventually(self, check, timeout: float = 5.0, what: str = "condition") -> None:
        """``check`` of this side's calls (the sign's display, say), as ``Rig.eventually``."""
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} not met within {timeout} s")
            time.sleep(0.01)

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.call("stop_table")
            except (AssertionError, BrokenPipeError):
                pass
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
