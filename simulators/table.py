"""The whole table without hardware: shoe, sensors and sign models where the hardware would be.

Owns starting the three device models on their ports (ptys by default, TCP
sockets on request, the shoe optionally as a USB gadget), the scripted
players, the controller configuration that points at them, and the fault
commands a test or the ``table-sim`` command line may give while running.
The controller reaches these devices only through the URLs in that
configuration (and, for USB, the simulated bus given to pyusb as its
backend), exactly as it reaches real ones.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from controller.rules.paytable import Preset, load_preset
from simulators.devices.ports import PtyPort, TcpPort
from simulators.devices.sensors import SimulatedSensors
from simulators.devices.shoe import SimulatedShoe
from simulators.devices.sign import SimulatedSign
from simulators.devices.usb import UsbPort
from simulators.players import Players

PORTS = {"pty": PtyPort, "tcp": TcpPort}


@dataclass
class SimOptions:
    transport: str = "pty"          # pty | tcp
    shoe_usb: bool = False
    seed: int = 1
    positions: int = 6
    preset: str = "sheet-004"
    strategy: str = "optimal"
    script: list | None = None
    heartbeat_every: float = 1.0


class SimulatedTable:
    def __init__(self, options: SimOptions | None = None, preset: Preset | None = None):
        self.options = o = options or SimOptions()
        self.preset = preset or load_preset(o.preset)
        port = PORTS[o.transport]
        self.shoe_port = UsbPort() if o.shoe_usb else port()
        self.shoe = SimulatedShoe(self.shoe_port, seed=o.seed, decks=self.preset.decks,
                                  heartbeat_every=o.heartbeat_every)
        self.sensors = SimulatedSensors(port(), positions=o.positions, heartbeat_every=o.heartbeat_every)
        self.sign = SimulatedSign(port())
        self.players = Players(self.preset, self.sensors, self.shoe, positions=o.positions,
                               seed=o.seed + 1, strategy=o.strategy, script=o.script)

    @property
    def usb_backend(self):
        return self.shoe_port.backend if isinstance(self.shoe_port, UsbPort) else None

    def start(self) -> SimulatedTable:
        for device in (self.shoe, self.sensors, self.sign):
            device.start()
        return self

    def stop(self) -> None:
        for device in (self.shoe, self.sensors, self.sign):
            device.stop()

    def urls(self) -> dict[str, str]:
        return {"shoe": self.shoe.port.url, "sensors": self.sensors.port.url, "sign": self.sign.port.url}

    def config_toml(self, table_id: str = "SIM-1", data_dir: str = "table-data", log_format: str = "console",
                    heartbeat_every: float | None = None) -> str:
        urls = self.urls()
        beat = "" if heartbeat_every is None else \
            f"heartbeat_every = {heartbeat_every}\nsilence_after = {heartbeat_every * 4}\n"
        jackpots = "[jackpot]\nmega = 10000000\nmajor = 2500000\nminor = 250000\n\n" if self.preset.super6 else ""
        return (f'[table]\nid = "{table_id}"\npreset = "{self.preset.name}"\n'
                f"positions = {self.options.positions}\n\n{jackpots}"
                f'[data]\ndir = "{data_dir}"\n\n[log]\nformat = "{log_format}"\n\n'
                f'[devices.shoe]\ndriver = "shoe-framed"\nurl = "{urls["shoe"]}"\n{beat}\n'
                f'[devices.sensors]\ndriver = "sensors-framed"\nurl = "{urls["sensors"]}"\n{beat}\n'
                f'[devices.sign]\ndriver = "sign-alpha"\nurl = "{urls["sign"]}"\n')

    # --- faults on demand -------------------------------------------------------------

    FAULTS = {
        "shoe hand-size N": "the next hand has N cards",
        "shoe repeat-card": "the next hand reads one card twice",
        "shoe foreign-card": "the next card comes from the other deck (the count still reads 52)",
        "shoe unreadable-card": "the next card cannot be read",
        "shoe jam [CODE]": "the shoe jams", "shoe clear-jam": "the jam is cleared",
        "shoe door open|closed": "the shoe's door",
        "DEVICE silent on|off": "the device stops answering / answers again",
        "DEVICE corrupt [N]": "the next N frames sent are corrupted",
        "DEVICE delay SECONDS": "replies are held back (0 to stop)",
        "DEVICE drop": "the link is cut and restored (TCP: connection closed; USB: bounced)",
        "shoe unplug | shoe plug": "the USB cable (USB shoe only)",
        "sensors place POS SPOT CENTS": "chips on a spot (also after No more bets: past posting)",
        "sensors remove POS SPOT": "chips taken off a spot",
        "sensors flicker POS SPOT": "a sensor blinks",
        "sign nak [N]": "the sign refuses the next N packets",
        "players pause|resume": "scripted players stop / start acting",
    }

    def command(self, line: str) -> str:
        """Apply one fault command; returns what was done, raises ValueError naming the problem."""
        words = shlex.split(line)
        if not words:
            raise ValueError("empty command")
        target, *rest = words
        devices = {"shoe": self.shoe, "sensors": self.sensors, "sign": self.sign}
        if target == "players" and rest in (["pause"], ["resume"]):
            self.players.paused = rest[0] == "pause"
            return f"players {rest[0]}d"
        if target not in devices or not rest:
            raise ValueError(f"unknown command {line!r}; commands: " + "; ".join(self.FAULTS))
        device, verb, args = devices[target], rest[0], rest[1:]
        try:
            return self._apply(target, device, verb, args)
        except (IndexError, KeyError) as err:
            raise ValueError(f"{line!r}: missing or bad argument ({err})") from None

    def _apply(self, target, device, verb, args) -> str:
        if verb == "silent":
            device.silent = args[0] == "on"
        elif verb == "corrupt" and target != "sign":
            device.corrupt_next = int(args[0]) if args else 1
        elif verb == "delay" and target != "sign":
            device.delay = float(args[0])
        elif verb == "drop":
            if not hasattr(device.port, "drop"):
                raise ValueError(f"{target} is on a pty; drop needs --transport tcp or a USB shoe")
            device.port.drop()
        elif target == "shoe":
            self._shoe(device, verb, args)
        elif target == "sensors":
            self._sensors(device, verb, args)
        elif target == "sign" and verb == "nak":
            device.nak_next = int(args[0]) if args else 1
        else:
            raise ValueError(f"{target} has no fault {verb!r}")
        return f"{target} {verb} {' '.join(args)}".strip()

    def _shoe(self, shoe, verb, args) -> None:
        if verb == "hand-size":
            shoe.next_hand_size = int(args[0])
        elif verb == "repeat-card":
            shoe.repeat_next_card = True
        elif verb == "foreign-card":
            shoe.foreign_next_card = True
        elif verb == "unreadable-card":
            shoe.unreadable_next_card = True
        elif verb == "jam":
            shoe.jam(int(args[0]) if args else 1)
        elif verb == "clear-jam":
            shoe.clear_jam()
        elif verb == "door":
            shoe.set_door(args[0] == "open")
        elif verb in ("unplug", "plug") and isinstance(shoe.port, UsbPort):
            getattr(shoe.port, verb)()
        else:
            raise ValueError(f"shoe has no fault {verb!r}")

    def _sensors(self, sensors, verb, args) -> None:
        if verb == "place":
            sensors.place(int(args[0]), args[1], int(args[2]))
        elif verb == "remove":
            sensors.remove(int(args[0]), args[1])
        elif verb == "flicker":
            sensors.flicker(int(args[0]), args[1])
        else:
            raise ValueError(f"sensors have no fault {verb!r}")
