"""The pit's page at a glance, in Chromium at 1920x1080 with 30 tables (issue 32): the tables start on
the first screen (the posting forms folded away), stale tables and links down are marked, each names
the dealer signed in (schema version 9), "last
heard" reads "12 s ago" with the local time on hover, the linked jackpot's values and its pending
hit stand out, and an alert of a lost floor link has no libpq error in it. With PIT_SCREENSHOT=FILE
the page is saved there (docs/screenshots/pit-30-tables.png is made so)."""

from __future__ import annotations

import os
import re
import secrets

from playwright.sync_api import expect

from controller.floor.jackpot import claim, create_group
from controller.floor.pit_page import PitPage
from controller.rules.words import device_says
from controller.store.outbox import facts_after
from controller.store.pins import PinStore
from tests.floor.conftest import make_table
from tests.floor.test_forwarder import rows_of, send
from tests.floor.test_pit_status import LINK_DOWN

VALUES = {"mega": 10_000_000, "major": 2_500_000, "minor": 250_000}
STATES = ("betting", "dealing", "decisions", "settling", "complete", "ready")


def a_table_plays(t, n: int) -> None:
    j = t.journal
    j.table_event("device_identity", {"device": "shoe", "model": "S1"})
    j.table_event("device_online", {"device": "sensors"})
    j.table_event("device_online", {"device": "sign"})
    if n % 5:                               # every fifth table has no dealer signed in
        j.table_event("dealer_signed_in", {"name": f"Dealer {n} Fernández-Castellanos", "replaces": None})
    for r in range(1 + n % 4):
        rid = j.open_round("sheet-004")
        j.append(rid, "state", {"state": STATES[(n + r) % len(STATES)]})
        if r < n % 4:
            j.append(rid, "complete", {})
    if n % 7 == 3:
        j.table_event("alert", {"kind": "device_offline", "position": None,
                                "message": device_says("sensors", "not answering: no reply in 3 s")})
    if n % 9 == 4:
        j.table_event("alert", {"kind": "super6_closed", "position": None, "message": LINK_DOWN})
    send(t, rows_of(t, facts_after(j, 0, 1000)))


def test_thirty_tables_at_a_glance(cluster, own_floor, browser, tmp_path):
    dbname, admin = own_floor           # a floor of these 30 tables alone: the census counts every table
    tables = [make_table(cluster, admin, tmp_path, prefix="T", dbname=dbname) for _ in range(30)]
    group = f"MAIN-{secrets.token_hex(2)}"
    create_group(admin, group, [t.table_id for t in tables[:12]], VALUES, by="Ana", reason="opening")
    for n, t in enumerate(tables):
        a_table_plays(t, n)
    stale = [t.table_id for t in tables[25:]]           # five tables stopped minutes ago
    admin.execute("UPDATE floor.table_status SET last_received = now() - interval '7 minutes' "
                  "WHERE table_id = ANY(%s)", (stale,))
    sessions = [t.connect() for t in tables[:22]]       # 22 forwarders connected; 23-25 cut off just now
    for s in sessions:
        s.autocommit = True
    claim(sessions[2], 4, "mega", 3, 1000, 100, 1)        # a MEGA hit: pending on the floor
    pit = PitPage(cluster.dsn(dbname=dbname), PinStore(tmp_path / "pins.json"), port=0, stale_after=60)
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        page = context.new_page()
        page.goto(pit.start())
        expect(page.locator("#census")).to_have_text("30 tables: 22 live, 5 stale, 3 link down")
        first, last = tables[0].table_id, tables[-1].table_id
        expect(page.locator(f'[data-table="{first}"] .mark')).to_have_text("LIVE")
        expect(page.locator(f'[data-table="{last}"]')).to_have_class("table stale")
        expect(page.locator(f'[data-table="{tables[23].table_id}"] .mark')).to_have_text("LINK DOWN")
        expect(page.locator(f'[data-table="{last}"] .ago')).to_have_text(re.compile(r"heard 7 min ago"))
        hover = page.locator(f'[data-table="{first}"] .ago')
        expect(hover).to_have_text(re.compile(r"heard \d+ s ago"))
        assert re.search(r"\d", hover.get_attribute("title") or "")            # the local time on hover
        expect(page.locator(f'[data-post="{group}"]')).to_be_hidden()         # folded away
        expect(page.locator(f'[data-group="{group}"] [data-level="mega"]')).to_have_class("value pending-level")
        expect(page.locator("#pending .amount")).to_have_text("$100,000.00")
        expect(page.locator(f'[data-table="{tables[1].table_id}"] .dealer')).to_have_text(
            "dealer Dealer 1 Fernández-Castellanos")
        expect(page.locator(f'[data-table="{first}"] .dealer')).to_have_text("no dealer signed in")
        linkless = page.locator(f'[data-table="{tables[4].table_id}"] .alert').first
        expect(linkless).to_have_text("Super 6 closed: the floor link is down: a linked jackpot takes no wagers "
                                      "while cut off. No new Super 6 wagers.")
        # every table's card is on the first screen, in the order of their numbers (T2 before T10)
        bottoms = page.evaluate("[...document.querySelectorAll('[data-table]')].map("
                                "(c) => c.getBoundingClientRect().bottom)")
        assert len(bottoms) == 30 and max(bottoms) <= 1080, bottoms
        assert page.locator("[data-table]").first.get_attribute("data-table") == first
        assert page.locator("[data-table]").last.get_attribute("data-table") == last
        if os.environ.get("PIT_SCREENSHOT"):
            page.screenshot(path=os.environ["PIT_SCREENSHOT"])
    finally:
        context.close()
        pit.stop()
        for s in sessions:
            s.close()
        for t in tables:
            t.journal.close()
