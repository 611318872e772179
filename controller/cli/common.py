"""What several command groups of ``table-controller`` share.

Owns the ``--config``/``--data-dir`` options of the commands that read a
table's files, the configuration and data directory they name, opening the
journal there, the exit statuses and the ``table-controller: ...`` refusal on
standard error. Nothing here catches an error: ``main`` (controller/cli/__init__.py)
does, once.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from controller.app.config import TableConfig, default_config, load_config
from controller.errors import InputError
from controller.rules.typed_text import DIGITS_MOST, number_problem

if TYPE_CHECKING:
    from typing import TypeAlias

    from controller.cli.progress import Progress
    from controller.store.journal import Journal

    # what ``add_subparsers`` returns; argparse gives it no public name
    Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

Command = Callable[[argparse.Namespace], int]

STATUS_INPUT = 2        # usage or configuration: an InputError, a group without its action
STATUS_INTEGRITY = 3    # an IntegrityError: the journal or audit trail cannot be trusted or written
# ``run``, ``recall``, ``meters`` and ``jackpot`` refused a journal or audit trail that does not
# check out with status 2 before the error tree existed; they keep it (``integrity_status``).
LEGACY_INTEGRITY_STATUS = 2


def refuse(message: object) -> None:
    """Say on standard error why a command did not do its work: one line per problem (a
    configuration refused whole names each of its problems on a line of its own)."""
    for line in str(message).splitlines() or [""]:
        print(f"table-controller: {line}", file=sys.stderr)


def whole_number(text: str) -> int:
    """An option's whole number (``type=``), of at most 15 digits as any number a person types
    (controller/rules/typed_text.py): a longer one reached SQLite, which cannot hold it, as a traceback."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or number_problem("", value) is not None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at most {DIGITS_MOST} digits")
    return value


def local_time(config: TableConfig, at: str | None) -> str:
    """A journal time (UTC) as people at the table read it: local (gaming_day.time_zone), to the
    second, with the zone's abbreviation."""
    if not at:
        return "(open)"
    return config.gaming_day.local(at).strftime("%Y-%m-%d %H:%M:%S %Z")


def given_path(text: str) -> str:
    """A file or folder option's value (``type=``): an empty one is refused, not read as "not given":
    ``--data-dir "$DIR"`` with DIR unset in a script worked on the configured table's own folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path (a variable not set in a script?): give the path, "
                                         "or leave the option out")
    return text


def add_journal_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", type=given_path, help="table configuration naming data.dir")
    p.add_argument("--data-dir", metavar="DIR", type=given_path, help="journal directory (overrides data.dir)")


def table_config(args: argparse.Namespace) -> TableConfig:
    """The configuration ``--config`` names, else the embedded default."""
    return load_config(args.config) if args.config else default_config()


def existing_journal(args: argparse.Namespace) -> tuple[Journal, TableConfig]:
    """The journal under ``--data-dir``, else under data.dir (opened for reading only: a command
    that shows or checks it never changes it), with the configuration that names its key;
    refused in words where there is none."""
    from controller.app.run import JOURNAL_FILE
    from controller.store.journal import Journal
    config = table_config(args)
    data_dir = Path(args.data_dir) if args.data_dir else config.data_dir
    path = data_dir / JOURNAL_FILE
    if not path.exists():
        raise InputError(f"{path}: no journal here (give --data-dir or --config)")
    return Journal.read_only(path, key_file=config.key_file), config


def open_journal(args: argparse.Namespace, progress: Progress | None = None) -> Journal:
    """The journal, once every fact in it and its audit trail verify as ``verify`` checks them: nothing
    is shown from one that does not
    (``progress``: a terminal's progress line while a long journal is checked)."""
    from controller.app.run import audit_dir
    from controller.store.anchors import check_trail
    from controller.store.verify import verify_journal
    journal, config = existing_journal(args)
    try:
        verify_journal(journal, progress.update if progress else None)
        check_trail(journal, audit_dir(config, args.data_dir))     # and the trail vouches for it (issue 33)
    except BaseException:
        journal.close()
        raise
    finally:
        if progress:
            progress.clear()
    return journal
