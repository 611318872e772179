#!/usr/bin/env python3
"""The dealer page's message catalogue: extract the words, update each language's .po, compile its .mo.

    .venv/bin/python scripts/catalogue.py           # after changing a word: then translate the new
                                                    # entries the .po lists untranslated, and run it again
    .venv/bin/python scripts/catalogue.py --check   # exit 1 unless the catalogue is complete and compiled

Where the words are (controller/page/i18n.py tells how they are used):
- static/index.html and static/report.html: the text of each element marked ``data-t`` (whitespace runs as one space)
  and each attribute ATTR of an element marked ``data-t-ATTR``;
- static/*.js: ``t("...")`` and ``tc("context", "...")``, a string literal first (read here: Babel's
  JavaScript extractor misses calls inside template literals, where the page makes its HTML);
- controller/page/messages.py: ``N_("...")``, the table's messages as ids with placeholders
  (Babel's Python extractor); controller/page/report_page.py: ``tr("...")``, the report's own words.

Babel writes the .po (sorted, no dates that change by themselves) and compiles the .mo, so a
machine without gettext's msgfmt (CI) makes and checks the same files. Both are committed: the
.mo is what the table PC reads (stdlib gettext), and ``--check`` (and tests/page/test_catalogue.py)
holds it to the .po.
"""

from __future__ import annotations

import argparse
import gettext
import io
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "controller" / "page"
LOCALE = PAGE / "locale"
LANGUAGES = ("es",)                     # English is the ids themselves
DOMAIN = "dealer"
STRING = r'"(?:[^"\\]|\\.)*"'
JS_CALL = re.compile(rf"\b(t|tc)\(\s*({STRING})(?:\s*,\s*({STRING}))?")
ATTRIBUTES = ("title", "placeholder", "aria-label")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

Ids = dict[tuple[str, str | None], list[tuple[str, int]]]       # (id, context) -> where


class _Marked(HTMLParser):
    """The words of an HTML file marked data-t / data-t-ATTR, with their lines."""

    def __init__(self, name: str, ids: Ids) -> None:
        super().__init__(convert_charrefs=True)
        self.name, self.ids = name, ids
        self.stack: list[bool] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        for attr in ATTRIBUTES:
            if f"data-t-{attr}" in names and names.get(attr):
                self.ids.setdefault((" ".join(str(names[attr]).split()), None), []).append(
                    (self.name, self.getpos()[0]))
        if tag not in VOID:
            self.stack.append("data-t" in names)

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1] and data.strip():
            self.ids.setdefault((" ".join(data.split()), None), []).append((self.name, self.getpos()[0]))


def extracted() -> Ids:
    """Every word of the page and every message id of the table, with where each is."""
    ids: Ids = {}
    for html in sorted((PAGE / "static").glob("*.html")):
        if html.name in ("index.html", "report.html"):      # the dealer's page, the supervisor's report
            _Marked(f"static/{html.name}", ids).feed(html.read_text(encoding="utf-8"))
    for script in sorted((PAGE / "static").glob("*.js")):
        text = script.read_text(encoding="utf-8")
        for m in JS_CALL.finditer(text):
            context, word = (json.loads(m.group(2)), json.loads(m.group(3))) if m.group(1) == "tc" \
                else (None, json.loads(m.group(2)))
            ids.setdefault((word, context), []).append((f"static/{script.name}", text.count("\n", 0, m.start()) + 1))
    with (PAGE / "messages.py").open("rb") as f:
        for line, message, _comments, _context in extract("python", f, keywords={"N_": None}, comment_tags=()):
            ids.setdefault((str(message), None), []).append(("messages.py", line))
    with (PAGE / "report_page.py").open("rb") as f:
        for line, message, _comments, _context in extract("python", f, keywords={"tr": None}, comment_tags=()):
            ids.setdefault((str(message), None), []).append(("report_page.py", line))
    return ids


