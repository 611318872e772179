"""The page's connections at the socket, before a byte of a request is read: how many at once.

Owns the count of the page's open connections and the admission of each. aiohttp keeps a connection
for as long as its client takes to finish a request, from any address: the address fence
(server.py) answers requests, so it meets a client only once its headers are in. Each connection
holds one of the process's file descriptors. The test lab held 1,100 connections open, each half
a request line, from one loopback client: the controller ran out of the 1,024 descriptors systemd
gives a service, the audit trail could not open its file and the table halted (and the page's
accept loop logged 550,000 errors in a minute).

So at most ``MOST`` connections at once, at most ``OUTSIDERS`` of them from addresses outside
``page.allow`` (a machine that may not use the page cannot take the dealer's place either), and at
most ``EACH`` from any one address (a tablet in the pit whose browser or script misbehaves cannot take
the dealer's kiosk's place: a browser keeps about 6 to a server, and its event streams), and ``KEPT``
places only the table PC itself may take (the kiosk, deploy/kiosk: several machines in the pit
together cannot take the dealer's page either); one more is
closed at once, unread (a reset, where it had sent bytes), and logged (a warning, once a minute per
address, counting the rest).
The descriptors the page can hold stay far below the process's limit whatever clients do.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Callable
from typing import Any

from controller.page.fence import Throttle

MOST = 256              # a kiosk and a few tablets use a few each (16 of them event streams)
OUTSIDERS = 32          # enough to tell each of them 403 in words
EACH = 64               # from one address: a kiosk's browser, its pages' event streams, a technician's tools
KEPT = 16               # places only the table PC itself takes: its kiosk (deploy/kiosk) is the dealer's page


class Gate:
    """A protocol factory in front of aiohttp's: counts the open connections and turns away the
    one over the limits before aiohttp sees it."""

    def __init__(self, factory: Callable[[], asyncio.Protocol], allowed: Callable[[str], bool], log: Any):
        self.factory, self.allowed, self.log = factory, allowed, log
        self.open = {True: 0, False: 0}             # open connections by whether page.allow lets them in
        self._by_address: dict[str, int] = {}       # open connections of each address
        self._elsewhere = 0                         # open connections from other machines than this one
        self._throttle = Throttle()

    def __call__(self) -> asyncio.Protocol:
        return _Admitted(self)

    def admit(self, address: str) -> bool | None:
        """Whether ``address`` is allowed, counted open; None when there is no room for it."""
        allowed = self.allowed(address)
        here = _on_this_machine(address)
        full = (sum(self.open.values()) >= MOST or (not allowed and self.open[False] >= OUTSIDERS)
                or self._by_address.get(address, 0) >= EACH or (not here and self._elsewhere >= MOST - KEPT))
        if full:
            held = self._throttle.due(f"connection {address}")
            if held is not None:
                self.log.warning("page.connection_refused", remote=address, more_refused=held,
                                 open=sum(self.open.values()), reason=(
                                     f"the page holds {MOST} connections at once, {OUTSIDERS} from addresses "
                                     f"outside page.allow, {EACH} from any one, {MOST - KEPT} from other "
                                     "machines"))
            return None
        self.open[allowed] += 1
        self._by_address[address] = self._by_address.get(address, 0) + 1
        self._elsewhere += not here
        return allowed

    def closed(self, allowed: bool, address: str) -> None:
        self.open[allowed] -= 1
        self._elsewhere -= not _on_this_machine(address)
        left = self._by_address.pop(address) - 1
        if left:
            self._by_address[address] = left


def _on_this_machine(address: str) -> bool:
    """A loopback address (an IPv6-mapped one too): the table PC's own kiosk and tools."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return (mapped or ip).is_loopback


class _Admitted(asyncio.Protocol):
    """One connection: aiohttp's own protocol behind it once admitted, every call passed on."""

    def __init__(self, gate: Gate):
        self.gate = gate
        self.inner: asyncio.Protocol | None = None
        self.allowed = False
        self.address = ""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        self.address = str(peer[0]) if peer else ""
        allowed = self.gate.admit(self.address)
        if allowed is None:                     # closed unread: it costs the table nothing more
            transport.abort() if isinstance(transport, asyncio.Transport) else transport.close()
            return
        self.allowed = allowed
        try:
            inner = self.gate.factory()
        except Exception:                       # nobody to serve it: not kept, not counted
            self.gate.closed(allowed, self.address)
            transport.abort() if isinstance(transport, asyncio.Transport) else transport.close()
            raise
        self.inner = inner
        inner.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.inner is not None:
            self.gate.closed(self.allowed, self.address)
            self.inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.inner is not None:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()
