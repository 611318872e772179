"""The whole table without hardware: shoe, sensors and sign models where the hardware would be.

Owns starting the three device models on their ports (ptys by default, TCP
sockets on request, on free ports or on ``base_port`` and the two after it,
the shoe optionally as a USB gadget), the scripted players, the controller
configuration that points at them, and the fault commands a test or the
``table-sim`` command line may give while running. A command is checked word
by word before anything changes; a bad one raises ``SimError`` naming the bad
word and what is allowed. A port that cannot be opened is a ``SimError`` too,
and leaves no other port open.
The controller reaches these devices only through the URLs in that
configuration (and, for USB, the simulated bus given to pyusb as its
backend), exactly as it reaches real ones.
"""

from __future__ import annotations

import errno
import json
import math
import re
import shlex
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.rules.cards import CardError, parse_cards
from controller.rules.paytable import Preset, load_preset
from drivers.wire import sensor_protocol as sensor_proto
from drivers.wire.auth import new_key
from simulators.devices.ports import PtyPort, TcpPort
from simulators.devices.sensors import SimulatedSensors
from simulators.devices.shoe import SimulatedShoe
from simulators.devices.sign import SimulatedSign
from simulators.devices.usb import UsbPort
from simulators.players import Players

PORTS = {"pty": PtyPort, "tcp": TcpPort}
ROLES = ("shoe", "sensors", "sign")          # in this order on TCP ports base_port, +1, +2
HIGHEST_BASE_PORT = 65535 - (len(ROLES) - 1)


class SimError(ValueError):
    """A fault command or a set-up refused, in words: what was wrong and what is allowed."""


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
    base_port: int | None = None    # TCP: shoe on this port, sensors the next, sign the one after
    sign_address: str = "01"        # the sign's own address, as set in its set-up menu
    authenticate: bool = True       # pair the framed devices with fresh keys (docs/protocols/framing.md)
    rigged: dict[int, list[int]] | None = None     # players' round -> cards dealt first (players.py)


