"""The language of the person at the screen: each browser chooses its own (issue 31, item 12).

Owns the choice per request and the translated snapshots per language. The table's configuration
(``page.language``) is the default; a browser that chose another says so with every request, by
the ``lang`` cookie the page's language switch sets (so the page, its event stream, its touches'
answers, recall, replay and the supervisor's report all follow it), or by ``?lang=`` on a request
(``/words.js?lang=es``). The dealer's screen and a supervisor's tablet may so read two languages
at once. An unknown language is the default, never an error: a stale cookie must not stop a page.

``Languages`` answers as controller/page/i18n.py's ``Words`` does (``text``, ``snapshot``,
``recalled``, ``words_script``, ``gettext``), in the language of the request being answered: an
aiohttp middleware (``choose``) sets it for the request's task, and outside a request (the engine's
publication, a log line) it is the default.
"""

from __future__ import annotations

import contextvars
from typing import Any

from aiohttp import web

from controller.page.i18n import LANGUAGES, Words

COOKIE = "lang"
_CHOSEN: contextvars.ContextVar[str | None] = contextvars.ContextVar("page_language", default=None)


class Languages:
    def __init__(self, default: str = "en"):
        self.default = Words(default)                           # refuses an unknown configured language
        self.words = {lang: self.default if lang == default else Words(lang) for lang in LANGUAGES}
        self._translated: dict[str, tuple[dict | None, dict]] = {}     # per language: the newest snapshot

    @property
    def current(self) -> Words:
        return self.words.get(_CHOSEN.get() or "", self.default)

    @property
    def language(self) -> str:
        return self.current.language

    @web.middleware
    async def choose(self, request: web.Request, handler):
        """The request's language: ``?lang=``, else the cookie, else the table's."""
        asked = request.query.get("lang") or request.cookies.get(COOKIE)
        token = _CHOSEN.set(asked if asked in self.words else None)
        try:
            return await handler(request)
        finally:
            _CHOSEN.reset(token)

    # --- as Words, in the request's language -------------------------------------------------

    def text(self, english: str | None) -> str | None:
        return self.current.text(english)

    def answer(self, status: int, ok: bool, english: str, headers: dict[str, str] | None = None) -> web.Response:
        """An API answer, ``{"ok", "message"}``, its message in the reader's language (the dealer's
        actions, the report, the API's own errors: one form)."""
        return web.json_response({"ok": ok, "message": self.text(english) or english}, status=status,
                                 headers=headers)

    def gettext(self, msgid: str) -> str:
        return self.current.gettext(msgid)

    def words_script(self) -> str:
        return self.current.words_script() + f"const LANGUAGES = {list(LANGUAGES)!r};\n".replace("'", '"')

    def recalled(self, doc: dict[str, Any]) -> dict[str, Any]:
        return self.current.recalled(doc)

    def snapshot(self, snap: dict[str, Any]) -> dict[str, Any]:
        """The snapshot in the request's language, translated once per snapshot and language."""
        words = self.current
        cached = self._translated.get(words.language)
        if cached is None or cached[0] is not snap:
            cached = (snap, words.snapshot(snap))
            self._translated[words.language] = cached
        return cached[1]
