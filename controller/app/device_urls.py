"""Device URLs a table configuration may name, and why one cannot be used.

Owns the forms of a device's address in ``[devices.*] url``: a serial device
(``/dev/...``), a serial server (``socket://HOST:PORT``, ``rfc2217://HOST:PORT``),
pyserial's test URLs (``loop://``, ``spy://``) and the shoe on USB
(``usb://VID:PID[/SERIAL]``). controller/app/config.py asks ``url_problem`` of each, and
``shared_ports`` of them all: two devices on one port would each read the other's bytes.
"""

from __future__ import annotations

import ipaddress
import os
import re
from typing import Any

URL_FORMS = re.compile(r"^(/dev/\S+|(socket|rfc2217)://[^\s:/]+:\d{1,5}\S*|loop://\S*|spy://\S+"
                       r"|usb://[0-9a-fA-F]{4}:[0-9a-fA-F]{4}(/\S+)?)$")
NETWORK_URL = re.compile(r"^(socket|rfc2217)://([^\s:/?]+):(\d+)([/?]\S*)?$")
HOST_NAME = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*")


def is_ip(host: str) -> bool:
    """An IPv4 or IPv6 address written as such (not a host name)."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def url_problem(url: Any, role: str) -> str | None:
    """Why a device URL cannot be used; None when it can."""
    if not isinstance(url, str) or not URL_FORMS.match(url):
        return (f"{url!r} is not a device URL (/dev/..., socket://HOST:PORT, rfc2217://HOST:PORT, loop://, "
                "spy://..., usb://VID:PID[/SERIAL])")
    if url.startswith("usb://") and role != "shoe":
        return f"only the shoe attaches by USB; the {role} is on a serial line"
    network = NETWORK_URL.match(url)
    if url.startswith(("socket://", "rfc2217://")):
        if not network:
            return f"{url!r} is not SCHEME://HOST:PORT, optionally followed by /... or ?OPTIONS"
        host, port = network.group(2), int(network.group(3))
        numeric = re.fullmatch(r"[0-9.]+", host) is not None
        if (numeric and not is_ip(host)) or (not numeric and not HOST_NAME.fullmatch(host)) or len(host) > 253:
            return f"{url!r}: host {host!r} is neither an IPv4 address nor a host name"
        if not 1 <= port <= 65535:
            return f"{url!r}: port {port} is not a port number 1-65535"
    return None


def _port_of(url: str) -> str | None:
    """What a device URL opens, so two names of one port compare equal: a serial device by the file
    it resolves to (``/dev/table-shoe`` is a udev link to a ``/dev/ttyUSB*``), a device server by host
    and port (one connection per port; socket:// and rfc2217:// alike); None for ``loop://``, a new
    port at every open."""
    if url.startswith("spy://"):
        url = url[len("spy://"):].split("?")[0]
    if url.startswith("/dev/"):
        return os.path.realpath(url)
    network = NETWORK_URL.match(url)
    if network:
        return f"{network.group(2).lower()}:{int(network.group(3))}"
    if url.startswith("usb://"):
        return url.lower()
    return None


def shared_ports(urls: dict[str, Any]) -> dict[str, str]:
    """Why a device's URL names a port another device of the table already has, by role: both drivers
    would open it, and each would read, as garbage or not at all, what the other's device says."""
    problems: dict[str, str] = {}
    first: dict[str, tuple[str, str]] = {}
    for role, url in urls.items():
        if not isinstance(url, str) or url_problem(url, role):
            continue                        # already refused on its own
        port = _port_of(url)
        if port is None:
            continue
        if port in first:
            other, other_url = first[port]
            same = "" if other_url == url else f" ({url} and {other_url} are the same port)"
            whose = f"{other}'" if other.endswith("s") else f"{other}'s"
            problems[role] = (f"{url!r} is also the {whose} port{same}: each device needs a port of its "
                              "own (two drivers on one port each read the other's bytes)")
        else:
            first[port] = (role, url)
    return problems
