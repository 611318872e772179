"""The supervisor's report page: the gaming day's figures and pictures, behind a supervisor's PIN.

Owns two routes of the page (docs/page-api.md):

  GET  /report       the report page (static/report.html): role, PIN, gaming day, shift
  GET  /api/report/shifts   {"ok", "shifts": [names], "time_zone"}: the gaming day's shifts, offered
                     as buttons (the kiosk has no keyboard); no figures, so no PIN
  POST /api/report   {"role", "pin", "challenge", "day"?, "shift"?} -> {"ok", "html", "report"}:
                     the report (controller/store/report.py) of that gaming day (default: the
                     one in progress) or shift, as the HTML section with its inline SVG charts
                     (controller/page/report_page.py) and as JSON (integer cents, no timeline)

The figures are money a surveillance room reads, so the request is a supervisor's or
technician's, checked as every PIN-checked action is: a one-time challenge, the PIN store
with its lockout across roles (a wrong PIN here counts like any other), the same fence.
The journal is read through a read-only SQLite connection, never written.
"""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from controller.page.report_page import fragment
from controller.store.journal import Journal, JournalError
from controller.store.pins import PRIVILEGED_ROLES, PinRefused, never_a_pin
from controller.store.report import build_report

if TYPE_CHECKING:
    from controller.page.server import DealerPage

REPORT_KEYS = {"role", "pin", "challenge", "day", "shift"}
REPORT_PAGE = Path(__file__).with_name("static") / "report.html"      # beside the dealer's page (server.py)


class SupervisorReports:
    def __init__(self, page: DealerPage):
        self.page = page

    def _answer(self, status: int, message: str) -> web.Response:
        """A refusal in the reader's language, as the dealer's page's are: the report page shows it."""
        return self.page.words.answer(status, False, message)

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/report", self._report_page)
        app.router.add_post("/api/report", self._report)
        app.router.add_get("/api/report/shifts", self._shifts)

    async def _shifts(self, request: web.Request) -> web.Response:
        clock = self.page.engine.config.gaming_day
        return web.json_response({"ok": True, "shifts": [name for name, _ in clock.shifts],
                                  "time_zone": clock.describe()["time_zone"]})

    async def _report_page(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(REPORT_PAGE)

    async def _report(self, request: web.Request) -> web.Response:
        page = self.page
        try:
            body = await request.json()
        except ValueError:
            return self._answer(400, "the request body must be a JSON object")
        except RecursionError:              # 16 KiB of brackets: Python's parser runs out of stack
            return self._answer(400, "the request body is nested too deeply to be a request")
        if not isinstance(body, dict):
            return self._answer(400, "the request body must be a JSON object")
        unknown = sorted(set(body) - REPORT_KEYS)
        if unknown:
            return self._answer(400, f"unknown field {unknown[0]!r}")
        role, pin = body.get("role"), body.get("pin")
        if role not in PRIVILEGED_ROLES:
            return self._answer(401, "the report needs a supervisor or technician PIN")
        if not isinstance(pin, str) or not pin:
            return self._answer(401, f"the report needs the {role}'s PIN")
        if (shape := never_a_pin(role, pin)) is not None:
            return self._answer(400, shape)
        config = page.engine.config
        clock = config.gaming_day
        try:
            day = date.fromisoformat(body["day"]) if body.get("day") else clock.day_of(datetime.now(UTC))
            clock.day_bounds(day)           # 9999-12-31 has no next morning (it was a 500, after the PIN)
        except (TypeError, ValueError, OverflowError):
            return self._answer(400, f"day {body.get('day')!r}: a gaming day is a date YYYY-MM-DD")
        shift = body.get("shift") or None
        if shift is not None and (not isinstance(shift, str) or shift not in dict(clock.shifts)):
            return self._answer(400, f"shift {shift!r}: no such shift (gaming_day.shifts: "
                                f"{', '.join(n for n, _ in clock.shifts)})")
        refusal = page.challenges.redeem(body.get("challenge"))
        if refusal is not None:
            return self._answer(403, refusal)
        try:
            await page.check_pin(role, pin, "report", "the report", request.remote)
        except PinRefused as err:
            return self._answer(403, str(err))
        if page.journal_path is None:
            return self._answer(503, "the report is not available: this page was started without the journal")
        try:
            report = await asyncio.get_running_loop().run_in_executor(None, self._read, config, day, shift)
        except (sqlite3.Error, JournalError) as err:
            page.log.warning("page.report_failed", error=str(err))
            return self._answer(503, f"report: cannot read the journal: {err}")
        timeline = report.pop("timeline")
        words = page.words          # the reader's language (controller/page/languages.py)
        html = fragment(report, timeline, tr=words.gettext, said=lambda text: words.text(text) or text)
        return web.json_response({"ok": True, "html": html, "report": report},
                                 headers={"Cache-Control": "no-store"})

    def _read(self, config: Any, day: date, shift: str | None) -> dict:
        assert self.page.journal_path is not None
        journal = Journal.read_only(self.page.journal_path, keyed=False)
        try:
            return build_report(journal, config.gaming_day, day, shift, table=config.table_id,
                                preset=config.preset)
        finally:
            journal.close()
