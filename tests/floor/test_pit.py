"""The pit's page in Debian's Chromium against the real floor: every table on one page, a claim on
one table showing JACKPOT PENDING on every table of its group at once (LISTEN/NOTIFY, then a
server-sent event), and a supervisor posting the group's new values with a PIN."""

from __future__ import annotations

import json
import secrets

from playwright.sync_api import expect

from controller.floor import pit_page
from controller.floor.jackpot import ack_lock, claim, create_group
from controller.floor.pit_page import PitPage
from controller.rules.words import device_says
from controller.store.outbox import facts_after
from controller.store.pins import PinStore
from tests.floor.conftest import make_table, play
from tests.floor.test_forwarder import rows_of, send

VALUES = {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000}


def test_the_pit_sees_every_table_live_and_a_supervisor_posts_the_linked_values(cluster, admin, browser, tmp_path,
                                                                               monkeypatch):
    # the page reads the floor at a notice (LISTEN) or when records arrived, and else every REFRESH
    # seconds: with no timed reading in this test, what shows a claim or a posting came by its notice
    # (a 2 s deadline told the notice from the 5 s reading, and a loaded machine missed it)
    monkeypatch.setattr(pit_page, "REFRESH", 3600.0)
    a, b = (make_table(cluster, admin, tmp_path, prefix="P") for _ in range(2))
    group = f"PIT-{secrets.token_hex(2)}"
    create_group(admin, group, [a.table_id, b.table_id], VALUES, by="Ana", reason="opening")
    play(a.journal, 1)
    send(a, rows_of(a, facts_after(a.journal, 0, 100)))
    pins = PinStore(tmp_path / "pins.json")
    pins.set_pin("supervisor", "Ana", "2468")
    pit = PitPage(cluster.dsn(), pins, port=0)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(pit.start())
        expect(page.locator("#floor")).to_have_text("floor database: up")
        card_a, card_b = (page.locator(f'[data-table="{t.table_id}"]') for t in (a, b))
        expect(card_a).to_contain_text("3 records")
        expect(card_b).to_contain_text("0 records")
        play(a.journal, 1)                                    # new records show without a reload
        send(a, rows_of(a, facts_after(a.journal, 3, 100)))
        expect(card_a).to_contain_text("6 records")
        expect(card_a.locator(".devices")).to_have_text("devices: not heard from yet")
        # each device's state, from the table's own facts: its connects and its offline alerts
        a.journal.table_event("device_identity", {"device": "shoe", "model": "S1"})
        a.journal.table_event("device_online", {"device": "sign"})
        a.journal.table_event("device_online", {"device": "sensors"})
        a.journal.table_event("alert", {"kind": "device_offline", "position": None,
                                        "message": device_says("sensors", "not answering: cable")})
        send(a, rows_of(a, facts_after(a.journal, 6, 100)))
        for role, said in (("shoe", "shoe online"), ("sensors", "sensors offline"), ("sign", "sign online")):
            expect(card_a.locator(f'[data-device="{role}"]')).to_have_text(said)
        expect(card_a.locator('[data-device="sensors"]')).to_have_class("device down")

        with a.connect() as conn:
            claim(conn, 2, "mega", 4, 1000, 100, 1)
        for card in (card_a, card_b):                         # every table of the group, at once
            expect(card.locator(".pending")).to_have_text("JACKPOT PENDING: MEGA", timeout=20_000)
        expect(page.locator(f'[data-claim="{a.table_id}/2/mega"]')).to_contain_text(
            "table " + a.table_id + ", round 2, position 4: $100,000.00 (1 winner, waiting for every table")

        form = page.locator(f'[data-post="{group}"]')
        expect(form).to_be_hidden()                           # folded away until asked for
        page.locator(f'[data-group="{group}"] summary').click()
        for level, dollars in (("mega", "90000"), ("major", "25000"), ("minor", "2500")):
            form.locator(f"[name={level}]").fill(dollars)
        form.locator("[name=reason]").fill("MEGA won at " + a.table_id)
        form.locator("[name=pin]").fill("2468")
        form.locator("button").click()
        expect(form.locator(".verdict")).to_contain_text("Refused: group " + group + ": the MEGA split of "
                                                         "generation 1 is not final")
        for t in (a, b):
            with t.connect() as conn:
                ack_lock(conn, "mega", 1)
        # a reason the pit's form cannot type, sent as a script would: the table's rule for typed text,
        # answered before the challenge and the PIN are spent (controller/rules/typed_text.py)
        assert page.evaluate("""b => fetch('/api/challenge').then(r => r.json()).then(c => fetch('/api/jackpot',
            {method: 'POST', headers: {'Content-Type': 'application/json'},
             body: JSON.stringify({...b, challenge: c.challenge})})).then(async r => [r.status, await r.json()])""",
            {"group": group, "mega": 9_000_000, "major": 2_500_000, "minor": 250_000, "reason": "won\u202eniw",
             "pin": "2468"}) == [400, {"ok": False, "message": "reason must be plain text, without control or "
                                                                 "formatting characters"}]
        # what can be no PIN (too short, letters) is refused untried, as on the table's page: no wrong PIN
        # counted towards the lockout (it was tried, and a short one was a 401)
        for pin, words in (("12", "has at least 4 digits"), ("24a8", "is 4 to 12 digits")):
            status, answer = page.evaluate("""b => fetch('/api/challenge').then(r => r.json()).then(c =>
                fetch('/api/jackpot', {method: 'POST', headers: {'Content-Type': 'application/json'},
                 body: JSON.stringify({...b, challenge: c.challenge})})).then(async r => [r.status, await r.json()])""",
                {"group": group, "mega": 9_000_000, "major": 2_500_000, "minor": 250_000, "reason": "won",
                 "pin": pin})
            assert status == 400 and f"a supervisor PIN {words}; this one was not tried" in answer["message"]
        assert json.loads((tmp_path / "pins.json").read_text())["lockout"]["failures"] == 0
        form.locator("[name=pin]").fill("1111")               # a wrong PIN changes nothing
        form.locator("button").click()
        expect(form.locator(".verdict")).to_contain_text("Refused: wrong supervisor PIN")
        form.locator("[name=pin]").fill("2468")
        form.locator("button").click()
        expect(form.locator(".verdict")).to_contain_text("Posted: posted by supervisor Ana")
        expect(page.locator(f'[data-group="{group}"] .values')).to_contain_text("MEGA $90,000.00")
        for card in (card_a, card_b):
            expect(card.locator(".pending")).to_have_count(0)
    finally:
        context.close()
        pit.stop()
        a.journal.close()
        b.journal.close()
    posted = admin.execute("SELECT generation, value, posted_by, reason FROM floor.jackpot_postings "
                           "WHERE group_id = %s AND level = 'mega' ORDER BY generation", (group,)).fetchall()
    assert posted[-1] == (2, 9_000_000, "supervisor Ana", "MEGA won at " + a.table_id)


