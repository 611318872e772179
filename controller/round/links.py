"""The device links as the round sees them: which devices answer, who they are, and what a lost one holds.

Owns each device's link as the table knows it (answering or not, the reason,
its last connect's identity), the devices a round cannot do without (the shoe
and the sensors: a failing sign never stops a round, it only closes Super 6)
and the hold a lost one puts on the round. Each connect's identity
(manufacturer, model, serial, firmware and its checksum) is journaled (a
``device_identity`` table event) and shown to a technician in the snapshot.
A device whose first report after a connect is awaited (the sensors' reading
of every spot, ``FIRST_REPORT``) answers but is not yet believed: betting does
not close on the felt they have not read since they (re)connected.
What a device that comes back is told again (a restarted sensor controller its
locks and lamps, a shoe its shuffle and status, a sign the posted jackpot
values) is asked of the felt, dealing and the jackpot desk by the model
(controller/round/table.py), which calls ``came_online`` first.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from controller.round.clerk import Clerk, Holds
from controller.rules.words import NOT_CONNECTED_YET, device_says

REQUIRED_DEVICES = ("shoe", "sensors")          # the sign failing never stops a round
# what a held round tells the dealer to do about a device that stopped answering
OFFLINE_ADVICE = {"shoe": "The shoe is not answering: check its power and cable, or call a technician",
                  "sensors": "Call a technician: the bet sensors are not answering"}


# what a device must report after each connect before the table relies on it, in the dealer's words,
# and what a round held meanwhile tells the dealer (a fold touched on the felt as it lay before the
# link was lost would refuse the Play chips put out while it was down)
FIRST_REPORT = {"sensors": "reading every spot"}
AWAITING_ADVICE = {"sensors": "The bet sensors are back and reading every spot (asked again until they do); "
                              "if it lasts, call a technician"}


class DeviceLinks:
    def __init__(self, clerk: Clerk, holds: Holds, roles: Iterable[str]) -> None:
        self._clerk = clerk
        self._holds = holds
        self._online = {role: False for role in roles}
        self._detail = {role: NOT_CONNECTED_YET for role in roles}
        self._identity: dict[str, dict[str, Any]] = {}     # role -> its last connect's Identity
        self._awaited = set(FIRST_REPORT) & set(roles)      # its first report since it connected not yet in
        self.changes = 0                    # what ``view`` shows changed so many times (the snapshot's key)

    def came_online(self, role: str, info: dict[str, Any]) -> None:
        clerk = self._clerk
        self.changes += 1
        self._online[role] = True
        self._detail[role] = "online"
        if role in FIRST_REPORT:
            self._awaited.add(role)
            self._detail[role] = f"online, {FIRST_REPORT[role]}"
        if info.get("identity"):
            # who answered, journaled at each connect: a swapped device or new firmware is on record
            identity = {"device": role, **info["identity"], "protocol_version": info.get("protocol_version"),
                        "capabilities_used": info.get("capabilities_used", [])}
            clerk.journal.table_event("device_identity", identity)
            self._identity[role] = identity
        else:
            # a device with no Identity (the Alpha sign): its coming back is on record all the same
            # (the pit's page reads each device's state from these and the device_offline alerts)
            clerk.journal.table_event("device_online", {"device": role})
        clerk.log.info("device.online", device=role, state=clerk.state, round=clerk.round_id)
        self._holds.set(role, None)
        if role in FIRST_REPORT:            # the round goes on once the device has reported (``reported``)
            self._holds.set(role, AWAITING_ADVICE[role])

    def reported(self, role: str) -> None:
        """The device's first report since it connected is in (the sensors' reading of every spot)."""
        if role in self._awaited:
            self._awaited.discard(role)
            self.changes += 1
            if self._online.get(role):
                self._detail[role] = "online"
                self._holds.set(role, None)
            self._clerk.log.info("device.reported", device=role, state=self._clerk.state, round=self._clerk.round_id)

    def awaiting(self, role: str) -> str | None:
        """What the device has yet to report since it connected, in the dealer's words; None: nothing."""
        return FIRST_REPORT[role] if role in self._awaited else None

    def went_offline(self, role: str, reason: str) -> None:
        """Told at once; the hold it puts on the round comes with ``hold_while_away``, once the
        parts have reacted (a sign lost closes Super 6 first)."""
        self._online[role] = False
        self.changes += 1
        if role in FIRST_REPORT:
            self._awaited.add(role)
        self._detail[role] = reason
        self._clerk.alert("device_offline", device_says(role, f"not answering: {reason}"))

    def hold_while_away(self, role: str) -> None:
        if role in REQUIRED_DEVICES:
            self._holds.set(role, OFFLINE_ADVICE[role])

    def answering(self, role: str) -> bool:
        return bool(self._online.get(role))

    def required_lost(self) -> list[str]:
        """The devices a round needs that do not answer, in the order the dealer is told them."""
        return [r for r in REQUIRED_DEVICES if not self._online.get(r)]

    def view(self) -> dict[str, dict[str, Any]]:
        """Each device for the snapshot: online, the reason when not, its indicator, its identity."""
        return {role: {"online": online, "detail": self._detail[role], "status": self._status(role),
                       "identity": self._identity.get(role)} for role, online in self._online.items()}

    def _status(self, role: str) -> str:
        """One word for a device's indicator: online, reading (the sensors' first reading of every spot
        since they connected not yet in: No more bets waits for it), offline, jammed or door open."""
        if not self._online[role]:
            return "offline"
        if role in self._awaited:
            return "reading"
        if role == "shoe" and "shoe-jam" in self._holds:
            return "jammed"
        if role == "shoe" and "shoe-door" in self._holds:
            return "door open"
        return "online"
