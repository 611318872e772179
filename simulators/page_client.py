"""A dealer that works a running controller through its page's HTTP API, as the touchscreen does.

Owns the soak's side of the page: one thread reads the server-sent event
stream (``GET /api/events``) and hands each snapshot to a ScriptedDealer
(simulators/dealer.py); the dealer's actions are queued and posted by a second
thread (``POST /api/action``, a supervisor's with its PIN and a fresh
``GET /api/challenge``, the dealer's sign-in with the dealer's PIN), so reading the stream
never waits on an answer. Both threads outlive the controller: a killed controller is reconnected to when it
is back. The requests obey the page's fence (docs/page-api.md): the table's
Host, JSON bodies, no Origin.
"""

from __future__ import annotations

import http.client
import json
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

RECONNECT = 0.2                 # seconds between two attempts to reach a controller that is away


class PageClient:
    def __init__(self, host: str, port: int, *, pin: str, on_snapshot: Callable[[dict], None],
                 dealer_pin: str = ""):
        self.host, self.port, self.pin = host, port, pin
        self.dealer_pin = dealer_pin        # the dealer's own, to sign in with
        self.on_snapshot = on_snapshot
        self.actions: queue.Queue = queue.Queue()
        self.sent = 0
        self.refused: dict[str, int] = {}           # "action: reason" -> count (a few are normal)
        self.unanswered = 0                          # connection lost before an answer (a kill)
        self._conn: http.client.HTTPConnection | None = None     # the action thread's
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._read_events, name="soak-events", daemon=True),
                         threading.Thread(target=self._post_actions, name="soak-actions", daemon=True)]

    def start(self) -> PageClient:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.actions.put(None)

    def submit(self, action: str, role: str = "dealer", who: str = "", **args: Any) -> None:
        """The ScriptedDealer's ``submit``: queued, posted by the action thread."""
        self.actions.put((action, role, args))

    def get(self, path: str, timeout: float = 5.0) -> tuple[int, Any]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            conn.request("GET", path, headers={"Host": f"{self.host}:{self.port}"})
            response = conn.getresponse()
            return response.status, json.loads(response.read() or b"null")
        finally:
            conn.close()

    # --- the threads ----------------------------------------------------------------------

    def _read_events(self) -> None:
        while not self._stop.is_set():
            conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
            try:
                conn.request("GET", "/api/events", headers={"Host": f"{self.host}:{self.port}",
                                                            "Accept": "text/event-stream"})
                response = conn.getresponse()
                if response.status != 200:
                    raise OSError(f"event stream answered {response.status}")
                for raw in response:
                    if self._stop.is_set():
                        return
                    if raw.startswith(b"data: "):
                        self.on_snapshot(json.loads(raw[6:]))
            except (OSError, http.client.HTTPException, ValueError):
                pass                            # the controller is away (killed, restarting)
            finally:
                conn.close()
            self._stop.wait(RECONNECT)

    def _post_actions(self) -> None:
        while True:
            item = self.actions.get()
            if item is None:
                self._drop()
                return
            action, role, args = item
            body: dict[str, Any] = {"action": action, **args}
            try:
                if role != "dealer" or action == "sign_in_dealer":
                    status, answer = self._request("GET", "/api/challenge")
                    body.update(role=role, pin=self.pin if role != "dealer" else self.dealer_pin,
                                challenge=answer["challenge"])
                status, answer = self._request("POST", "/api/action", body)
            except (OSError, http.client.HTTPException, ValueError, KeyError, TypeError):
                self._drop()
                self.unanswered += 1            # the dealer asks again when the snapshot says so
                continue
            self.sent += 1
            if not answer.get("ok"):
                key = f"{action}: {answer.get('message', status)}"[:160]
                self.refused[key] = self.refused.get(key, 0) + 1

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        """On the action thread's one kept-alive connection (a new connection per action cost the
        soak a few milliseconds each, ten times a round); made again after any failure."""
        if self._conn is None:
            self._conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
        headers = {"Host": f"{self.host}:{self.port}"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        self._conn.request(method, path, json.dumps(body) if body is not None else None, headers=headers)
        response = self._conn.getresponse()
        return response.status, json.loads(response.read() or b"{}")

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()


def wait_until(predicate: Callable[[], bool], timeout: float, every: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(every)
    return predicate()
