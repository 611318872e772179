"""The page's API says its own protocol errors as it says everything else: JSON, in words.

Owns the answer to a request aiohttp itself turns away before or while a handler runs: a path the
API does not have (404), a method a path does not take (405, with its ``Allow``), a body over the
page's 16 KiB (413). Under ``/api/`` they are ``{"ok": false, "message": ...}`` in the reader's
language, as every other answer of the API (docs/page-api.md); aiohttp's own are plain text
("Maximum request body size 16384 exceeded."), which the page's script cannot show. The static
files and the page itself keep aiohttp's answers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from controller.page.messages import API_ERRORS as SAID

MOST_BODY = 16 * 1024       # bytes: the largest request the page takes (a report's, an action's are far smaller)


def api_errors(words: Any, most_bytes: int = MOST_BODY) -> Callable[..., Awaitable[web.StreamResponse]]:
    """The middleware; ``words.text`` puts an English message in the reader's language."""
    @web.middleware
    async def said_in_json(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]):
        try:
            return await handler(request)
        except web.HTTPException as err:
            if err.status not in SAID or not request.path.startswith("/api/"):
                raise
            english = SAID[err.status].format(size=most_bytes // 1024)
            headers = {"Allow": err.headers["Allow"]} if "Allow" in err.headers else None
            return words.answer(err.status, False, english, headers)
    return said_in_json
