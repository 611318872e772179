"""The dealer on duty (controller/round/shift.py): sign-in between rounds only, the round names its dealer,
a restart keeps who is signed in, and a table whose dealers have no PINs plays as before."""

from __future__ import annotations

import json

from controller.app.config import ConfigError, parse_config
from controller.round import machine
from controller.store.recall import recall_round
from controller.store.replay import replay
from tests.round.bench import Bench
from tests.support.rig import config_text

BETS = {1: {"ante": 1000}, 3: {"ante": 500}}
HANDS = ("As Ad 3c", "2h 7d 9s", "Ks 9c 4d")


def ready(tmp_path, **config) -> Bench:
    bench = Bench(tmp_path, dealer_sign_in=True, **config)
    bench.devices_up()
    assert bench.state == "ready"
    return bench


def shift_events(bench: Bench) -> list[tuple[str, dict]]:
    return [(kind, json.loads(data)) for kind, data in bench.journal.db.execute(
        "SELECT kind, data FROM table_events WHERE kind LIKE 'dealer_%' ORDER BY seq")]


def test_betting_does_not_open_until_a_dealer_signs_in(tmp_path):
    bench = ready(tmp_path)
    assert bench.snap["shift"] == {"sign_in": True, "dealer": None, "since": None}
    assert bench.snap["prompt"][0] == "Dealer: sign in with your PIN (Dealer sign in)"
    assert "sign_in_dealer" in bench.snap["actions"] and "sign_out_dealer" not in bench.snap["actions"]
    refused = bench.act("open_betting")
    assert not refused.ok and "no dealer is signed in" in refused.message
    assert bench.state == "ready" and bench.journal.last_round() is None

    bench.done("sign_in_dealer", who="dealer Ana")
    assert bench.snap["shift"]["dealer"] == "Ana" and bench.snap["shift"]["since"]
    assert bench.snap["prompt"] == ["Open betting"]
    assert "sign_out_dealer" in bench.snap["actions"]
    bench.open_and_bet(BETS)
    assert bench.records("opened")[0].data["dealer"] == "Ana"
    assert shift_events(bench) == [("dealer_signed_in", {"name": "Ana", "replaces": None})]


def test_a_sign_in_names_the_pin_holder_never_a_bare_role(tmp_path):
    bench = ready(tmp_path)
    for who in ("", "supervisor Bo", "dealer ", "dealer"):
        verdict = bench.act("sign_in_dealer", who=who)
        assert not verdict.ok and "own dealer PIN" in verdict.message, who
    assert bench.snap["shift"]["dealer"] is None and shift_events(bench) == []


def test_the_dealer_changes_between_rounds_only_and_each_round_names_its_own(tmp_path):
    bench = ready(tmp_path)
    bench.done("sign_in_dealer", who="dealer Ana")
    bench.open_and_bet(BETS)
    first = bench.table.open_round.id
    for action, who in (("sign_in_dealer", "dealer Bo"), ("sign_out_dealer", "dealer Ana")):
        verdict = bench.act(action, who=who)
        assert not verdict.ok
        assert verdict.message == f"the dealer changes between rounds: finish round {first} first (it is betting)"
    assert action not in machine.available_actions("betting")
    bench.deal(*HANDS)
    bench.decide({1: True, 3: True})
    bench.settle()
    assert bench.state == "complete"

    bench.done("sign_in_dealer", who="dealer Bo")        # the relief: one touch and Bo's PIN
    bench.open_and_bet(BETS)
    assert bench.records("opened")[0].data["dealer"] == "Bo"
    assert shift_events(bench)[-1] == ("dealer_signed_in", {"name": "Bo", "replaces": "Ana"})

    recalled = recall_round(bench.journal, first)
    assert recalled["table"]["dealt_by"] == "Ana"
    opened = next(step for step in replay(bench.journal, first)["steps"] if step["kind"] == "opened")
    assert opened["words"].endswith("dealt by Ana")     # table events of the same moment may come first


