"""``table-controller run``: one table, its devices, its journal and its engine, until stopped.

Owns putting the pieces together and taking them apart: configuration (a
file, or the embedded default on simulated devices), logging, the journal
under the data directory, the drivers, the engine thread that owns the game,
the dealer's page (controller/page/server.py) with the PIN store, and with
``--autoplay`` the scripted players and dealer, and with a ``[floor]`` section the forwarder
of the journal to the floor database (controller/floor/forwarder.py, its own thread and
connections: the engine never waits on it). SIGTERM and Ctrl-C
stop it cleanly; a SIGKILL is what the journal's recovery is for.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

import structlog

from controller.app import logs
from controller.app.clock import ClockWatch
from controller.app.config import TableConfig, default_config, load_config
from controller.app.devices import Devices
from controller.app.manifest import Verdict, check_at_start
from controller.app.systemd import Notifier
from controller.engine import Engine
from controller.engine_events import (
    FinalClaimDiffers,
    FloorJackpots,
    FloorLink,
    JackpotClaimed,
    JournalBehindFloor,
    PageAlert,
)
from controller.rules.words import money
from controller.store.anchors import check_journal_against_audit, check_trail
from controller.store.audit import AuditError, AuditTrail
from controller.store.audit_head import AT_COMMIT, AT_STOP
from controller.store.journal import Journal, JournalError
from controller.store.lock import DataFolderLock
from controller.store.pins import PIN_FILE, PinStore
from controller.store.readers import READERS_FILE, FeedReaders
from controller.store.recall import rounds_summary
from drivers.wire.auth import KeyFileError

JOURNAL_FILE = "journal.sqlite"
AUDIT_DIR = "audit"


@dataclass
class RunOptions:
    config: str | None = None
    simulate: bool = False
    autoplay: bool = False
    rounds: int | None = None
    seed: int = 1
    seed_from_clock: bool = False   # no --seed given: the seed is said, so the same rounds can be played again
    data_dir: str | None = None
    log_format: str | None = None
    shoe_usb: bool = False
    sim_transport: str = "pty"
    strategy: str = "optimal"
    port: int | None = None         # overrides page.port; 0 picks a free port (tests)
    page: bool = True
    program: Verdict | None = None  # the program's self-check, when the command line made it already
    log_level: str | None = None    # overrides log.level on the console (the audit trail keeps info)
    royal_at: tuple[int, ...] = ()  # simulated: rounds dealt position 1 a royal flush on purpose
    sim_apart: bool = False         # simulated: devices, players and dealer in a process of their own


class Watcher(Protocol):
    """Who watches a run from a terminal (controller/cli/progress.py): rounds done of how many,
    and a closing line."""

    def update(self, done: int, total: int | None = None) -> None: ...

    def say(self, text: str) -> None: ...


SIMULATED_DATA_DIR = "table-data"
# where a table PC keeps its folders (the Filesystem Hierarchy Standard's system trees)
SYSTEM_TREES = ("/var", "/etc", "/opt", "/srv", "/usr", "/run", "/boot")


def is_system_path(path: Path) -> bool:
    absolute = Path(os.path.abspath(path))
    return any(absolute.is_relative_to(tree) for tree in SYSTEM_TREES)


def simulated_folders(opts: RunOptions, config: TableConfig) -> tuple[RunOptions, TableConfig]:
    """A configuration's table played on simulated devices never writes into a table PC's system
    folders (/var/lib/table-controller, /var/log/table-controller in the example): a developer trying
    the example must not find them made on the machine, nor simulated rounds land in a real table's
    journal. A data folder there moves to ./table-data (or --data-dir), and says so; an audit folder
    or key file there follows the data folder. Other folders (a test's, the demo's) stay as set."""
    if not (opts.simulate and opts.config):
        return opts, config
    if opts.data_dir is None and is_system_path(config.data_dir):
        print(f"table-controller: simulated devices: the journal and audit trail go to ./{SIMULATED_DATA_DIR}/, "
              f"not to the configuration's {config.data_dir} (--data-dir DIR chooses another folder)",
              file=sys.stderr)
        opts = replace(opts, data_dir=SIMULATED_DATA_DIR)
    return opts, replace(
        config, audit_dir=None if config.audit_dir and is_system_path(config.audit_dir) else config.audit_dir,
        key_file=None if config.key_file and is_system_path(config.key_file) else config.key_file)


def audit_dir(config: TableConfig, data_dir: str | None) -> Path:
    """Where the audit trail is: ``log.dir``, else DATA_DIR/audit (``--data-dir`` moves both
    together, so side-by-side tables and tests never share a trail)."""
    if data_dir is None and config.audit_dir is not None:
        return config.audit_dir
    return (Path(data_dir) if data_dir else config.data_dir) / AUDIT_DIR


class TableRun:
    """Everything one ``run`` starts; ``start`` then ``wait``/``stop`` (tests drive it directly)."""

    def __init__(self, opts: RunOptions):
        self.opts = opts
        # the self-check of the program regulators require: a changed installed file stops the start
        self.program = opts.program or check_at_start()
        config: TableConfig = load_config(opts.config) if opts.config else default_config()
        opts, config = simulated_folders(opts, config)
        self.opts = opts
        self.data_dir = Path(opts.data_dir) if opts.data_dir else config.data_dir
        self.lock = DataFolderLock(self.data_dir)       # one controller per journal, or none starts
        try:
            self._build(opts, config)
        except BaseException:
            audit = getattr(self, "audit", None)
            if audit is not None:         # its lines stop; what it holds is made durable
                logs.detach_audit()
                audit.close()
            self.lock.release()           # a start that failed leaves the folder free
            raise

    def _build(self, opts: RunOptions, config: TableConfig) -> None:
        self.sim = None
        if opts.simulate or opts.config is None:
            # the one place the controller reaches for simulators: devices where hardware would be
            from simulators.harness import simulate
            self.sim, config = simulate(config, transport=opts.sim_transport, shoe_usb=opts.shoe_usb,
                                        seed=opts.seed, strategy=opts.strategy, royal_at=opts.royal_at,
                                        apart=opts.sim_apart)
        self.config = config
        trail = audit_dir(config, opts.data_dir)
        try:
            self.audit = AuditTrail(trail, retention=config.audit_retention)
        except OSError as err:                  # a full or read-only disk: said, not a traceback
            raise AuditError(f"{trail}: the audit trail cannot be opened or written ({err}); nothing was "
                             "started: free space on the disk or call a technician") from None
        self.audit.check()                      # a trail that does not verify stops the start
        self.journal = Journal(self.data_dir / JOURNAL_FILE, key_file=config.key_file)
        try:                                    # the audit trail vouches for what was committed, and back:
            # checked before this start writes a line, so a trail the last stop sealed must end there
            check_journal_against_audit(self.journal, trail)  # commits lost (a deleted WAL): said so first
            self.journal.check_at_start()       # all of it, as ``verify`` does
            check_trail(self.journal, trail, last=self.audit.opened_last)
            self.journal.keep_audit_head(None, AT_COMMIT)   # running: lines may follow the head again
        except BaseException:
            self.journal.close()
            raise
        logs.configure(opts.log_format or config.log_format, opts.log_level or config.log_level, audit=self.audit)
        self.log = structlog.get_logger("run").bind(table=config.table_id)
        if self.program.kind == "installed":
            self.log.info("program.verified", version=self.program.version, files=len(self.program.entries),
                          manifest_digest=self.program.digest)
        else:
            self.log.info("program.development", version=self.program.version, location=self.program.location)
        self.journal.audit_head = self.audit.head
        if self.audit.failure is not None:      # the start's own lines did not fit: nothing is played
            self.journal.close()
            raise AuditError(f"{trail}: the audit trail cannot be written ({self.audit.failure}); nothing "
                             "was started: free space on the disk or call a technician")
        # the drivers post through the engine (made next, started before them), which stamps each event
        try:
            self.devices = Devices(config, lambda event: self.engine.post(event),
                                   usb_backend=self.sim.usb_backend if self.sim else None)
        except KeyFileError as err:             # a device's pairing key that cannot be used
            self.journal.close()
            raise SystemExit(f"table-controller: {err}") from None
        # the anchors go straight to the trail (controller/engine_trail.py)
        self.engine = Engine(config, self.journal, self.devices, trail=self.audit.write,
                             console_debug=logs.console_debug)
        self.pins = PinStore(self.data_dir / PIN_FILE, attempts=config.pin_attempts,
                             lockout=config.pin_lockout)
        self.page = None
        if opts.page:
            from controller.page.server import DealerPage
            self.page = DealerPage(self.engine, self.pins, host=config.page_host,
                                   port=config.page_port if opts.port is None else opts.port,
                                   allow=config.page_allow, table_id=config.table_id,
                                   journal_path=self.journal.path, language=config.language,
                                   readers=FeedReaders(self.data_dir / READERS_FILE))
        self.dealer = None
        if opts.autoplay:
            if self.sim is None:
                raise SystemExit("table-controller: --autoplay needs simulated devices (--simulate)")
            from simulators.harness import scripted_dealer
            self.dealer = scripted_dealer(self.sim, self.engine.submit, self.engine.observers, opts.rounds)
        self.forwarder = None
        if config.floor is not None:
            from controller.floor.forwarder import Forwarder  # psycopg only for a table on a floor
            engine = self.engine
            self.forwarder = Forwarder(config.floor, self.journal.path, self.journal.key,
                                       on_link=lambda up, reason: engine.post(FloorLink(up, reason)),
                                       on_levels=lambda levels: engine.post(FloorJackpots(levels)),
                                       on_claim=lambda rnd, level, answer, refused, for_good: engine.post(
                                           JackpotClaimed(rnd, level, answer, refused, for_good)),
                                       on_differs=lambda rnd, level, paid, answer, refused: engine.post(
                                           FinalClaimDiffers(rnd, level, paid, answer, refused)),
                                       on_behind=lambda words: engine.post(JournalBehindFloor(words)))
        self.first_round = (self.journal.last_round() or (0, ""))[0] + 1
        self.notifier = Notifier()
        self.clock = ClockWatch(self.engine.post, PageAlert)     # an alert, never a stop
        self._notified_state: str | None = None
        self.engine.observers.append(self._tell_systemd)

    def _tell_systemd(self, snap: dict) -> None:
        """READY=1 once the self-check passed and the devices answered; STATUS= on each state, and
        the reason when the table halted (the watchdog pings stop then: engine.alive says no)."""
        state = "halted" if snap.get("halted") else snap["state"]
        if state == "halted" and self._notified_state != "halted":
            # halted before it was ready (a finding the journal keeps: controller/store/behind.py): the
            # service is up, its page says why; not ready, systemd would kill and restart it for nothing
            say = self.notifier.ready if self._notified_state in (None, "starting") else self.notifier.status
            say(f"table {snap['table']}: HALTED: {snap['halted']}")
            self._notified_state = state
            return
        if state == self._notified_state:
            return
        status = f"table {snap['table']}: {state}" + (f", round {snap['round']}" if snap["round"] else "")
        if self._notified_state in (None, "starting") and state != "starting":
            self.notifier.ready(status)
        else:
            self.notifier.status(status)
        self._notified_state = state

    def start(self) -> TableRun:
        if self.sim:
            self.sim.start()
        self.engine.start()
        if self.page:
            self.page.start()
        self.devices.start()
        if self.forwarder:
            self.forwarder.start()
        self.notifier.start_watchdog(self.engine.alive)
        if self.engine.halted:          # halted from its start (a finding the journal keeps): said once up
            self._tell_systemd(self.engine.snapshot)
        self.clock.start()
        self.log.info("run.started", data_dir=str(self.data_dir), simulate=self.sim is not None,
                      devices={r: d.url for r, d in self.config.devices.items()})
        return self

    def stop(self) -> None:
        self.notifier.stopping()
        self.notifier.stop()
        self.clock.stop()
        if self.page:
            self.page.stop()
        self.devices.stop()
        self.engine.stop()
        if self.forwarder:                  # what is left is sent by the next run, never lost
            self.forwarder.stop(drain=self.config.floor.drain if self.config.floor else 0.0)
        if self.sim:
            self.sim.stop()
        # read once the engine's thread has stopped: it owns the journal's connection until then
        self.final_summary = self.summary()
        logs.detach_audit()
        self.audit.close()
        try:                                # the trail's very last line, under the key: none may follow it
            self.journal.keep_audit_head(self.audit.last, AT_STOP)
        except JournalError:                # a full disk: left as after a crash (the last commit's head)
            pass
        self.journal.close()
        self.lock.release()

    def summary(self) -> dict:
        """Rounds this run finished, from the journal: played, voided, wagered, paid (cents); and the
        latencies measured while it played (controller/latency.py)."""
        latency = self.page.latencies() if self.page else {"frame_to_snapshot": self.engine.latency.summary()}
        summary = {"table": self.config.table_id, "preset": self.config.preset.name,
                   **rounds_summary(self.journal, self.first_round), "latency": latency}
        if self.forwarder:
            summary["floor"] = self.forwarder.status()
        return summary

def run(opts: RunOptions, watcher: Watcher | None = None) -> int:
    # SIGTERM is heard from the first moment: while the table starts (systemd's stop, a test's) it
    # ends the run cleanly once started, instead of killing it halfway; Ctrl-C still interrupts a
    # start that hangs, and is a clean stop too once the table runs
    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()
    signal.signal(signal.SIGTERM, on_signal)
    table = TableRun(opts).start()
    signal.signal(signal.SIGINT, on_signal)
    if table.page:
        print(f"Dealer page: {table.page.url}", flush=True)
        if (table.dealer is None and table.config.dealer_sign_in
                and not any(h.role == "dealer" for h in table.pins.holders())):
            # said where the person starting the table looks, not only on the page behind the sign-in
            print("No dealer PIN is set on this table, so no dealer can sign in and betting cannot open. A "
                  f"supervisor sets one: table-controller pin set dealer NAME --data-dir {table.data_dir}",
                  flush=True)
    if opts.seed_from_clock and table.sim is not None:
        print(f"Simulated shoe and players: seed {opts.seed} (--seed {opts.seed} plays the same rounds again)",
              flush=True)
    try:
        while not stop.is_set():
            if watcher is not None and table.dealer is not None:      # drawn at once, then as rounds end
                watcher.update(table.dealer.finished, opts.rounds)
            if table.dealer is not None and table.dealer.done.wait(0.2):
                break
            stop.wait(0.2)
        if watcher is not None and table.dealer is not None:     # the last count, however fast it came
            watcher.update(table.dealer.finished, opts.rounds)
    finally:
        table.stop()
    summary = table.final_summary
    if watcher is not None:
        watcher.say(f"{summary['rounds_played']} rounds played, {summary['rounds_voided']} void: "
                    f"{money(summary['wagered_cents'])} wagered, {money(summary['paid_cents'])} paid to players")
    print(json.dumps(summary), file=sys.stdout)
    return 0
