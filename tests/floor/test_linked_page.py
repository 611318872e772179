"""The dealer's page of a table on a linked jackpot, in Debian's Chromium against the real floor:
JACKPOT PENDING on the values and on the hit, Settled held back while the floor's split is not
final, and the hit paid the floor's amount once it is."""

from __future__ import annotations

import secrets

from playwright.sync_api import expect

from controller.floor.jackpot import ack_lock, create_group
from tests.floor.conftest import enroll_table, make_table, start_table
from tests.floor.test_linked_claims import VALUES, claim, dealt_with_a_royal, final
from tests.support.browser import VIEWPORTS, tap, touch, wait_state


def test_the_dealer_page_shows_jackpot_pending_and_settles_the_hit_once_the_floor_is_final(
        cluster, admin, browser, tmp_path):
    group = f"G-{secrets.token_hex(3)}"
    (tmp_path / "table").mkdir()
    table_id, config = enroll_table(cluster, admin, tmp_path / "table", group)
    other = make_table(cluster, admin, tmp_path, prefix="O")   # the group's other table: its lock taken by hand
    create_group(admin, group, [table_id, other.table_id], VALUES, by="Ana", reason="opening")
    rig = start_table(config, page=True)
    context = browser.new_context(viewport=VIEWPORTS["tablet"])
    page = context.new_page()
    confirm = "#pos-1 button[data-pos-action=confirm]"
    try:
        rig.run.pins.set_pin("supervisor", "Ana", "2468")
        dealt_with_a_royal(rig, 1000)
        page.goto(rig.run.page.url)                 # mid-round: not open_page, which waits for 'ready'
        expect(page.locator("#link")).to_have_text("Live")
        rig.reveal()
        rig.wait(lambda s: claim(s) is not None, 20, "the floor's first answer")
        expect(page.locator("#jackpots")).to_contain_text("MINOR JACKPOT PENDING")
        expect(page.locator("#jackpot-pending")).to_contain_text(
            "JACKPOT MINOR · position 1 · amount from the floor · Ah Kh Qh + Jh 10h 2c — supervisor: verify the six "
            "cards (floor: claimed; the split is not final yet)")
        rig.act("verify_jackpot", role="supervisor", who="supervisor Ana", reason="six cards checked")
        expect(page.locator("#jackpot-pending")).to_contain_text(
            "JACKPOT PENDING MINOR · position 1 · floor: claimed; the split is not final yet")
        expect(page.locator(confirm)).to_have_attribute("aria-disabled", "true")
        touch(page, confirm)                        # offered: posted, and the table says why not
        expect(page.locator("#toast")).to_contain_text("waits for the floor's final amount")
        with other.connect() as conn:               # the other table took the lock: the split is final
            ack_lock(conn, "minor", 1)
            conn.commit()
        rig.wait(final, 20, "the final answer")
        expect(page.locator("#jackpot-pending")).to_be_hidden()
        tap(page, confirm)
        wait_state(page, "complete")
        expect(page.locator("#hits")).to_contain_text("$2,500.00")
    finally:
        context.close()
        rig.run.stop()
        other.journal.close()