def test_sign_out_closes_the_table_to_betting_until_the_next_sign_in(tmp_path):
    bench = ready(tmp_path)
    bench.done("sign_in_dealer", who="dealer Ana")
    bench.done("sign_out_dealer", who="dealer Ana")
    assert bench.snap["shift"]["dealer"] is None
    assert not bench.act("open_betting").ok
    assert not bench.act("sign_out_dealer", who="supervisor Bo").ok           # nobody to sign out
    assert shift_events(bench) == [("dealer_signed_in", {"name": "Ana", "replaces": None}),
                                   ("dealer_signed_out", {"name": "Ana", "by": "dealer Ana"})]


def test_signing_the_dealer_out_takes_their_own_pin_or_a_supervisors(tmp_path):
    """Anyone at the page could sign the dealer out (betting then waited for a sign-in): the page now
    asks for a PIN (machine.PIN_ROLES) and the shift takes only the dealer on duty's or an overseer's."""
    assert machine.PIN_ROLES["sign_out_dealer"] == ("dealer", "supervisor", "technician")
    bench = ready(tmp_path)
    bench.done("sign_in_dealer", who="dealer Ana")
    for who in ("", "dealer", "dealer Bo", "someone"):
        verdict = bench.act("sign_out_dealer", who=who)
        assert not verdict.ok and "PIN" in verdict.message, who
    assert bench.snap["shift"]["dealer"] == "Ana"
    bench.done("sign_out_dealer", who="supervisor Bo")
    bench.done("sign_in_dealer", who="dealer Cy")
    bench.done("sign_out_dealer", who="technician Di")
    assert [d for k, d in shift_events(bench) if k == "dealer_signed_out"] == [
        {"name": "Ana", "by": "supervisor Bo"}, {"name": "Cy", "by": "technician Di"}]


def test_a_dealer_whose_pin_is_removed_is_signed_out_at_the_next_round_boundary(tmp_path):
    bench = ready(tmp_path)
    bench.done("sign_in_dealer", who="dealer Ana")
    bench.open_and_bet(BETS)
    # `table-controller pin remove dealer Ana` while the round is dealt (controller/cli/pins.py journals it)
    bench.journal.table_event("pin_changed", {"action": "removed", "role": "dealer", "name": "Ana"})
    bench.journal.table_event("pin_changed", {"action": "removed", "role": "dealer", "name": "Bo"})
    bench.deal(*HANDS)
    assert bench.snap["shift"]["dealer"] == "Ana"          # the round she opened is hers to finish
    bench.decide({1: True, 3: True})
    bench.settle()
    assert bench.state == "complete" and bench.snap["shift"]["dealer"] is None
    assert shift_events(bench)[-1] == ("dealer_signed_out", {"name": "Ana", "by": "the table: the dealer's PIN was "
                                                                                   "removed"})
    assert [a["message"] for a in bench.snap["alerts"] if a["kind"] == "dealer_signed_out"] == [
        "Dealer Ana signed out: their PIN was removed. Betting opens once a dealer signs in"]
    refused = bench.act("open_betting")
    assert not refused.ok and "no dealer is signed in" in refused.message


def test_a_pin_removed_between_rounds_signs_the_dealer_out_before_betting_opens(tmp_path):
    bench = ready(tmp_path)
    bench.done("sign_in_dealer", who="dealer Ana")
    bench.journal.table_event("pin_changed", {"action": "removed", "role": "dealer", "name": "Ana"})
    bench.journal.table_event("pin_changed", {"action": "set", "role": "dealer", "name": "Ana"})
    bench.done("open_betting")                             # removed and set again: still hers
    bench.done("void_round", role="supervisor", reason="test")
    bench.journal.table_event("pin_changed", {"action": "removed", "role": "dealer", "name": "Ana"})
    refused = bench.act("open_betting")
    assert not refused.ok and "no dealer is signed in" in refused.message
    assert bench.snap["shift"]["dealer"] is None


def test_a_restart_keeps_the_dealer_on_duty(tmp_path):
    bench = ready(tmp_path)
    bench.done("sign_in_dealer", who="dealer Ana")
    since = bench.snap["shift"]["since"]
    bench.journal.close()
    again = Bench(tmp_path, dealer_sign_in=True)
    again.devices_up()
    assert again.snap["shift"] == {"sign_in": True, "dealer": "Ana", "since": since}
    again.open_and_bet(BETS)
    assert again.records("opened")[0].data["dealer"] == "Ana"


