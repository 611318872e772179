"""An inspector's copy of a data folder on read-only media (controller/store/journal_read.py):
``recall`` and ``verify`` read it, the write-ahead log's facts included. SQLite cannot make the
journal's ``-shm`` there and once answered "unable to open database file".

Where the tests run as root a folder's mode does not stop a write, so there the one thing the
read-only media does to SQLite (its plain read-only open fails so) is done to it instead."""

from __future__ import annotations

import os
import shutil
import sqlite3

import pytest

from controller.cli import main
from controller.store.journal import Journal


@pytest.fixture
def read_only_media(monkeypatch):
    """Makes a folder read-only media: its mode where that holds, else SQLite's answer there."""
    folders = []
    if os.geteuid() != 0:
        yield lambda folder: (folder.chmod(0o555), (folder / "audit").chmod(0o555))
        return
    connect = sqlite3.connect

    def refusing(target, *args, **kwargs):
        text = str(target)
        if any(text.startswith(f.resolve().as_uri()) for f in folders) and text.endswith("?mode=ro"):
            raise sqlite3.OperationalError("unable to open database file")
        return connect(target, *args, **kwargs)
    monkeypatch.setattr(sqlite3, "connect", refusing)
    yield folders.append


def _played(tmp_path, *, running: bool):
    """A table's folder copied whole: while it runs (its log holds facts not yet in the file) or stopped."""
    from tests.support.rig import table
    source = tmp_path / "data"
    with table(tmp_path, data_dir=source, autoplay=True, rounds=2) as rig:
        rig.run.dealer.done.wait(60)
        copy = tmp_path / "copy"
        if running:
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns("*-shm", "*.lock", "lock"))
    if not running:
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns("*-shm", "*.lock", "lock"))
    return source, copy


@pytest.mark.parametrize("running", [True, False], ids=["copied-while-running", "copied-when-stopped"])
def test_recall_and_verify_read_a_copy_on_read_only_media(tmp_path, capsys, read_only_media, running):
    source, copy = _played(tmp_path, running=running)
    if running:
        assert (copy / "journal.sqlite-wal").stat().st_size > 0       # facts only in the log
    read_only_media(copy)
    try:
        assert main(["verify", "--data-dir", str(copy)]) == 0, capsys.readouterr().err
        assert "verified" in capsys.readouterr().out
        assert main(["recall", "--data-dir", str(copy), "--json", "--last", "5"]) == 0
        rounds = capsys.readouterr().out.splitlines()
        journal = Journal.read_only(copy / "journal.sqlite")
        try:
            in_copy = journal.chain_head
        finally:
            journal.close()
    finally:
        copy.chmod(0o755)
        (copy / "audit").chmod(0o755)
    assert len(rounds) >= 2
    assert sorted(p.name for p in copy.iterdir() if p.name.endswith("-shm")) == []     # nothing written there
    original = Journal.read_only(source / "journal.sqlite")
    try:                                # the copy shows the facts as the table had them
        assert 0 < in_copy[0] <= original.chain_head[0]
        assert original.digest_before(in_copy[0] + 1) == in_copy[1]
    finally:
        original.close()
    if running:                         # ... the log's included: the main file alone holds fewer
        main_file = sqlite3.connect(f"{(copy / 'journal.sqlite').resolve().as_uri()}?mode=ro&immutable=1", uri=True)
        try:
            tables = {name for (name,) in main_file.execute("SELECT name FROM sqlite_master")}
            held = main_file.execute("SELECT COUNT(*) FROM records").fetchone()[0] if "records" in tables else 0
            assert held < in_copy[0]
        finally:
            main_file.close()
