"""The configuration's ``[floor]`` section: where this table's journal is forwarded (optional).

Owns the section's keys, their defaults and refusals (each naming its key and line, kept with
the file's other problems by controller/app/config.py). With no ``[floor]`` the table runs
alone, as it always has.

  [floor]  dsn            libpq connection string or URL of the floor database, WITHOUT a password
           table          this table's id on the floor (default: [table] id)
           user           its database role (default: table_<id in lower case>)
           password_file  a file holding the role's password (else libpq's own: ~/.pgpass,
                          PGPASSFILE, a client certificate in the dsn)
           poll           seconds between looks at the journal when caught up (0.05-60, default 0.5)
           batch          records per transaction (1-5000, default 500)
           drain          seconds a stopping table gives the forwarder to catch up (0-60, default 5)
           heartbeat      seconds of quiet after which the link is checked (0.2-60, default 2)
           jackpot_group  the linked Super 6 jackpot's group this table is in: its values are the
                          floor's (taken between rounds), its hits are claimed and paid on the
                          floor's split (docs/floor-jackpot.md), and its Super 6 is closed while the floor
                          cannot be reached (and until it first is)
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from controller.floor.settings import FloorSettings, default_role
from controller.rules.tomlcheck import TomlChecker

KEYS = {"dsn", "table", "user", "password_file", "poll", "batch", "drain", "heartbeat", "jackpot_group"}
ROLE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
PASSWORD_IN_DSN = re.compile(r"(^|\s)password\s*=|://[^/@\s]*:[^/@\s]*@", re.IGNORECASE)


def parse_floor(c: TomlChecker, doc: dict[str, Any], table_id: str, base: Path | None) -> FloorSettings | None:
    floor = c.section(doc, "floor", KEYS, required=False)
    if not floor:
        return None
    dsn, table, user, password_file = "", table_id, "", None
    poll, batch, drain, heartbeat, group = 0.5, 500, 5.0, 2.0, None
    with c.part():
        dsn = c.text(floor.get("dsn", ""), "floor.dsn")
        if PASSWORD_IN_DSN.search(dsn):
            raise c.fail("floor.dsn", "must not hold the password (the configuration is not secret): "
                         "give floor.password_file, or use ~/.pgpass or a client certificate")
    with c.part():
        table = c.text(floor.get("table", table_id or "-"), "floor.table", longest=32)
    with c.part():
        user = c.text(floor.get("user", default_role(table)), "floor.user", longest=63)
        if not ROLE.fullmatch(user):
            raise c.fail("floor.user", f"{user!r} is not a role name (lower-case letters, digits and _)")
    if "password_file" in floor:
        with c.part():
            path = Path(c.text(floor["password_file"], "floor.password_file"))
            password_file = path if path.is_absolute() or base is None else base / path
    with c.part():
        poll = _number(c, floor.get("poll", 0.5), "floor.poll", 0.05, 60.0)
    with c.part():
        batch = int(_number(c, floor.get("batch", 500), "floor.batch", 1, 5000, whole=True))
    with c.part():
        drain = _number(c, floor.get("drain", 5.0), "floor.drain", 0.0, 60.0)
    with c.part():
        heartbeat = _number(c, floor.get("heartbeat", 2.0), "floor.heartbeat", 0.2, 60.0)
    if "jackpot_group" in floor:
        with c.part():
            group = c.text(floor["jackpot_group"], "floor.jackpot_group", longest=32)
    return FloorSettings(dsn=dsn, table_id=table, user=user, password_file=password_file, poll=poll,
                         batch=batch, drain=drain, heartbeat=heartbeat, jackpot_group=group)


def _number(c: TomlChecker, value: Any, key: str, least: float, most: float, *, whole: bool = False) -> float:
    kinds = (int,) if whole else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise c.fail(key, f"must be a {'whole ' if whole else ''}number from {least} to {most}, not {value!r}")
    if not least <= value <= most:
        raise c.fail(key, f"must be from {least} to {most}, not {value}")
    return float(value)
