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
    for action, who in (("sign_in_dealer", "dealer Bo"), ("sign_out_dealer", "")):
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
    steps = replay(bench.journal, first)["steps"]
    assert "dealt by Ana" in steps[0]["words"]


def test_sign_out_closes_the_table_to_betting_until_the_next_sign_in(tmp_path):
    bench = ready(tmp_path)
    bench.done("sign_in_dealer", who="dealer Ana")
    bench.done("sign_out_dealer")
    assert bench.snap["shift"]["dealer"] is None
    assert not bench.act("open_betting").ok
    assert not bench.act("sign_out_dealer").ok           # nobody to sign out
    assert shift_events(bench) == [("dealer_signed_in", {"name": "Ana", "replaces": None}),
                                   ("dealer_signed_out", {"name": "Ana"})]


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
