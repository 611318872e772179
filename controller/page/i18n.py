"""The dealer page's words in the configured language (``page.language``).

Owns the message catalogue at run time: Python's gettext reads the compiled catalogue
``locale/LANG/LC_MESSAGES/dealer.mo`` shipped in the package (scripts/catalogue.py makes it
from the ``.po`` beside it). English is the message ids themselves: an English page uses
no catalogue and costs nothing.

Two kinds of words reach the dealer:

- the page's own (static/index.html and its scripts): each keyed by its English text,
  served to the page at load as ``/words.js`` (``words_script``), whose ``t()`` looks them
  up; nothing is fetched later, nothing is built in the browser from English;
- the table's: the round core, the engine and the stores write English, and the journal and
  the audit trail keep it (they are the evidence, in one language). What of it the page
  shows (the snapshot's prompt, holds, alerts, flags, problems, settlement lines, devices'
  details; recall's notes; the verdicts of touches) is translated here, at the page's
  boundary: a text is matched against the message ids of controller/page/messages.py
  (English with named placeholders), and the translation of the id that matches is filled
  with the same values, each translated in turn ("Round held: {reason}" holds a message of
  its own). A text no id matches is shown as it came (a device's own words, an OS error).

The snapshot a browser or a script reads keeps its machine values (state, actions, alert
kinds, device status words, spot keys) in English in every language; the page names those
through its own words.
"""

from __future__ import annotations

import gettext
import json
import re
from pathlib import Path
from typing import Any

from controller.page.messages import TEMPLATES

DOMAIN = "dealer"
LOCALE_DIR = Path(__file__).with_name("locale")
LANGUAGES = ("en", "es")            # English is the message ids; the others have a catalogue each
PLACEHOLDER = re.compile(r"\{(\w+)\}")
MONEY = r"-?\$\d{1,3}(?:,\d{3})*(?:\.\d\d)?"
# what each placeholder may hold: the name says (a name not here holds any text)
KINDS = {
    **dict.fromkeys(("position", "other", "hand", "count", "round", "code", "deck", "play_deck", "expected",
                     "record", "floor_record"), r"\d+"),
    "seconds": r"\d+(?:\.\d+)?",
    "positions": r"\d+(?:, \d+)*(?: and \d+)?",
    **dict.fromkeys(("amount", "taken", "ante", "value", "minimum", "maximum", "chip"), MONEY),
    "jackpot": r"MEGA|MAJOR|MINOR",
    "action": r"[a-z][a-z_]*(?: [a-z_]+)*",
    **dict.fromkeys(("role", "role2"), r"supervisor|technician|dealer"),
    "state": r"[a-z]+",
    "card": r"(?:10|[2-9JQKA])[cdhs]",
}
KEPT = {"position", "other", "hand", "count", "round", "code", "deck", "play_deck", "expected", "seconds",
        "record", "floor_record",
        "amount", "taken", "ante", "value", "minimum", "maximum", "chip", "jackpot", "card"}   # numbers, money, cards
DEPTH = 4                           # a message inside a message inside ...: enough for any the table builds
CACHED = 4096                       # the table says the same few hundred things: each is matched once


class LanguageError(ValueError):
    """A language the page has no catalogue for."""


def pattern(msgid: str) -> re.Pattern[str]:
    """The regular expression an English text of ``msgid`` matches, one named group a placeholder."""
    out, at = [], 0
    for m in PLACEHOLDER.finditer(msgid):
        out.append(re.escape(msgid[at:m.start()]))
        out.append(f"(?P<{m.group(1)}>{KINDS.get(m.group(1), '.+?')})")
        at = m.end()
    out.append(re.escape(msgid[at:]))
    return re.compile("".join(out), re.S)


def _specificity(msgid: str) -> tuple[int, int]:
    """More fixed text first, then fewer free placeholders: the narrowest id that fits wins."""
    names = PLACEHOLDER.findall(msgid)
    return (-len(PLACEHOLDER.sub("", msgid)), sum(name not in KINDS for name in names))