def test_a_table_whose_dealers_have_no_pins_opens_betting_and_records_no_dealer(tmp_path):
    bench = Bench(tmp_path)                               # tests' tables: dealer_sign_in = false
    bench.devices_up()
    assert bench.snap["shift"] == {"sign_in": False, "dealer": None, "since": None}
    assert not {"sign_in_dealer", "sign_out_dealer"} & set(bench.snap["actions"])
    assert bench.snap["prompt"] == ["Open betting"]
    verdict = bench.act("sign_in_dealer", who="dealer Ana")
    assert not verdict.ok and "do not sign in" in verdict.message
    bench.open_and_bet(BETS)
    assert bench.records("opened")[0].data["dealer"] is None


def test_the_configuration_takes_only_true_or_false():
    assert parse_config(config_text(page_settings="dealer_sign_in = true\n"), "t.toml").dealer_sign_in is True
    text = config_text(page_settings='dealer_sign_in = "yes"\n')
    try:
        parse_config(text, "t.toml")
    except ConfigError as err:
        assert "page.dealer_sign_in" in str(err) and "must be true" in str(err)
    else:
        raise AssertionError("a text for dealer_sign_in was accepted")


def _round(bench: Bench) -> None:
    bench.open_and_bet(BETS)
    bench.deal(*HANDS)
    bench.decide({1: True, 3: False})
    bench.settle()
    for position, spot in list(bench.table.felt.sensed()):     # the chips go back before the next round
        bench.remove(position, spot)


def test_the_report_says_who_dealt_which_rounds_and_every_sign_in(tmp_path):
    from controller.page.report_page import dealer_lines, fragment
    from controller.store.report import build_report

    bench = ready(tmp_path)
    bench.done("sign_in_dealer", who="dealer Ana")
    _round(bench)
    _round(bench)
    bench.done("sign_in_dealer", who="dealer Bo")
    bench.open_and_bet(BETS)
    bench.done("void_round", role="supervisor", who="supervisor Sam", reason="player dispute")
    clock = bench.config.gaming_day
    report = build_report(bench.journal, clock, clock.day_of(bench.snap["shift"]["since"]))
    runs = [{k: d[k] for k in ("dealer", "first_round", "last_round", "rounds", "complete", "void")}
            for d in report["dealers"]]
    assert runs == [{"dealer": "Ana", "first_round": 1, "last_round": 2, "rounds": 2, "complete": 2, "void": 0},
                    {"dealer": "Bo", "first_round": 3, "last_round": 3, "rounds": 1, "complete": 0, "void": 1}]
    assert [(s["dealer"], s["action"], s["replaces"]) for s in report["dealer_sign_ins"]] == \
        [("Ana", "signed in", None), ("Bo", "signed in", "Ana")]
    lines = dealer_lines(report)
    assert lines[0].endswith("rounds 1 to 2 · Ana · 2 complete, 0 void")
    assert lines[1].endswith("round 3 · Bo · 0 complete, 1 void")
    assert lines[-1].endswith("Bo signed in, relieving Ana")
    assert "Dealers (4)" in fragment(report, [])


def test_a_round_journaled_before_dealers_signed_in_reads_as_before(tmp_path):
    """An opened record without ``dealer`` (journals before issue 31): no name, nothing refused."""
    bench = Bench(tmp_path)
    bench.devices_up()
    with bench.journal.event():
        round_id = bench.journal.open_round("sheet-004")
        bench.journal.append(round_id, "opened", {"preset": "sheet-004", "deck": 1, "config_digest": "x",
                                                  "jackpots": {}})
        bench.journal.append(round_id, "void", {"reason": "old", "by": "supervisor"})
    assert recall_round(bench.journal, round_id)["table"]["dealt_by"] is None
    story = replay(bench.journal, round_id)
    opened = next(step for step in story["steps"] if step["kind"] == "opened")
    assert story["dealt_by"] is None and opened["words"] == "Round opened: sheet-004, deck 1"
