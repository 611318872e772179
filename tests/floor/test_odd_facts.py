"""One table's odd facts against the floor's views of every table (the test lab's, session 18). A
table's records are checked on arrival for their MAC and chain, not for what their bodies say: a
table with a bug, or in hostile hands, can forward a hit whose generation is a word or whose bet
is beyond any integer. The floor reads every table's facts together (``floor.linked_hits``, the
pit's page, ``table-floor hits``), so such a fact shows as unreadable and the rest of the floor is
still seen, instead of an error that blinded the pit for every table."""

from __future__ import annotations

import json
import secrets

from playwright.sync_api import expect

from controller.floor import cli
from controller.floor.jackpot import create_group, linked_hits
from controller.floor.pit import floor_view
from controller.floor.pit_page import PitPage
from controller.store.outbox import facts_after
from controller.store.pins import PinStore
from tests.floor.conftest import make_table
from tests.floor.test_forwarder import rows_of, send

VALUES = {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000}
HIT = {"jackpot": "minor", "seat": 1, "bet": 1000, "share_percent": 100, "generation": 1}


def hit_at(table, body: dict) -> int:
    rid = table.journal.open_round("sheet-004")
    table.journal.append(rid, "jackpot_pending", body)
    send(table, rows_of(table, facts_after(table.journal, 0, 100)))
    return rid


def test_a_tables_odd_hit_does_not_blind_the_floor_to_the_others(cluster, own_floor, tmp_path, capsys):
    name, admin = own_floor
    good, odd = (make_table(cluster, admin, tmp_path, prefix=p, dbname=name) for p in ("G", "O"))
    group = f"ODD-{secrets.token_hex(2)}"
    create_group(admin, group, [good.table_id, odd.table_id], VALUES, by="Ana", reason="opening")
    good_round = hit_at(good, HIT)
    odd_round = hit_at(odd, {"generation": "one", "seat": 10**12, "bet": 10**30})      # no level either
    hits = {h["table_id"]: h for h in linked_hits(admin)}
    assert (hits[good.table_id]["round_id"], hits[good.table_id]["generation"], hits[good.table_id]["bet"]) == \
        (good_round, 1, 1000)
    odd_hit = hits[odd.table_id]
    assert (odd_hit["round_id"], odd_hit["level"], odd_hit["generation"], odd_hit["position"], odd_hit["bet"],
            odd_hit["state"]) == (odd_round, None, None, None, None, "unclaimed")
    view = floor_view(admin)
    assert {h["table"] for h in view["unpaid"]} == {good.table_id, odd.table_id}
    dsn = cluster.dsn(dbname=name)
    assert cli.main(["hits", "--dsn", dsn]) == 0
    out = capsys.readouterr().out
    assert f"table {good.table_id} round {good_round} position 1 (bet $10.00)" in out
    assert f"table {odd.table_id} round {odd_round}" in out and "unreadable" in out
    assert cli.main(["hits", "--dsn", dsn, "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2


def test_the_pit_page_lists_an_odd_hit_as_unreadable_beside_the_others(cluster, own_floor, tmp_path, browser):
    name, admin = own_floor
    good, odd = (make_table(cluster, admin, tmp_path, prefix=p, dbname=name) for p in ("G", "O"))
    create_group(admin, f"ODD-{secrets.token_hex(2)}", [good.table_id, odd.table_id], VALUES, by="Ana",
                 reason="opening")
    good_round = hit_at(good, HIT)
    odd_round = hit_at(odd, {"generation": "one", "bet": 10**30})
    pit = PitPage(cluster.dsn(dbname=name), PinStore(tmp_path / "pins.json"), port=0)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(pit.start())
        expect(page.locator(f'[data-hit="{good.table_id}/{good_round}/minor"]')).to_contain_text(
            "position 1, bet $10.00: not claimed yet")
        expect(page.locator(f'[data-hit="{odd.table_id}/{odd_round}/null"]')).to_contain_text(
            "UNREADABLE (group ODD-")
        expect(page.locator(f'[data-hit="{odd.table_id}/{odd_round}/null"]')).to_contain_text(
            "generation unreadable): table " + odd.table_id
            + f", round {odd_round}, position unreadable, bet unreadable")
    finally:
        context.close()
        pit.stop()


def test_the_days_report_names_a_settlement_it_cannot_read_and_counts_the_rest(cluster, own_floor, tmp_path, capsys):
    name, admin = own_floor
    good, odd = (make_table(cluster, admin, tmp_path, prefix=p, dbname=name) for p in ("G", "O"))
    for t, body in ((good, {"preset": "sheet-004", "seats": [{"play": True, "wagers": {"ante": 1000},
                                                                "results": {"ante": 1000}}]}),
                    (odd, {"preset": "sheet-004", "seats": "not seats"})):
        rid = t.journal.open_round("sheet-004")
        t.journal.append(rid, "settlement", body)
        t.journal.append(rid, "complete", {})
        send(t, rows_of(t, facts_after(t.journal, 0, 100)))
    day = admin.execute("SELECT left(at, 10) FROM floor.records WHERE kind = 'complete' LIMIT 1").fetchone()[0]
    assert cli.main(["report", "--dsn", cluster.dsn(dbname=name), "--day", day, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["unreadable"] == [{"table": odd.table_id, "round": 1}]
    assert report["tables"][good.table_id]["wagers"]["ante"]["wagered"] == 1000
    assert cli.main(["report", "--dsn", cluster.dsn(dbname=name), "--day", day]) == 0
    assert f"{odd.table_id:<10} round 1: its settlement record is not one the report can read" in \
        capsys.readouterr().out
