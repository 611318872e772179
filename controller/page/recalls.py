"""Game recall on the page: any round of the journal, ten at a time (issue 31, item 10).

Owns ``GET /api/recall`` (docs/page-api.md): the last ten rounds by default, ``?round=N`` that one
round, ``?before=N`` the ten before round N (the page's "earlier rounds"), as
controller/store/recall.py gives them, each as the table shows it (a round in play hides what the
table does not show) and its notes in the reader's language. The journal file is read through a
read-only SQLite connection opened for each request, off the page's loop.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

from aiohttp import web

from controller.page.languages import Languages
from controller.store.journal import Journal, JournalError
from controller.store.recall import as_the_table_shows, recall

RECALL_ROUNDS = 10


class RoundRecall:
    def __init__(self, journal_path: Path | None, words: Languages, table_id: str, log: Any):
        self.journal_path = journal_path
        self.words = words
        self.table_id = table_id
        self.log = log

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/api/recall", self._recall)

    def _answer(self, status: int, message: str) -> web.Response:
        return web.json_response({"ok": False, "message": self.words.text(message) or message}, status=status)

    async def _recall(self, request: web.Request) -> web.Response:
        asked = {k: request.query[k] for k in ("round", "before") if k in request.query}
        # isascii: "²" is a digit to str.isdigit and no number to int() (it was a 500)
        if any(not (v.isascii() and v.isdigit()) or len(v) > 12 for v in asked.values()) or len(asked) > 1:
            return self._answer(400, "recall: say one round number (?round=N) or the rounds before one (?before=N)")
        if self.journal_path is None:
            return self._answer(503, "recall is not available: this page was started without the journal")
        try:      # to_thread: the reader's language (a context variable) goes with the work
            rounds = await asyncio.to_thread(self._read, {k: int(v) for k, v in asked.items()})
        except LookupError:
            return self._answer(404, f"no round {asked.get('round')} in the journal")
        except (sqlite3.Error, JournalError) as err:
            self.log.warning("page.recall_failed", error=str(err))
            return self._answer(503, f"recall: cannot read the journal: {err}")
        return web.json_response({"ok": True, "table": self.table_id, "rounds": rounds})

    def _read(self, asked: dict[str, int]) -> list[dict]:
        assert self.journal_path is not None
        journal = Journal.read_only(self.journal_path, keyed=False)
        try:
            if "round" in asked:
                docs = recall(journal, round_id=asked["round"])
            else:
                docs = recall(journal, last=RECALL_ROUNDS, before=asked.get("before"))
            return [self.words.recalled(as_the_table_shows(doc)) for doc in docs]
        finally:
            journal.close()