def test_the_pit_closes_a_split_a_cut_off_table_holds_up_and_lists_what_the_floor_owes(cluster, admin, browser,
                                                                                       tmp_path):
    """Table C has not taken the MINOR lock (cut off), so A's win waits. The page says whom it waits
    for; closing needs a supervisor's PIN, a reason and a confirmation that C's later win is refused;
    C's hit, journaled but never claimed, is listed, and once C's supervisor referred it, as owed."""
    a, b, c = (make_table(cluster, admin, tmp_path, prefix="Q") for _ in range(3))
    group = f"PIT-{secrets.token_hex(2)}"
    create_group(admin, group, [a.table_id, b.table_id, c.table_id], VALUES, by="Ana", reason="opening")
    rid = c.journal.open_round("sheet-004")                   # C's royal, dealt before the lock reached it
    c.journal.append(rid, "jackpot_pending", {"jackpot": "minor", "seat": 2, "bet": 1000, "share_percent": 100,
                                              "generation": 1})
    sent = facts_after(c.journal, 0, 100)
    send(c, rows_of(c, sent))
    with a.connect() as ca, b.connect() as cb:
        claim(ca, 1, "minor", 1, 1000, 100, 1)
        ack_lock(ca, "minor", 1)
        ack_lock(cb, "minor", 1)
    pins = PinStore(tmp_path / "pins.json")
    pins.set_pin("supervisor", "Ana", "2468")
    pit = PitPage(cluster.dsn(), pins, port=0)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(pit.start())
        holding = page.locator(f'[data-holding="{group}/minor/1"]')
        expect(holding.locator(".waits")).to_have_text(
            f"MINOR (group {group}) generation 1: the split waits for table(s) {c.table_id} to take the lock")
        expect(page.locator(f'[data-hit="{c.table_id}/{rid}/minor"]')).to_contain_text(
            "position 2, bet $10.00: not claimed yet")
        form = holding.locator("form")
        expect(form).to_be_hidden()
        holding.locator("summary").click()
        form.locator("[name=reason]").fill(f"table {c.table_id} cut off")
        form.locator("[name=pin]").fill("2468")
        form.locator("button").click()                        # not confirmed: nothing closed
        expect(form.locator(".verdict")).to_have_text(
            f"Refused: nothing closed: closing MINOR generation 1 makes the split final without table(s) "
            f"{c.table_id}; a win they claim later is refused and settled at the table without the award, held "
            "on the floor as owed. Confirm to close")
        assert admin.execute("SELECT count(*) FROM floor.claim_windows_closed WHERE group_id = %s",
                             (group,)).fetchone() == (0,)
        form.locator("[name=confirm]").check()
        form.locator("[name=pin]").fill("2468")
        form.locator("button").click()
        expect(holding).to_have_count(0)                      # the split is final: nothing waits
        expect(page.locator(f'[data-claim="{a.table_id}/1/minor"]')).to_contain_text("(1 winner, final)")
        assert admin.execute("SELECT closed_by, reason FROM floor.claim_windows_closed WHERE group_id = %s",
                             (group,)).fetchone() == ("supervisor Ana", f"table {c.table_id} cut off")
        # C's claim is refused for good; its supervisor settles it without the award: owed by the floor
        c.journal.append(rid, "jackpot_referred", {"jackpot": "minor", "seat": 2, "by": "supervisor Eve",
                                                   "reason": "claims closed", "refused": "the floor closed the claims"})
        send(c, rows_of(c, facts_after(c.journal, len(sent), 100)))
        expect(page.locator(f'[data-hit="{c.table_id}/{rid}/minor"]')).to_contain_text(
            "OWED by the floor's decision: settled at the table without the award by the supervisor Eve "
            "(claims closed); the floor refused: the floor closed the claims")
    finally:
        context.close()
        pit.stop()
        for t in (a, b, c):
            t.journal.close()
