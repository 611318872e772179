"""A table's link to the floor as its configuration gives it (no database code: a table without
a ``[floor]`` section never imports psycopg).

Owns ``FloorSettings`` (the ``[floor]`` section, checked by controller/app/floorconfig.py) and
how a table's role is named by default.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class FloorSettings:
    dsn: str                            # libpq connection string or URL, without the password
    table_id: str                       # this table's id on the floor
    user: str                           # its role
    password: str | None = None         # tests and the demo; a table reads ``password_file``
    password_file: Path | None = None   # None (and no password): libpq's own means (.pgpass, a certificate)
    poll: float = 0.5                   # seconds between looks at the journal when caught up
    batch: int = 500                    # facts per transaction
    connect_timeout: int = 5            # seconds
    drain: float = 5.0                  # seconds a stopping table gives the forwarder to catch up
    heartbeat: float = 2.0              # seconds of quiet after which the link is checked (SELECT 1)
    jackpot_group: str | None = None    # the linked jackpot's group: Super 6 closes while the link is down

    def secret(self) -> str | None:
        """The role's password: given, or read (afresh: a rotated file is picked up) from its file."""
        if self.password is not None:
            return self.password
        if self.password_file is not None:
            return self.password_file.read_text(encoding="utf-8").strip()
        return None


def default_role(table_id: str) -> str:
    """A table's role name from its id: ``table_`` and the id in lower case, other signs as ``_``."""
    return "table_" + re.sub(r"[^a-z0-9_]", "_", table_id.lower())[:56]