class SimulatedTable:
    def __init__(self, options: SimOptions | None = None, preset: Preset | None = None, *,
                 ports: dict[str, Any] | None = None, clocks: dict[str, Any] | None = None):
        """``ports`` and ``clocks`` (``clock``, ``wall``): the deterministic simulation's in-memory
        ports and virtual clocks (simulators/sim), which pairs the devices itself; else ptys or sockets."""
        self.options = o = options or SimOptions()
        self.preset = preset or load_preset(o.preset)
        ports = ports or _open_ports(o)
        self.key_files = _pair(("shoe", "sensors")) if o.authenticate and clocks is None else {}
        keys = {role: bytes.fromhex(Path(path).read_text()) for role, path in self.key_files.items()}
        clocks = clocks or {}
        self.shoe_port = ports["shoe"]
        self.shoe = SimulatedShoe(self.shoe_port, seed=o.seed, decks=self.preset.decks,
                                  heartbeat_every=o.heartbeat_every, key=keys.get("shoe"), **clocks)
        self.sensors = SimulatedSensors(ports["sensors"], positions=o.positions, heartbeat_every=o.heartbeat_every,
                                        key=keys.get("sensors"), **clocks)
        self.sign = SimulatedSign(ports["sign"], address=o.sign_address, **clocks)
        self.players = Players(self.preset, self.sensors, self.shoe, positions=o.positions,
                               seed=o.seed + 1, strategy=o.strategy, script=o.script, rigged=o.rigged)

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
        if self.key_files:
            shutil.rmtree(Path(next(iter(self.key_files.values()))).parent, ignore_errors=True)

    def line_settings(self) -> dict[str, dict[str, Any]]:
        """Serial settings a controller must use for each device here: a pty's own framing
        (``PtyPort.LINE``), nothing for a socket or the USB bus."""
        return {role: dict(PtyPort.LINE) if isinstance(device.port, PtyPort) else {}
                for role, device in (("shoe", self.shoe), ("sensors", self.sensors), ("sign", self.sign))}

    def urls(self) -> dict[str, str]:
        return {"shoe": self.shoe.port.url, "sensors": self.sensors.port.url, "sign": self.sign.port.url}

    def config_toml(self, table_id: str = "SIM-1", data_dir: str = "table-data", log_format: str = "console",
                    heartbeat_every: float | None = None) -> str:
        urls = self.urls()
        beat = "" if heartbeat_every is None else \
            f"heartbeat_every = {heartbeat_every}\nsilence_after = {heartbeat_every * 4}\n"
        keys = {role: f'key_file = "{path}"\n' for role, path in self.key_files.items()}
        jackpots = "[jackpot]\nmega = 10000000\nmajor = 2500000\nminor = 250000\n\n" if self.preset.super6 else ""
        # a TOML basic string is a JSON string: a folder with a quote or a backslash made the file no TOML
        return (f'[table]\nid = {json.dumps(table_id)}\npreset = "{self.preset.name}"\n'
                f"positions = {self.options.positions}\n\n{jackpots}"
                f'[data]\ndir = {json.dumps(data_dir)}\n\n[log]\nformat = "{log_format}"\n\n'
                f'[devices.shoe]\ndriver = "shoe-framed"\nurl = "{urls["shoe"]}"\n{keys.get("shoe", "")}{beat}\n'
                f'[devices.sensors]\ndriver = "sensors-framed"\nurl = "{urls["sensors"]}"\n'
                f'{keys.get("sensors", "")}{beat}\n'
                f'[devices.sign]\ndriver = "sign-alpha"\nurl = "{urls["sign"]}"\n'
                f'address = "{self.sign.address}"\n' + "".join(
                    f"{key} = {value!r}\n".replace("'", '"') for key, value in self.line_settings()["sign"].items()))

    # --- faults on demand -------------------------------------------------------------

    # The commands and what they do (``help``, and table-sim's first line): a contract, see docs/cli.md.
    FAULTS = {
        "shoe hand-size N": "the next hand has N cards (1-9)",
        "shoe repeat-card": "the next hand reads one card twice",
        "shoe foreign-card": "the next card comes from the other deck (the count still reads 52)",
        "shoe unreadable-card": "the next card cannot be read",
        "shoe jam [CODE]": "the shoe jams (CODE 1-255, default 1)", "shoe clear-jam": "the jam is cleared",
        "shoe door open|closed": "the shoe's door",
        "shoe stack CARD,CARD,...": "the next shuffle deals these cards first, in order (hands of three in "
                                    "dealing order: the active positions, then the dealer), e.g. a MEGA",
        "DEVICE silent on|off": "the device stops answering / answers again",
        "DEVICE corrupt [N]": "the next N frames sent are corrupted (shoe, sensors; N 1-1000, default 1)",
        "DEVICE delay SECONDS": "replies are held back (shoe, sensors; 0-60 s, 0 to stop)",
        "DEVICE drop": "the link is cut and restored (TCP: connection closed; USB: bounced)",
        "shoe unplug | shoe plug": "the USB cable (USB shoe only)",
        "sensors place POS SPOT CENTS": "chips on a spot (also after No more bets: past posting)",
        "sensors remove POS SPOT": "chips taken off a spot",
        "sensors flicker POS SPOT": "a sensor blinks",
        "sensors fault POS SPOT [CODE]": "a spot's sensor reports a fault (CODE 1 blocked, 2 no reading, 3 hardware; "
                                         "default 1) until it reads again (place or remove)",
        "sign nak [N]": "the sign refuses the next N packets (N 1-1000, default 1)",
        "players pause|resume": "scripted players stop / start acting",
    }

    def command(self, line: str) -> str:
        """Apply one fault command; returns what was done. A bad command raises ``SimError`` naming
        the bad word and what is allowed, and changes nothing: every word is checked first."""
        try:
            words = shlex.split(line)
        except ValueError as err:
            raise SimError(f"{line.strip()!r}: cannot be read as words ({err})") from None
        if not words:
            raise SimError("empty command ('help' lists the commands)")
        target, *rest = words
        if target == "players":
            apply, done = self._players(rest)
        elif target in ("shoe", "sensors", "sign"):
            faults = self._faults(target)
            if not rest:
                raise SimError(f"{target}: which fault? ({', '.join(faults)})")
            verb, args = rest[0], rest[1:]
            if verb not in faults:
                raise SimError(f"{target} {'have' if target == 'sensors' else 'has'} no fault {verb!r} "
                               f"(faults: {', '.join(faults)})")
            specs, make = faults[verb]
            values = _arguments(f"{target} {verb}", specs, args)
            apply, done = make(*values), " ".join(words)
        else:
            raise SimError(f"unknown command {target!r}: commands begin with shoe, sensors, sign or players "
                           "('help' lists them)")
        apply()
        return done

    def _players(self, rest: list[str]) -> tuple[Callable[[], None], str]:
        if rest not in (["pause"], ["resume"]):
            said = f"players {' '.join(rest)!r}" if rest else "players"
            raise SimError(f"{said}: say players pause or players resume")
        paused = rest[0] == "pause"

        def apply() -> None:
            self.players.paused = paused
        return apply, f"players {rest[0]}d"

    def _faults(self, target: str) -> dict[str, tuple[tuple[_Arg, ...], Callable[..., Callable[[], None]]]]:
        """Each fault of ``target``: its arguments, and what makes the change from their values."""
        device: Any = {"shoe": self.shoe, "sensors": self.sensors, "sign": self.sign}[target]

        def setting(name: str) -> Callable[[Any], Callable[[], None]]:
            return lambda value: lambda: setattr(device, name, value)

        def drop() -> Callable[[], None]:
            if not hasattr(device.port, "drop"):
                raise SimError(f"{target} drop: the {target} {'are' if target == 'sensors' else 'is'} on a pty; "
                               "drop needs --transport tcp (or a USB shoe)")
            return device.port.drop

        faults: dict[str, tuple[tuple[_Arg, ...], Callable[..., Callable[[], None]]]] = {
            "silent": ((_choice("on|off", ("on", "off")),), lambda on: setting("silent")(on == "on")),
            "drop": ((), drop),
        }
        if target != "sign":
            faults["corrupt"] = ((_whole("N", 1, 1000, default=1),), setting("corrupt_next"))
            faults["delay"] = ((_seconds("SECONDS", 0, 60),), setting("delay"))
        if target == "shoe":
            shoe = self.shoe
            faults.update({
                "hand-size": ((_whole("N", 1, 9),), setting("next_hand_size")),
                "repeat-card": ((), lambda: setting("repeat_next_card")(True)),
                "foreign-card": ((), lambda: setting("foreign_next_card")(True)),
                "unreadable-card": ((), lambda: setting("unreadable_next_card")(True)),
                "jam": ((_whole("CODE", 1, 255, default=1),), lambda code: lambda: shoe.jam(code)),
                "clear-jam": ((), lambda: shoe.clear_jam),
                "stack": ((_cards("CARD,CARD,...", 52),), lambda cards: setting("planned")(list(cards))),
                "door": ((_choice("open|closed", ("open", "closed")),),
                         lambda state: lambda: shoe.set_door(state == "open")),
                "unplug": ((), lambda: self._cable("unplug")),
                "plug": ((), lambda: self._cable("plug")),
            })
        elif target == "sensors":
            sensors = self.sensors
            position = _whole("POS", 1, self.options.positions)
            spot = _choice("SPOT", sensor_proto.SPOTS)
            faults.update({
                "place": ((position, spot, _whole("CENTS", 1, sensor_proto.UNKNOWN_VALUE - 1)),
                          lambda pos, name, cents: lambda: sensors.place(pos, name, cents)),
                "remove": ((position, spot), lambda pos, name: lambda: sensors.remove(pos, name)),
                "flicker": ((position, spot), lambda pos, name: lambda: sensors.flicker(pos, name)),
                "fault": ((position, spot, _whole("CODE", 1, 255, default=1)),
                          lambda pos, name, code: lambda: sensors.fault(pos, name, code)),
            })
        else:
            faults["nak"] = ((_whole("N", 1, 1000, default=1),), setting("nak_next"))
        return faults

    def _cable(self, verb: str) -> Callable[[], None]:
        port = self.shoe.port
        if not isinstance(port, UsbPort):
            raise SimError(f"shoe {verb}: the shoe is not on USB; the cable is for a USB shoe "
                           "(table-controller run --simulate --shoe-usb)")
        return port.unplug if verb == "unplug" else port.plug


