"""Every alert the dealer reads has a time and says, in the dealer's words, what happened and what to
do (issue 31 item 9): no digest, no internal word; the evidence stays in the journal."""

from __future__ import annotations

import re

from tests.round.bench import Bench

HEX = re.compile(r"\b[0-9a-f]{8,}\b")


def test_a_changed_configuration_is_said_with_its_time_and_what_to_do_and_its_digests_stay_in_the_journal(tmp_path):
    first = Bench(tmp_path)
    first.devices_up()
    first.journal.close()
    again = Bench(tmp_path, page_settings="port = 9999\n")     # the configuration file changed
    again.devices_up()
    [alert] = [a for a in again.snap["alerts"] if a["kind"] == "config_changed"]
    assert alert["message"] == ("The table's settings were changed since it last ran: call a supervisor to confirm "
                                "them before play")
    assert alert["at"] and alert["at"].startswith("20") and alert["round"] is None
    events = again.journal.db.execute("SELECT data FROM table_events WHERE kind = 'config_changed'").fetchall()
    assert len(events) == 1 and again.config.digest in events[0][0]


def test_every_alert_of_a_troubled_round_has_a_time_and_no_digest(tmp_path):
    first = Bench(tmp_path)
    first.devices_up()
    first.journal.close()
    bench = Bench(tmp_path, page_settings="port = 9999\n")
    bench.devices_up()
    bench.open_and_bet({1: {"ante": 500}, 2: {"ante": 500}})
    bench.done("no_more_bets")
    bench.place(3, "ante", 500)                                  # past posting
    alerts = list(bench.snap["alerts"])
    bench.done("deal")
    bench.deliver("As Kd 3c")
    bench.deliver("As 7d 9s")                                     # a card read twice: a misdeal
    alerts += bench.snap["alerts"]
    assert {a["kind"] for a in alerts} >= {"config_changed", "past_posting"}
    for alert in alerts:
        assert isinstance(alert["at"], str) and alert["at"], alert
        assert not HEX.search(alert["message"]), alert
