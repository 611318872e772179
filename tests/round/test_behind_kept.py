"""A table found behind the floor stays halted across restarts until a technician clears it.

The forwarder finds the journal behind the floor's head of it only at its first connect; a table
halted for it was restarted by the watchdog and could play in the moments before that connect (for
as long as the floor was out of reach). The finding is now a table event under the table's key
(controller/store/behind.py): the engine starts halted on it, answers the watchdog (a restart
cannot help), and `table-controller behind clear` journals who cleared it and why."""

from __future__ import annotations

import json

from controller.cli import main
from controller.engine_events import JournalBehindFloor, Probe
from tests.round.test_linked_jackpot import LinkedBench, on_the_floor

WORDS = "This table's journal is behind the floor: it ends at record 9, the floor holds ... up to 15"


def answers_the_watchdog(bench: LinkedBench) -> bool:
    probe = Probe()
    bench.post(probe)
    return probe.done.is_set()


def test_a_table_found_behind_starts_halted_until_a_technician_clears_it(tmp_path, capsys):
    bench = on_the_floor(tmp_path)
    bench.post(JournalBehindFloor(WORDS))
    assert bench.snap["halted"] == f"{WORDS}. Nothing more is recorded or paid; call a technician"
    assert bench.table_events("journal_behind_floor") == [{"words": WORDS}]
    assert answers_the_watchdog(bench)          # halted on purpose, on record: not restarted for nothing
    bench.journal.close()

    again = LinkedBench(tmp_path)               # restarted (a power cut): the forwarder has not connected
    assert again.snap["halted"].startswith(f"{WORDS} (found ")
    assert "a technician clears it with `table-controller behind clear`" in again.snap["halted"]
    again.devices_up()
    assert again.state == "starting"
    verdict = again.act("open_betting")
    assert not verdict.ok and verdict.message == f"The table has stopped: {again.snap['halted']}"
    assert answers_the_watchdog(again)
    assert again.table_events("journal_behind_floor") == [{"words": WORDS}]      # said once, not per restart
    again.journal.close()

    where = ["--data-dir", str(tmp_path)]
    assert main(["behind", "status", "--json", *where]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["standing"]["words"] == WORDS
    assert main(["behind", "clear", "--by", " ", "--reason", "x", *where]) == 2
    capsys.readouterr()
    # journaled and printed: plain text of the table's length, as a reason on the page is
    assert main(["behind", "clear", "--by", "Ana", "--reason", "ok\x1b[2Jhidden", *where]) == 2
    assert "--reason must be plain text, without control or formatting characters" in capsys.readouterr().err
    assert main(["behind", "clear", "--by", "Ana", "--reason", "x" * 201, *where]) == 2
    assert "--reason must be at most 200 characters, not 201" in capsys.readouterr().err
    assert main(["behind", "clear", "--by", "technician Ana", "--reason", "the right journal was put back",
                 "--json", *where]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["cleared"]["words"] == WORDS
    assert main(["behind", "clear", "--by", "technician Ana", "--reason", "again", *where]) == 1
    assert "no finding stands: nothing to clear" in capsys.readouterr().err
    assert main(["behind", "status", *where]) == 0
    assert "no finding stands" in capsys.readouterr().out

    cleared = LinkedBench(tmp_path)
    assert cleared.snap["halted"] is None
    assert cleared.table_events("journal_behind_cleared") == [
        {"by": "technician Ana", "reason": "the right journal was put back", "words": WORDS}]
    cleared.devices_up()
    assert cleared.state == "ready"
    assert answers_the_watchdog(cleared)


def test_a_finding_found_again_after_it_was_cleared_halts_again(tmp_path):
    bench = on_the_floor(tmp_path)
    bench.post(JournalBehindFloor(WORDS))
    bench.journal.table_event("journal_behind_cleared", {"by": "t", "reason": "r", "words": WORDS})
    bench.journal.close()
    found_again = on_the_floor(tmp_path)         # still behind: the forwarder's next connect says so again
    found_again.post(JournalBehindFloor(WORDS))
    found_again.journal.close()
    assert LinkedBench(tmp_path).snap["halted"].startswith(WORDS)
