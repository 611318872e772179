"""A throwaway PostgreSQL cluster: ``initdb`` and ``pg_ctl`` in a temporary folder.

Owns starting, stopping and removing one private cluster for the floor's tests, its
benchmark and ``table-floor demo``: Debian's ``postgresql`` binaries (nothing installed
system-wide, nothing of the machine's own clusters touched), the data and the unix socket in
one temporary folder, a free TCP port on 127.0.0.1, password (SCRAM) authentication so each
table's role really logs in with its own credentials, and fsync left on (the figures are
meant with it).

A cluster can be given a streaming standby (``add_standby``: ``pg_basebackup -R`` from it, a
cluster of its own in a folder of its own), made synchronous (``make_synchronous``: a commit
returns only once the standby has it on disk), and the standby promoted (``promote``) once the
primary is gone: the failover the floor is documented and tested on (docs/floor.md).

PostgreSQL refuses to run as root: when this process is root the cluster's files are given to
the ``postgres`` system user (Debian's package makes it), or to ``nobody``, and ``initdb`` and
``pg_ctl`` run under ``runuser``. The folder is made with ``mkdtemp`` under the system's
temporary folder, not under pytest's (mode 0700, root's), so that user can reach it.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

SUPERUSER = "floor_admin"
DATABASE = "floor"
INSTALL_HINT = ("PostgreSQL's server binaries (initdb, pg_ctl) were not found: install Debian's "
                "`postgresql` package (apt-get install postgresql), or name their folder in TABLE_PG_BIN")


class ClusterError(RuntimeError):
    """The throwaway cluster could not be made, started or stopped; the message says which step and why."""


def pg_bin() -> Path:
    """The folder of ``initdb`` and ``pg_ctl``: TABLE_PG_BIN, else the newest of Debian's
    /usr/lib/postgresql/*/bin, else the PATH's. Raises ClusterError saying how to install them."""
    named = os.environ.get("TABLE_PG_BIN")
    candidates = [Path(named)] if named else sorted(
        Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
        reverse=True)
    if not named and (found := shutil.which("initdb")):
        candidates.append(Path(found).parent)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    raise ClusterError(INSTALL_HINT + (f" (TABLE_PG_BIN={named} has no initdb and pg_ctl)" if named else ""))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """One private cluster. ``start()`` makes it (first time) and starts it; ``stop()`` stops it and
    ``start()`` starts the same data again (the faults' tests); ``destroy()`` removes everything."""

    def __init__(self, *, max_connections: int = 200, fsync: bool = True, port: int | None = None):
        self.bin = pg_bin()
        self.max_connections = max_connections
        self.fsync = fsync
        self.folder = Path(tempfile.mkdtemp(prefix="table-floor-"))
        self.data = self.folder / "data"
        self.log = self.folder / "postgresql.log"
        self.port = port or free_port()          # a chosen one (the demo's --port), else any free one
        self.password = secrets.token_urlsafe(18)
        self.owner: str | None = None            # the system user the server runs as when we are root
        if os.geteuid() == 0:
            self.owner = "postgres" if _user_exists("postgres") else "nobody"
        self._made = False

    @property
    def host(self) -> str:
        return str(self.folder)                  # libpq: a host that is a folder is a unix socket's

    def dsn(self, user: str = SUPERUSER, password: str | None = None, dbname: str = DATABASE) -> str:
        pw = self.password if user == SUPERUSER and password is None else password
        parts = [f"host={self.host}", f"port={self.port}", f"dbname={dbname}", f"user={user}"]
        if pw is not None:
            parts.append(f"password={pw}")
        return " ".join(parts)

    def tcp_dsn(self, user: str, password: str, dbname: str = DATABASE) -> str:
        return f"host=127.0.0.1 port={self.port} dbname={dbname} user={user} password={password}"

    def primary_dsn_with(self, *standbys: Cluster, dbname: str = DATABASE) -> str:
        """A table's multi-host connection string (no user, no password): libpq tries each host in
        turn and keeps the one that takes writes, so a forwarder finds the promoted standby itself."""
        nodes = [self, *standbys]
        return (f"host={','.join('127.0.0.1' for _ in nodes)} port={','.join(str(n.port) for n in nodes)} "
                f"dbname={dbname} target_session_attrs=read-write")

    def _run(self, step: str, *args: str) -> None:
        command = [str(self.bin / args[0]), *args[1:]]
        if self.owner:
            command = ["runuser", "-u", self.owner, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise ClusterError(f"{step} failed (exit {done.returncode}): {done.stderr.strip() or done.stdout.strip()}"
                               + (f"\nserver log:\n{log}" if log else ""))

    def _own(self, *paths: Path) -> None:
        """Give ``paths`` to the system user the server runs as (when we are root)."""
        if self.owner:
            entry = pwd.getpwnam(self.owner)
            for path in paths:
                os.chown(path, entry.pw_uid, entry.pw_gid)

    def _configure(self, settings: dict[str, str], why: str) -> None:
        with open(self.data / "postgresql.conf", "a") as conf:      # a later line wins over an earlier one
            conf.write(f"\n# {why}\n")
            conf.writelines(f"{k} = {v}\n" for k, v in settings.items())

    def _make(self) -> None:
        pwfile = self.folder / "pwfile"
        pwfile.write_text(self.password + "\n")
        self._own(self.folder, pwfile)
        self._run("initdb", "initdb", "-D", str(self.data), "-U", SUPERUSER, f"--pwfile={pwfile}",
                  "--auth-local=scram-sha-256", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8")
        pwfile.unlink()
        settings = {
            "listen_addresses": "'127.0.0.1'", "port": str(self.port),
            "unix_socket_directories": f"'{self.folder}'", "max_connections": str(self.max_connections),
            "fsync": "on" if self.fsync else "off", "synchronous_commit": "on",
            "logging_collector": "off", "log_min_messages": "warning",
        }
        self._configure(settings, "table-floor's throwaway cluster")
        self._made = True

    def start(self) -> Cluster:
        if not self._made:
            self._make()
            self._run("pg_ctl start", "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "start")
            self._create_database()
        else:
            self._run("pg_ctl start", "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "start")
        return self

    def _create_database(self) -> None:
        import psycopg
        with psycopg.connect(self.dsn(dbname="postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {DATABASE}")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: disconnect everyone, as an outage would; ``immediate``: a crash)."""
        self._run("pg_ctl stop", "pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    # --- replication: a standby, made synchronous, promoted ---------------------------------

    def add_standby(self, name: str = "standby1") -> Cluster:
        """A streaming standby of this (running) cluster, started: ``pg_basebackup -R`` (a fast
        checkpoint, the WAL streamed with the copy, ``primary_conninfo`` and ``standby.signal``
        written) into a new folder, on a port of its own; ``name`` is the ``application_name`` it
        streams under, the name ``synchronous_standby_names`` lists."""
        standby = Cluster(max_connections=self.max_connections, fsync=self.fsync)
        standby.password = self.password                    # a copy: the same roles, the same superuser
        standby._own(standby.folder)
        conninfo = (f"host=127.0.0.1 port={self.port} user={SUPERUSER} password={self.password} "
                    f"application_name={name}")
        standby._run("pg_basebackup", "pg_basebackup", "-D", str(standby.data), "-R", "-X", "stream",
                     "-c", "fast", "-d", conninfo)
        standby._configure({"port": str(standby.port), "unix_socket_directories": f"'{standby.folder}'",
                            "hot_standby": "on", "cluster_name": f"'{name}'"}, f"the standby {name}")
        standby._made = True
        standby._run("pg_ctl start", "pg_ctl", "-D", str(standby.data), "-l", str(standby.log), "-w", "-t", "60",
                     "start")
        return standby

    def make_synchronous(self, *names: str, commit: str = "on", timeout: float = 60.0) -> None:
        """Every commit waits for the standbys ``names`` (``FIRST 1``: any one of them) to have
        flushed it (``commit`` ``on``; ``remote_apply``: replayed too), once one streams as sync."""
        import psycopg
        listed = ", ".join(f'"{n}"' for n in names)
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f"ALTER SYSTEM SET synchronous_standby_names = 'FIRST 1 ({listed})'")
            conn.execute(f"ALTER SYSTEM SET synchronous_commit = '{commit}'")
            conn.execute("SELECT pg_reload_conf()")
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if conn.execute("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync' "
                                "AND state = 'streaming'").fetchone() == (1,):
                    return
                time.sleep(0.1)
        raise ClusterError(f"no standby of {list(names)} streamed synchronously within {timeout:.0f} s")

    def replication(self) -> list[dict[str, str]]:
        """The standbys streaming from this cluster: name, state, sync state."""
        import psycopg
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            rows = conn.execute("SELECT application_name, state, sync_state FROM pg_stat_replication "
                                "ORDER BY application_name").fetchall()
        return [{"name": n, "state": s, "sync_state": y} for n, s, y in rows]

    def promote(self) -> None:
        """This standby becomes a primary (``pg_ctl promote``, waiting until it takes writes)."""
        self._run("pg_ctl promote", "pg_ctl", "-D", str(self.data), "-w", "-t", "60", "promote")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def destroy(self) -> None:
        if self._made and self.running():
            try:
                self.stop("immediate")
            except ClusterError:
                pass                        # already gone: the folder is removed all the same
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.destroy()


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False
