"""What the dealer's page shows when the table cannot go on, in Chromium: a table halted because its
journal or audit trail cannot be written (a full disk) refuses every touch, so the page must say it
has stopped and offer nothing, never keep showing the last state's bright next step."""

from __future__ import annotations

import errno

import pytest
from playwright.sync_api import expect

from tests.support.browser import open_page, touch
from tests.support.rig import table


@pytest.mark.parametrize("language", ["en", "es"])
def test_a_halted_table_says_it_stopped_and_offers_no_touch(tmp_path, page, language):
    with table(tmp_path, "sheet-002", page=True, seed=3) as rig:
        open_page(page, rig)
        if language == "es":
            page.locator("#language").click()
            page.wait_for_function("() => document.documentElement.lang === 'es'")
        expect(page.locator("button[data-action=open_betting]")).to_have_class("go next")

        def full(fd: int, data: bytes) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")
        rig.run.audit._write_all = full          # the disk fills: the next commit halts the table
        try:
            rig.engine.act("open_betting")
            rig.wait(lambda s: bool(s["halted"]), what="the halt")
            page.wait_for_function("() => Boolean(window.tableSnapshot.halted)")
        finally:
            del rig.run.audit._write_all         # the table stops on a disk with room again
        stopped, reason = {"en": ("The table has stopped", "call a technician"),
                           "es": ("La mesa se ha detenido", "llame a un técnico")}[language]
        expect(page.locator("#prompt .first")).to_have_text(stopped)
        expect(page.locator("#prompt .more")).to_contain_text(reason)
        expect(page.locator("#state")).to_have_class("state held")
        expect(page.locator("#state")).not_to_have_text({"en": "Ready", "es": "Lista"}[language],
                                                        ignore_case=True)
        # nothing is offered, nothing is the bright next step
        assert page.locator("footer button.next").count() == 0
        for action in ("open_betting", "no_more_bets", "deal", "reveal", "misdeal"):
            expect(page.locator(f"button[data-action={action}]")).to_have_attribute("aria-disabled", "true")
        # touched anyway, the page says why in the dealer's words
        touch(page, "button[data-action=open_betting]")
        expect(page.locator("#toast")).to_contain_text(stopped)
