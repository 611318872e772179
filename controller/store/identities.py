"""The devices' identities as the journal keeps them: one ``device_identity`` table event per connect.

Owns reading them back for a technician (``table-controller devices``): each
device's identity at its last connect, and every connect with its time, so a
swapped device or new firmware shows where it happened. The events are
written by the round core when a device comes online
(controller/round/links.py).
"""

from __future__ import annotations

import json
from typing import Any

from controller.store.journal import Journal


def identities(journal: Journal, last: int = 25) -> dict[str, Any]:
    """``{"devices": {role: its last identity, with "at"}, "connects": the last ``last`` connects,
    newest first, each with "at"}``."""
    rows = journal.db.execute(
        "SELECT at, data FROM table_events WHERE kind = 'device_identity' ORDER BY seq").fetchall()
    connects = [{"at": at, **json.loads(data)} for at, data in rows]
    devices: dict[str, Any] = {}
    for connect in connects:
        devices[connect["device"]] = connect
    return {"devices": dict(sorted(devices.items())), "connects": connects[::-1][:last]}