def po_path(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def read(language: str) -> Catalog:
    path = po_path(language)
    if not path.exists():
        return Catalog(locale=language, domain=DOMAIN, project="three-card-table")
    with path.open("rb") as f:
        return read_po(f, locale=language, domain=DOMAIN)


def updated(language: str, ids: Ids) -> Catalog:
    """The language's catalogue with exactly the extracted ids: new ones untranslated, gone ones dropped."""
    old = read(language)
    new = Catalog(locale=language, domain=DOMAIN, project="three-card-table", version="",
                  copyright_holder="", msgid_bugs_address="", fuzzy=False,
                  creation_date=old.creation_date, revision_date=old.revision_date)
    new.language_team = "Spanish (casino floor)" if language == "es" else language
    new.header_comment = (f"# The dealer page's words in {language!r}: translate each msgstr here, then run\n"
                          "# scripts/catalogue.py (it updates this file from the page and the table's messages,\n"
                          "# and compiles the .mo beside it). Placeholders {name} stay as they are.")
    for (text, context), where in sorted(ids.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        before = old.get(text, context=context)
        new.add(text, before.string if before and not before.fuzzy else "", locations=sorted(set(where)),
                context=context)
    return new


def compiled(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def mo_path(language: str) -> Path:
    return po_path(language).with_suffix(".mo")


def problems(language: str, ids: Ids) -> list[str]:
    """What keeps the committed catalogue of ``language`` from being complete and compiled."""
    found = []
    catalog = read(language)
    have = {(m.id, m.context) for m in catalog if m.id}
    want = set(ids)
    found += [f"{language}: not in the .po (run scripts/catalogue.py): {i!r}" for i, _ in sorted(want - have,
                                                                                                key=str)]
    found += [f"{language}: in the .po but no longer used: {i!r}" for i, _ in sorted(have - want, key=str)]
    found += [f"{language}: untranslated: {m.id!r}" for m in catalog if m.id and (not m.string or m.fuzzy)]
    found += [f"{language}: {m.id!r}: the translation's placeholders differ" for m in catalog
              if m.id and m.string and placeholders(str(m.id)) != placeholders(str(m.string))]
    mo = mo_path(language)
    if not mo.exists():
        found.append(f"{language}: {mo.name} is missing (run scripts/catalogue.py)")
    elif _entries(mo.read_bytes()) != _entries(compiled(catalog)):
        found.append(f"{language}: {mo.name} is not the .po compiled (run scripts/catalogue.py)")
    return found


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


# The header fields gettext acts on; the rest (Generated-By, the dates) say which compiler made the
# file and when, and a newer Babel writing other words there changes no message.
MEANINGFUL_HEADER = ("language", "content-type", "plural-forms")


def _entries(mo: bytes) -> dict:
    """A compiled catalogue by what it means: its messages, and the header fields gettext reads."""
    entries = dict(getattr(gettext.GNUTranslations(io.BytesIO(mo)), "_catalog", {}))
    header = entries.pop("", "")
    fields = dict(line.split(":", 1) for line in header.splitlines() if ":" in line)
    entries[""] = {k.strip().lower(): v.strip() for k, v in fields.items() if k.strip().lower() in MEANINGFUL_HEADER}
    return entries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 unless complete and compiled")
    args = parser.parse_args(argv)
    ids = extracted()
    if args.check:
        found = [p for language in LANGUAGES for p in problems(language, ids)]
        for p in found:
            print(f"catalogue: {p}", file=sys.stderr)
        print(f"catalogue: {len(ids)} ids; {'complete' if not found else f'{len(found)} problems'}", file=sys.stderr)
        return 1 if found else 0
    for language in LANGUAGES:
        catalog = updated(language, ids)
        path = po_path(language)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            write_po(f, catalog, width=100, sort_output=True, omit_header=False, include_previous=False)
        catalog = read(language)                 # as written: what the .mo must be
        mo_path(language).write_bytes(compiled(catalog))
        missing = [m.id for m in catalog if m.id and not m.string]
        print(f"catalogue: {language}: {len(ids)} ids, {len(missing)} untranslated", file=sys.stderr)
        for m in missing:
            print(f"  {m!r}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
