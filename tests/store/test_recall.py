"""Recall and meters from the journal: recalled rounds settle again to what the table paid."""

import json
import subprocess
import sys

from controller.store.recall import meters, recall
from tests.support.rig import table


def _cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def test_recalled_rounds_settle_again_to_what_the_table_paid(tmp_path):
    data = tmp_path / "data"
    with table(tmp_path, "sheet-004", autoplay=True, rounds=12, seed=5, data_dir=data) as rig:
        assert rig.run.dealer.done.wait(60)
        in_process = recall(rig.journal, last=12)
        m = meters(rig.journal)
        nets = sum(r["net"] for doc in in_process for r in doc["table"]["results"])
    out = _cli("recall", "--data-dir", str(data), "--last", "12", "--json")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert [json.loads(x)["id"] for x in lines] == [d["id"] for d in in_process] and len(lines) == 12
    settled = _cli("settle", stdin=out.stdout)
    assert settled.returncode == 0, settled.stdout
    for recalled, again in zip(map(json.loads, lines), map(json.loads, settled.stdout.splitlines()), strict=True):
        paid = {r["seat"]: (r["results"], r["cap_reduction"], r["net"]) for r in recalled["table"]["results"]}
        assert paid == {s["seat"]: (s["results"], s["cap_reduction"], s["net"]) for s in again["seats"]}
        assert set(recalled["table"]["paid"]) == {str(s) for s in paid}
    # meters agree with the rounds: the house's hold is what the players lost in total
    assert m["rounds"]["complete"] >= 12
    assert sum(w["hold"] for w in m["wagers"].values()) - m["cap_reductions"] == -nets


def test_recall_includes_the_unfinished_round_and_names_missing_ones(tmp_path):
    data = tmp_path / "data"
    with table(tmp_path, "sheet-002", data_dir=data) as rig:
        rig.open_and_bet({2: {"ante": 500}})
        rig.deal()
        rig.state("decisions")
        current = recall(rig.journal, last=10)[-1]
        assert current["table"]["status"] == "open" and current["table"]["state"] == "decisions"
        assert current["seats"][0]["wagers"]["ante"] == 500 and "cards" in current["seats"][0]
    text = _cli("recall", "--data-dir", str(data))
    assert "round 1  open" in text.stdout and "state decisions" in text.stdout
    missing = _cli("recall", "--data-dir", str(data), "--round", "99")
    assert missing.returncode == 1 and "no round 99" in missing.stderr
    nowhere = _cli("meters", "--data-dir", str(tmp_path / "nowhere"))
    assert nowhere.returncode == 2 and "no journal here" in nowhere.stderr


def test_a_hand_with_a_card_read_twice_is_not_named_and_recall_still_answers():
    """A shoe fault can deliver a card twice (the round is voided for it): there is no hand to name,
    and naming it looked up a score that does not exist (the soak's recall failed with a bare number)."""
    from types import SimpleNamespace

    from controller.round.view import _hand
    from controller.store.recall import hand_names
    twice = [0, 14, 14]                     # the Two of one suit, then one card twice
    assert hand_names(SimpleNamespace(hands={1: twice, 2: [0, 1, 2], 3: [0, 1]})) == {"2": _hand([0, 1, 2])}
    assert _hand(twice) is None and _hand([0, 1]) is None and _hand([0, 1, 2]) is not None
