"""The page's server-sent-event streams, bounded: how many, and what a slow client may hold.

Each stream sends the newest snapshot whenever one is published, never a queue of them: a
client that falls behind skips to the newest. What a client has not read yet waits in its
connection's transport, and that is bounded too: above ``HIGH_WATER`` unsent bytes the stream
waits for the client, and a client that stays above it for ``STALL`` seconds (one that does not
read) is cut off and what it held is freed. At most ``MOST`` streams run at once; one more is
refused with 503. So whatever clients do, the streams hold at most about
``MOST * (HIGH_WATER + one snapshot)`` bytes of the controller's memory (docs/page-api.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

from controller.latency import Latencies

KEEPALIVE = 15.0                # a comment line when nothing changed for this long
MOST = 16                       # event streams at once: a few screens, never a crowd
HIGH_WATER = 256 * 1024         # unsent bytes a stream may hold before it must wait for its client
STALL = 5.0                     # a stream that waits this long above the mark is dropped
SNDBUF = 64 * 1024              # the kernel's send buffer of a stream, bounded as well
TICK = 1.0                      # how often an idle stream looks whether its client has left


class Streams:
    def __init__(self, log: Any) -> None:
        self.log = log
        self.listeners: set[asyncio.Event] = set()
        self._encoded: tuple[dict | None, bytes] = (None, b"")     # the newest event, encoded once for all
        self._stamped: tuple[int | None, float] = (None, 0.0)      # the newest snapshot's version, when published
        self.latency = Latencies()      # publication to its event written to a page's connection

    def event(self, snap: dict) -> bytes:
        if self._encoded[0] is not snap:
            self._encoded = (snap, b"event: snapshot\ndata: " + json.dumps(snap).encode() + b"\n\n")
        return self._encoded[1]

    def stamp(self, snap: dict, published: float) -> None:
        """``snap`` was published at ``published`` (time.monotonic, on the engine's thread); by its
        version, since each language's readers get their own translation of it."""
        self._stamped = (snap.get("version"), published)

    def wake(self) -> None:
        for listener in self.listeners:
            listener.set()

    async def serve(self, request: web.Request, latest: Callable[[], dict],
                    stopping: asyncio.Event) -> web.StreamResponse:
        """One stream: ``retry: 500``, then ``latest()`` at once and again whenever it changes."""
        if len(self.listeners) >= MOST:
            return web.json_response({"ok": False, "message": (
                f"this table's page already serves {MOST} live pages, the most it serves at once: close "
                "another page of this table, then reload")}, status=503)
        wake = asyncio.Event()
        self.listeners.add(wake)                # counted before the first await: no race past the limit
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "X-Accel-Buffering": "no"})
        sent = None
        try:
            await response.prepare(request)
            transport = request.transport
            if transport is None:
                return response
            transport.set_write_buffer_limits(high=HIGH_WATER)
            with contextlib.suppress(OSError, AttributeError):
                transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SNDBUF)
            idle = 0.0
            if not await send_bounded(response, b"retry: 500\n\n"):
                return self._drop(request, response)
            while not stopping.is_set() and not transport.is_closing():
                snap = latest()
                if snap is not sent:
                    if not await send_bounded(response, self.event(snap)):
                        return self._drop(request, response)
                    if self._stamped[0] is not None and self._stamped[0] == snap.get("version"):
                        self.latency.add(time.monotonic() - self._stamped[1])
                    sent, idle = snap, 0.0
                try:
                    await asyncio.wait_for(wake.wait(), TICK)
                except TimeoutError:
                    idle += TICK
                    if idle >= KEEPALIVE:
                        if not await send_bounded(response, b": keepalive\n\n"):
                            return self._drop(request, response)
                        idle = 0.0
                wake.clear()
        except ConnectionError:              # the browser went away; a cancelled handler just ends
            pass
        finally:
            self.listeners.discard(wake)
        return response

    def _drop(self, request: web.Request, response: web.StreamResponse) -> web.StreamResponse:
        """A client that does not read: its connection is cut and what it held is freed."""
        transport = request.transport
        self.log.warning("page.stream_dropped", remote=request.remote,
                         unsent=transport.get_write_buffer_size() if transport else 0,
                         reason=f"over {HIGH_WATER // 1024} KiB stayed unsent for {STALL:g} s: a client not reading")
        if transport is not None:
            with contextlib.suppress(OSError, AttributeError):      # a reset: the kernel keeps none of it either
                transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                                              struct.pack("ii", 1, 0))
            transport.abort()
        return response


async def send_bounded(response: web.StreamResponse, data: bytes) -> bool:
    """Write, unless the client's unsent data stays above the high-water mark for STALL seconds."""
    try:
        await asyncio.wait_for(response.write(data), STALL)
    except TimeoutError:
        return False
    return True
