"""The dealer's and supervisor's touches: ``POST /api/action`` (docs/page-api.md, "Actions").

Owns how a request to act is read and checked before the table is asked: its JSON (only the
fields an action may carry), the role, the action and its arguments (the engine's own declarations:
a request the table could never take is 400 and spends no challenge or PIN guess), then for an
action that needs a PIN the PIN's shape, the one-time challenge and the PIN itself (the PIN store
with its lockout), and last the engine's verdict, in the reader's language.
"""

from __future__ import annotations

import asyncio
import functools
import json
from typing import TYPE_CHECKING

from aiohttp import web

from controller.engine_events import bad_arguments
from controller.round import machine as procedure
from controller.store.pins import ROLES, PinRefused, never_a_pin

if TYPE_CHECKING:
    from controller.page.server import DealerPage

REQUEST_KEYS = {"action", "role", "pin", "challenge", *procedure.ARGUMENT_TYPES}


class DealerActions:
    def __init__(self, page: DealerPage):
        self.page = page

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/api/action", self._action)

    async def _action(self, request: web.Request) -> web.Response:
        page = self.page
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError, ValueError):
            return self._say(400, False, "the request body must be a JSON object")
        except RecursionError:              # 16 KiB of brackets: Python's parser runs out of stack
            return self._say(400, False, "the request body is nested too deeply to be a request")
        if not isinstance(body, dict):
            return self._say(400, False, "the request body must be a JSON object")
        unknown = sorted(set(body) - REQUEST_KEYS)
        if unknown:
            return self._say(400, False, f"unknown field {unknown[0]!r}")
        action = body.pop("action", None)
        role = body.pop("role", "dealer")
        if role not in ROLES:               # 0, false or "" read as the dealer before
            return self._say(400, False, f"role must be one of {', '.join(ROLES)}, or none for the dealer")
        pin = body.pop("pin", None)
        challenge = body.pop("challenge", None)
        if not isinstance(action, str):
            return self._say(400, False, "say which action (\"action\": \"open_betting\", ...)")
        takes = procedure.ACTION_ARGUMENTS.get(action)
        if takes is None:       # what the table could never take is malformed: no challenge or PIN spent on it
            return self._say(400, False, f"unknown action {action!r}")
        if bad := bad_arguments(body, takes, procedure.NEEDED_ARGUMENTS.get(action, ())):
            return self._say(400, False, f"{action}: {bad}")
        loop = asyncio.get_running_loop()
        who = ""
        roles = procedure.PIN_ROLES.get(action)
        if roles:
            words = action.replace("_", " ")
            if role not in roles:
                return self._say(401, False, f"{words} needs a {' or '.join(roles)} PIN")
            if not isinstance(pin, str) or not pin:
                return self._say(401, False, f"{words} needs the {role}'s PIN")
            if (shape := never_a_pin(role, pin)) is not None:      # untried: a slip does not lock the role
                return self._say(400, False, shape)
            refusal = page.challenges.redeem(challenge)
            if refusal is not None:             # a recorded request played again stops here, untried
                held = page._throttle.due(f"challenge {request.remote}")
                if held is not None:
                    page.log.warning("page.challenge_refused", remote=request.remote, action=action,
                                     role=role, reason=refusal, more_refused=held)
                return self._say(403, False, refusal)
            try:
                who = await page.check_pin(role, pin, action, words, request.remote)
            except PinRefused as err:
                return self._say(403, False, str(err))
        elif role != "dealer" or pin is not None or challenge is not None:
            return self._say(400, False, f"{action.replace('_', ' ')} is a dealer's action; "
                                       "it takes no role, PIN or challenge")
        verdict = await loop.run_in_executor(
            None, functools.partial(page.engine.act, action, role=role, who=who, **body))
        status = 200 if verdict.ok else 504 if verdict.unknown else 409
        return self._say(status, verdict.ok, verdict.message or "done")

    def _say(self, status: int, ok: bool, message: str) -> web.Response:
        return self.page.words.answer(status, ok, message)
