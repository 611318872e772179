"""The device links as the round sees them: which devices it needs, and what one that returns is told.

Owns the table's side of a device coming online or going offline: the
devices a round cannot do without (the shoe and the sensors: a failing sign
never stops a round, it only closes Super 6), the hold a lost one puts on
the round, and what a device that comes back is told again (a restarted
sensor controller its locks, a shoe its shuffle, a sign the journal's posted
jackpot values). A shoe that comes back is always asked for its status: a jam
or an open door may have come and gone while it was away. Each connect's
identity (manufacturer, model, serial, firmware and its checksum) is journaled
(a ``device_identity`` table event) and shown to a technician in the snapshot.
"""

from __future__ import annotations

from typing import Any

from controller.round.dealing import DealingDuties
from controller.round.floor_desk import LinkedJackpotDesk
from controller.round.ports import AskShoeStatus, CheckDeck, SetLamp, Shuffle
from controller.rules.spots import Spot
from controller.rules.words import device_says

REQUIRED_DEVICES = ("shoe", "sensors")          # the sign failing never stops a round
# what a held round tells the dealer to do about a device that stopped answering
OFFLINE_ADVICE = {"shoe": "The shoe is not answering: check its power and cable, or call a technician",
                  "sensors": "Call a technician: the bet sensors are not answering"}


class DeviceLinks(DealingDuties, LinkedJackpotDesk):
    def on_online(self, role: str, info: dict[str, Any]) -> None:
        self.online[role] = True
        self.device_detail[role] = "online"
        if info.get("identity"):
            # who answered, journaled at each connect: a swapped device or new firmware is on record
            identity = {"device": role, **info["identity"], "protocol_version": info.get("protocol_version"),
                        "capabilities_used": info.get("capabilities_used", [])}
            self.journal.table_event("device_identity", identity)
            self.device_identity[role] = identity
        else:
            # a device with no Identity (the Alpha sign): its coming back is on record all the same
            # (the pit's page reads each device's state from these and the device_offline alerts)
            self.journal.table_event("device_online", {"device": role})
        self.log.info("device.online", device=role, state=self.state, round=self.round.id if self.round else None)
        self.set_hold(role, None)
        if role == "sensors":
            # A Hello clears the sensors' locks and lamps (docs/protocols/sensors.md): all told again.
            self.locks = None
            if self.round is not None:
                if self.state == "betting":
                    self.lock_for_betting()
                elif self.state in ("dealing", "decisions", "held"):
                    self.lock_for_decisions()
                else:
                    self.lock_all()
            for (position, spot), lamp in sorted(self.lamps.items()):
                self.emit(SetLamp(position, Spot(spot), lamp))
        if role == "shoe":
            self.emit(AskShoeStatus())          # a reconnect: its door and jam flags set or lift the holds
            if self.state == "betting" and self.round and not self.round.shuffled:
                self.emit(Shuffle(self.round.deck))
            elif self.state in ("betting", "closed") and self.round and not self.round.deck_checked:
                self.emit(CheckDeck())          # the check asked before the link was lost: ask again
        if role == "sign":
            self.show_jackpots_on_sign()              # rewritten from the journal's posted values

    def on_offline(self, role: str, reason: str) -> None:
        self.online[role] = False
        self.device_detail[role] = reason
        self.alert("device_offline", device_says(role, f"not answering: {reason}"))
        if role == "sign":
            self.on_sign_failed(f"sign offline: {reason}")
        if role == "sensors":
            self.locks = None                       # commands meanwhile fail: what they hold is not known
        if role in REQUIRED_DEVICES:
            self.set_hold(role, OFFLINE_ADVICE[role])
