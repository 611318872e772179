"""A finished round replayed on the page: the recall's step-by-step view, with a slider.

Owns ``GET /api/replay?round=N`` (docs/page-api.md): controller/store/replay.py's timeline of that
round, read through a read-only SQLite connection off the page's loop, each step's words in the
page's language. Only a round that has ended (complete or void) is replayed: a round in play would
show the dealer's cards before the reveal, and recall already shows it as the table shows it.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

from aiohttp import web

from controller.page.languages import Languages
from controller.store.journal import Journal, JournalError
from controller.store.replay import replay


class RoundReplays:
    def __init__(self, journal_path: Path | None, words: Languages, log: Any):
        self.journal_path = journal_path
        self.words = words
        self.log = log

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/api/replay", self._replay)

    def _answer(self, status: int, message: str) -> web.Response:
        return web.json_response({"ok": False, "message": self.words.text(message)}, status=status)

    async def _replay(self, request: web.Request) -> web.Response:
        text = request.query.get("round", "")
        if not (text.isascii() and text.isdigit()) or len(text) > 12:
            return self._answer(400, "say which round to replay: a round number")
        if self.journal_path is None:
            return self._answer(503, "recall is not available: this page was started without the journal")
        round_id = int(text)
        try:
            story = await asyncio.get_running_loop().run_in_executor(None, self._read, round_id)
        except LookupError:
            return self._answer(404, f"no round {round_id} in the journal")
        except (sqlite3.Error, JournalError, ValueError) as err:
            self.log.warning("page.replay_failed", round=round_id, error=str(err))
            return self._answer(503, f"recall: cannot read the journal: {err}")
        if story["status"] == "open":
            return self._answer(409, f"Round {round_id} is still in play: its replay opens when it ends")
        for step in story["steps"]:
            step["words"] = self.words.text(step["words"])
        return web.json_response({"ok": True, **story})

    def _read(self, round_id: int) -> dict[str, Any]:
        assert self.journal_path is not None
        journal = Journal.read_only(self.journal_path, keyed=False)
        try:
            return replay(journal, round_id)
        finally:
            journal.close()