# --- ports -----------------------------------------------------------------------------------

def _pair(roles: Sequence[str]) -> dict[str, str]:
    """A fresh pairing key per framed device, each in its own key file (mode 0600) in a folder of
    its own, as a technician's pairing would leave them: the controller's configuration names them."""
    folder = Path(tempfile.mkdtemp(prefix="table-sim-keys-"))
    files = {}
    for role in roles:
        path = folder / f"{role}.key"
        path.touch(mode=0o600)
        path.write_text(new_key().hex() + "\n")
        files[role] = str(path)
    return files


def _open_ports(o: SimOptions) -> dict[str, Any]:
    """The three devices' ports; on a refusal none is left open."""
    if o.transport not in PORTS:
        raise SimError(f"transport {o.transport!r}: choose {' or '.join(PORTS)}")
    if o.base_port is not None:
        if o.transport != "tcp":
            raise SimError(f"--base-port {o.base_port}: TCP ports are chosen only with --transport tcp")
        if not 1 <= o.base_port <= HIGHEST_BASE_PORT:
            raise SimError(f"--base-port {o.base_port}: must be from 1 to {HIGHEST_BASE_PORT} (the devices "
                           f"take it and the {len(ROLES) - 1} ports after it)")
    opened: dict[str, Any] = {}
    try:
        for offset, role in enumerate(ROLES):
            if role == "shoe" and o.shoe_usb:
                opened[role] = UsbPort()
            elif o.transport == "tcp":
                opened[role] = _tcp_port(role, None if o.base_port is None else o.base_port + offset)
            else:
                opened[role] = PtyPort()
    except BaseException:
        for port in opened.values():
            port.close()
        raise
    return opened


