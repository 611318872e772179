"""The page's fences beyond the address range: whose page is asking, and is it asking only once.

A browser on the dealer's screen (or on any machine in ``page.allow``) may also be showing
another site's page, and that page may make the browser send requests to the table. Three
rules make such a request harmless by construction (docs/page-api.md, "The fence"):

- ``Host`` must name the table itself: the page's configured host or the address the
  connection arrived at, with the page's port (plus ``localhost``, ``127.0.0.1`` and ``[::1]``
  on loopback). A DNS-rebinding page reaches the table under its own name, so it is refused.
- ``Origin`` (when a browser sends it) must be this page, and ``Sec-Fetch-Site`` (when sent)
  must say ``same-origin``; a request giving ``Host``, ``Origin`` or ``Sec-Fetch-Site`` twice
  is refused (ambiguous), never judged by one copy. A state-changing request must also be a JSON body, which no form
  and no script of another site can send without the table's consent (it never consents).
- A PIN-checked action carries a one-time challenge the page got moments before from
  ``GET /api/challenge``: a recorded request (PIN included) cannot be played again.

A refused cross-site request is alerted to the dealer; ``Throttle`` keeps a flood of them to
one alert (and one log line) per source per minute.
"""

from __future__ import annotations

import collections
import ipaddress
import secrets
import time
from collections.abc import Callable, Mapping

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
ONCE_ONLY = ("Host", "Origin", "Sec-Fetch-Site")      # headers a request may give once
WORDS_LONGEST = 100             # a header quoted in a refusal, an alert and the journal: cut short


def quoted(value: str) -> str:
    """A header's value as it may be quoted back: printable, and short."""
    clean = "".join(c if c.isprintable() else "?" for c in value)
    return clean if len(clean) <= WORDS_LONGEST else clean[:WORDS_LONGEST] + "..."


def _name(text: str) -> str | None:
    """A host name as compared: lower case; an IP address in its one spelling (an IPv4 address
    mapped into IPv6 as the IPv4 address)."""
    text = text.strip().lower()
    if not text:
        return None
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None if ":" in text else text
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return str(address)


def split_host(value: str) -> tuple[str, int] | None:
    """``Host`` or an origin's authority as (name, port); None when it is not one. No port is 80."""
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[1:end], value[end + 1:]
        if rest and not rest.startswith(":"):
            return None
        port_text = rest[1:] if rest else ""
    elif value.count(":") > 1:
        return None                             # an IPv6 address without brackets is no Host
    else:
        name, _, port_text = value.partition(":")
    if port_text and not (port_text.isascii() and port_text.isdigit() and len(port_text) <= 5):
        return None
    normal = _name(name)
    return (normal, int(port_text) if port_text else 80) if normal else None


def is_loopback(name: str | None) -> bool:
    if name == "localhost":
        return True
    try:
        return name is not None and ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class Fence:
    """Host, Origin and Sec-Fetch-Site against the table's own page."""

    def __init__(self, host: str):
        self.host = _name(host)

    def names(self, local: str | None) -> set[str]:
        """The names this table answers to on a connection that arrived at address ``local``."""
        names = {n for n in (self.host, _name(local or "")) if n}
        if any(is_loopback(n) for n in names):
            names.update(LOOPBACK_NAMES)
        # an unspecified address (a page bound to 0.0.0.0 or ::) is nobody's name
        return {n for n in names if n not in ("0.0.0.0", "::")}

    def host_refusal(self, host: str | None, local: str | None, port: int) -> str | None:
        """Why ``Host`` does not name this table (None when it does)."""
        if not host:
            return "request refused: it names no Host (this table answers only requests to its own address)"
        place = split_host(host)
        if place is None or place[0] not in self.names(local) or place[1] != port:
            return (f"request refused: Host {quoted(host)} is not this table's address "
                    "(a page of another site may be reaching the table under its own name)")
        return None

    @staticmethod
    def ambiguity(headers: Mapping[str, str]) -> str | None:
        """Why a request that names its host or its page twice is refused: judged by either copy,
        a second ``Origin`` (or ``Host``, ``Sec-Fetch-Site``) could say what the first does not."""
        getall = getattr(headers, "getall", None)
        if getall is None:                  # a plain mapping holds each name once
            return None
        for name in ONCE_ONLY:
            given = getall(name, [])
            if len(given) > 1:
                return f"request refused: {name} given {len(given)} times (ambiguous)"
        return None

    def origin_refusal(self, headers: Mapping[str, str], host: str, *, changes: bool) -> str | None:
        """Why a request is not from this table's own page (None when it is, or when it is not from a
        browser page at all). ``changes``: the request changes something, so only ``same-origin`` will do."""
        origin = headers.get("Origin")
        if origin is not None:
            scheme, _, authority = origin.partition("://")
            place = split_host(authority) if scheme.lower() == "http" and "/" not in authority else None
            if place is None or place != split_host(host):
                return f"cross-site request refused: Origin {quoted(origin)} is not this table's page"
        site = headers.get("Sec-Fetch-Site")
        if site is not None and site not in (("same-origin",) if changes else ("same-origin", "none")):
            return (f"cross-site request refused: Sec-Fetch-Site {quoted(site)} (only this table's page may "
                    "ask)")
        return None


class Throttle:
    """At most one alert per source per ``window`` seconds; the refusals in between are counted
    and told with the next one. Bounded: the sources heard from least recently are forgotten."""

    def __init__(self, window: float = 60.0, most: int = 256, clock: Callable[[], float] = time.monotonic):
        self.window, self.most, self.clock = window, most, clock
        self._last: collections.OrderedDict[str, list] = collections.OrderedDict()   # source -> [at, held]

    def due(self, source: str) -> int | None:
        """The refusals held back since the last alert when one is due now for ``source``, else None."""
        now = self.clock()
        entry = self._last.get(source)
        if entry is not None and now - entry[0] < self.window:
            entry[1] += 1
            return None
        held = entry[1] if entry is not None else 0
        self._last[source] = [now, 0]
        self._last.move_to_end(source)
        while len(self._last) > self.most:
            self._last.popitem(last=False)
        return held


class Challenges:
    """One-time challenges for PIN-checked actions, in memory: each random, valid ``ttl`` seconds
    and for one use; at most ``most`` outstanding (a new one pushes out the oldest)."""

    def __init__(self, ttl: float = 120.0, most: int = 32, clock: Callable[[], float] = time.monotonic):
        self.ttl, self.most, self.clock = ttl, most, clock
        self._open: dict[str, float] = {}                       # challenge -> expiry, oldest first
        self._used: collections.deque[str] = collections.deque(maxlen=4 * most)

    def issue(self) -> str:
        now = self.clock()
        for token in [t for t, until in self._open.items() if until <= now]:
            del self._open[token]
        while len(self._open) >= self.most:
            del self._open[next(iter(self._open))]
        token = secrets.token_urlsafe(24)
        self._open[token] = now + self.ttl
        return token

    def redeem(self, token: object) -> str | None:
        """Use ``token`` up; why it cannot be used (None when it can)."""
        if not isinstance(token, str) or not token:
            return "a supervisor's action needs a challenge: the page asks GET /api/challenge for one first"
        until = self._open.pop(token, None)
        if until is None:
            if token in self._used:
                return "this challenge was already used: a request is never taken twice (ask for a new one)"
            return "this challenge is unknown or was pushed out by newer ones (ask for a new one)"
        self._used.append(token)
        if until <= self.clock():
            return "this challenge expired (ask for a new one)"
        return None
