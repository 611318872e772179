"""Simulated devices put where the hardware would be, for a controller about to run.

Owns the only wiring between the simulators and a controller: it starts
nothing itself, but builds the simulated table for a configuration, gives
back that configuration with every device's URL pointing at its simulated
device and every framed device paired with its simulated device's key (and,
for a shoe on the simulated USB bus, the pyusb backend the transport must
use), and attaches the scripted dealer to an engine's snapshots. The
controller reaches the devices only through those URLs, as it reaches real
ones; ``controller/app/run.py`` is the one controller module that imports
this one, and only when simulation is asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from controller.rules.cards import parse_card
from controller.rules.paytable import Preset
from simulators.apart import ApartDealer, SimulatedTableApart
from simulators.dealer import ScriptedDealer, Submit
from simulators.table import SimError, SimOptions, SimulatedTable


class Configurable(Protocol):
    """What the harness needs of a table configuration: positions, preset, devices by role."""
    @property
    def positions(self) -> int: ...
    @property
    def preset(self) -> Preset: ...
    @property
    def devices(self) -> dict[str, Any]: ...

    def with_devices(self, devices: dict[str, Any]) -> Any: ...


# Super 6's MINOR on sheet 004 for position 1: Ah Kh Qh, and the dealer Jh Th 2c (a five-card royal flush)
ROYAL_FOR_POSITION_1 = [parse_card(c) for c in ("Ah", "Kh", "Qh", "Jh", "Th", "2c")]


def simulate(config: Configurable, *, transport: str = "pty", shoe_usb: bool = False, seed: int = 1,
             strategy: str = "optimal", royal_at: tuple[int, ...] = (),
             apart: bool = False) -> tuple[SimulatedTable | SimulatedTableApart, Any]:
    """The simulated table for ``config`` (not started) and ``config`` pointed at it; ``royal_at``:
    the players' rounds dealt a royal flush for position 1 on purpose (simulators/players.py);
    ``apart``: devices, players and dealer in a process of their own (simulators/apart.py)."""
    # the simulated devices' heartbeat keeps well inside the drivers' silence timeout
    beat = min(1.0, config.devices["shoe"].settings.get("silence_after", 3.0) / 4)
    options = SimOptions(transport=transport, shoe_usb=shoe_usb, seed=seed, positions=config.positions,
                         strategy=strategy, heartbeat_every=beat,
                         sign_address=config.devices["sign"].settings.get("address", "01"),
                         rigged={r: ROYAL_FOR_POSITION_1 for r in royal_at} or None)
    if apart and shoe_usb:
        raise SimError("the simulated USB shoe lives in the controller's process (pyusb's backend): "
                       "it cannot run apart")
    sim = SimulatedTableApart(options, config.preset) if apart else SimulatedTable(options, preset=config.preset)
    urls = sim.urls()
    line = sim.line_settings()
    return sim, config.with_devices({role: replace(dev, url=urls[role], transport={**dev.transport, **line[role]},
                                                   settings=_paired(dev, sim.key_files.get(role)))
                                     for role, dev in config.devices.items()})


def _paired(device: Any, key_file: str | None) -> dict[str, Any]:
    """A framed device's settings with the simulated device's key file: authenticated links by default."""
    if key_file is None or not str(device.driver).endswith("-framed"):
        return dict(device.settings)
    return {**device.settings, "key_file": key_file}


def scripted_dealer(sim: SimulatedTable | SimulatedTableApart, submit: Submit,
                    observers: list[Callable[[dict[str, Any]], None]],
                    rounds: int | None = None) -> ScriptedDealer | ApartDealer:
    """A scripted dealer working the simulated players' table through ``submit``, watching the
    snapshots given to ``observers`` (in the devices' process when they run apart)."""
    if isinstance(sim, SimulatedTableApart):
        return sim.dealer(submit, observers, rounds)
    dealer = ScriptedDealer(submit, sim.players, rounds=rounds)
    observers.append(dealer.observe)
    return dealer