def _tcp_port(role: str, number: int | None) -> TcpPort:
    try:
        return TcpPort(number or 0)
    except OSError as err:
        why = err.strerror or str(err)
        if err.errno == errno.EADDRINUSE:
            why = "it is taken; choose another --base-port"
        elif err.errno == errno.EACCES:
            why = "not allowed (ports below 1024 need root); choose another --base-port"
        where = f"port {number}" if number else "a free port"
        raise SimError(f"the {role} cannot listen on 127.0.0.1 {where}: {why}") from None


# --- the words of a fault command ----------------------------------------------------------

_REQUIRED: Any = object()


@dataclass(frozen=True)
class _Arg:
    name: str                           # as usage shows it: N, CODE, SECONDS, POS, SPOT, CENTS, on|off
    allowed: str                        # what is allowed, in words
    convert: Callable[[str], Any]       # raises ValueError (or returns None) for a word not allowed
    default: Any = _REQUIRED

    @property
    def usage(self) -> str:
        return self.name if self.default is _REQUIRED else f"[{self.name}]"


def _whole(name: str, low: int, high: int, *, default: Any = _REQUIRED) -> _Arg:
    def convert(word: str) -> int | None:
        value = int(word) if re.fullmatch(r"[+-]?\d+", word) else None
        return value if value is not None and low <= value <= high else None
    return _Arg(name, f"a whole number from {low} to {high}", convert, default)


def _seconds(name: str, low: float, high: float) -> _Arg:
    def convert(word: str) -> float | None:
        value = float(word)
        return value if math.isfinite(value) and low <= value <= high else None
    return _Arg(name, f"a number of seconds from {low:g} to {high:g}", convert)


def _cards(name: str, most: int) -> _Arg:
    """Distinct cards written as one word, comma-separated ("As,Ks,Qs"); a wrong card is not allowed."""
    def convert(word: str) -> tuple[int, ...] | None:
        try:
            cards = parse_cards(word.split(","), what="stack")
        except CardError:
            return None
        return cards if 0 < len(cards) <= most else None
    return _Arg(name, f"1 to {most} different cards such as As,Ks,Qs (ranks 2-9, T or 10, J, Q, K, A; suits "
                "c, d, h, s), comma-separated", convert)


def _choice(name: str, options: Sequence[str]) -> _Arg:
    return _Arg(name, f"one of {', '.join(options)}", lambda word: word if word in options else None)


def _arguments(command: str, specs: Sequence[_Arg], words: Sequence[str]) -> list[Any]:
    usage = " ".join([command, *(spec.usage for spec in specs)])
    if len(words) > len(specs):
        raise SimError(f"{command}: {words[len(specs)]!r} is one word too many (usage: {usage})")
    values = []
    for index, spec in enumerate(specs):
        if index >= len(words):
            if spec.default is _REQUIRED:
                raise SimError(f"{command}: {spec.name} missing, {spec.allowed} (usage: {usage})")
            values.append(spec.default)
            continue
        try:
            value = spec.convert(words[index])
        except (ValueError, OverflowError):
            value = None
        if value is None:
            what = "" if "|" in spec.name else f"{spec.name} "      # open|closed says it all
            raise SimError(f"{command} {words[index]!r}: {what}must be {spec.allowed} (usage: {usage})")
        values.append(value)
    return values
