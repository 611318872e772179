"""Device URLs a table configuration may name, and why one cannot be used.

Owns the forms of a device's address in ``[devices.*] url``: a serial device
(``/dev/...``), a serial server (``socket://HOST:PORT``, ``rfc2217://HOST:PORT``),
pyserial's test URLs (``loop://``, ``spy://``) and the shoe on USB
(``usb://VID:PID[/SERIAL]``). controller/app/config.py asks ``url_problem`` of each.
"""

from __future__ import annotations

import ipaddress
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