class Words:
    def __init__(self, language: str = "en"):
        if language not in LANGUAGES:
            raise LanguageError(f"no catalogue for language {language!r} (languages: {', '.join(LANGUAGES)})")
        self.language = language
        self.catalogue: gettext.NullTranslations = (
            gettext.NullTranslations() if language == "en"
            else gettext.translation(DOMAIN, LOCALE_DIR, languages=[language]))
        self._exact = frozenset(m for m in TEMPLATES if "{" not in m)
        self._templates = [(pattern(m), m) for m in sorted((m for m in TEMPLATES if "{" in m), key=_specificity)]
        self._cache: dict[str, str] = {}

    @property
    def english(self) -> bool:
        return self.language == "en"

    def gettext(self, msgid: str) -> str:
        return self.catalogue.gettext(msgid)

    def match(self, english: str) -> tuple[str, dict[str, str]] | None:
        """The message id an English text is an instance of, with its placeholders' values."""
        if english in self._exact:
            return english, {}
        for regex, msgid in self._templates:
            m = regex.fullmatch(english)
            if m:
                return msgid, m.groupdict()
        return None

    def text(self, english: str | None) -> str | None:
        """An English text of the table as the dealer reads it in this language."""
        if self.english or not english:
            return english
        said = self._cache.get(english)
        if said is None:
            said = self._translate(english, 0)
            if len(self._cache) >= CACHED:
                self._cache.clear()
            self._cache[english] = said
        return said

    def _translate(self, english: str, depth: int) -> str:
        found = self.match(english) if depth < DEPTH else None
        if found is None:
            return english
        msgid, values = found
        if not values:
            return self.gettext(msgid)
        return self.gettext(msgid).format(**{name: self._value(name, value, depth) for name, value in values.items()})

    def _value(self, name: str, value: str, depth: int) -> str:
        if name == "positions":
            return value.replace(" and ", f" {self.gettext('and')} ")
        return value if name in KEPT else self._translate(value, depth + 1)

    # --- what the page shows -------------------------------------------------------------------

    def words_script(self) -> str:
        """``/words.js``: the page's language and every word of the catalogue, read by static/page.js."""
        catalogue = getattr(self.catalogue, "_catalog", {})     # GNUTranslations' own: id -> translation
        words = {k: v for k, v in catalogue.items() if isinstance(k, str) and k}
        return (f"// The dealer page's words in {self.language!r}, from its catalogue (controller/page/i18n.py)\n"
                f'"use strict";\nconst LANGUAGE = {json.dumps(self.language)};\n'
                f"const WORDS = {json.dumps(words, ensure_ascii=False, sort_keys=True)};\n")

    def snapshot(self, snap: dict[str, Any]) -> dict[str, Any]:
        """The snapshot with every text the dealer reads in this language (a new dict; the engine's
        is never changed: it is shared by every reader)."""
        if self.english:
            return snap
        t = self.text
        out = dict(snap, prompt=[t(x) for x in snap["prompt"]], holds=[t(x) for x in snap["holds"]],
                   alerts=[dict(a, message=t(a["message"])) for a in snap["alerts"]],
                   positions=[self._position(p) for p in snap["positions"]],
                   dealer=dict(snap["dealer"], announcement=t(snap["dealer"]["announcement"]),
                               hand=t(snap["dealer"].get("hand"))),
                   void_reason=t(snap.get("void_reason")),
                   devices={role: dict(d, detail=t(d["detail"])) for role, d in snap["devices"].items()})
        if snap.get("jackpot"):
            out["jackpot"] = dict(snap["jackpot"], super6_closed=t(snap["jackpot"].get("super6_closed")))
        if snap.get("halted"):
            out["halted"] = t(snap["halted"])
        for key in ("jackpot_pending", "jackpot_claims"):      # a linked hit's floor status
            if snap.get(key):
                out[key] = [dict(h, floor=t(h["floor"])) if h.get("floor") else h for h in snap[key]]
        return out

    def _position(self, p: dict[str, Any]) -> dict[str, Any]:
        t = self.text
        out = dict(p, flags={spot: t(why) for spot, why in p["flags"].items()},
                   problems=[t(m) for m in p.get("problems", [])], returns=[t(m) for m in p.get("returns", [])],
                   hand=t(p.get("hand")),
                   six_card_hand=t(p.get("six_card_hand")))
        if p.get("settlement"):
            out["settlement"] = dict(p["settlement"], lines=[t(x) for x in p["settlement"]["lines"]],
                                     total=t(p["settlement"].get("total")))
        return out

    def recalled(self, doc: dict[str, Any]) -> dict[str, Any]:
        """A recalled round (as the table shows it) with its notes in this language."""
        if self.english:
            return doc
        t = self.text
        table = doc["table"]
        out = dict(doc, table=dict(table, void_reason=t(table.get("void_reason")),
                                   announcement=t(table.get("announcement")),
                                   hands={p: t(h) for p, h in (table.get("hands") or {}).items()},
                                   six_card_hands={p: t(h) for p, h in (table.get("six_card_hands") or {}).items()},
                                   alerts=[dict(a, message=t(a["message"])) for a in table.get("alerts") or []]))
        if "hidden" in doc:
            out["hidden"] = t(doc["hidden"])
        return out
