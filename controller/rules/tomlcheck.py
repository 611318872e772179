"""Validation helpers for TOML files people edit by hand (pay tables, table configuration).

Owns the wording of refusals: every error names the file, the dotted key
and, where it can be found, the line. ``tomllib`` keeps no positions, so the
line is found by a best-effort scan of the text; when the scan cannot find
it the message names file and key without a line. A file that is not TOML
at all is refused by ``loads`` naming the line tomllib names, and for a key
given twice that key and both its lines.

A checker raises on the first problem, unless made with ``collect=True``:
then each ``problem`` and each refusal raised inside a ``part`` (a key or a
section whose check does not depend on the others) is kept, the rest of the
file is still checked, and ``finish`` raises one error listing every
problem, one per line, in the order found (the first line is the message the
first problem alone would have raised).
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.rules.words import money

_KEY = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_DOTTED = rf"{_KEY}(?:\s*\.\s*{_KEY})*"
_HEADER = re.compile(rf"\s*(\[\[?)\s*({_DOTTED})\s*\]\]?\s*(?:#.*)?")
_ASSIGN = re.compile(rf"\s*({_DOTTED})\s*=")
_WHERE = re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)$")
_TWICE = re.compile(r"Cannot declare (\(.*\)) twice")
_INLINE_TWICE = re.compile(r"Duplicate inline table key '(.*)'")
_FROZEN = re.compile(r"Cannot mutate immutable namespace (\(.*\))")


def read_file(path: Path, error: type[Exception]) -> str:
    """A hand-edited file's text; ``error`` names the file when it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise error(f"{path}: cannot read: {err.strerror or err}") from None
    except UnicodeDecodeError as err:       # a file saved in another encoding: it was a traceback
        line = path.read_bytes()[:err.start].count(b"\n") + 1
        raise error(f"{path}, line {line}: not UTF-8 text (byte {err.object[err.start]:#04x}): save the file "
                    "as UTF-8") from None
    if text.startswith("\ufeff"):            # a byte order mark, as some Windows editors write: TOML has none
        raise error(f"{path}, line 1: begins with a byte order mark (BOM): save the file as UTF-8 without BOM")
    return text


def loads(text: str, source: str, error: type[Exception]) -> dict[str, Any]:
    """The parsed document, or ``error`` naming the file and line, and for a key given twice
    ``"FILE, line N: key 'K': duplicate key (first given on line M)"``."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise error(_decode_error(str(err), text, source)) from None


def _decode_error(message: str, text: str, source: str) -> str:
    where = _WHERE.search(message)
    what = message[:where.start()] if where else message
    line = int(where.group(1)) if where and where.group(1) else None
    statements = list(_statements(text.splitlines()))
    twice, inline, frozen = _TWICE.match(what), _INLINE_TWICE.match(what), _FROZEN.match(what)
    if twice and line:
        path = _tuple(twice.group(1))
        first = next((n for p, n, _ in statements if p[:len(path)] == path and n < line), None)
        also = f" (first given on line {first})" if first else ""
        return f"{source}, line {line}: key '{'.'.join(path)}': duplicate table{also}"
    if inline and line:
        owner = next((p for p, n, kind in statements if n == line and kind == "key"), ())
        return f"{source}, line {line}: key '{'.'.join((*owner, inline.group(1)))}': duplicate key " \
            "in an inline table"
    if frozen and line:
        return f"{source}, line {line}: key '{'.'.join(_tuple(frozen.group(1)))}': an inline table " \
            "cannot be given more keys elsewhere"
    duplicate = _first_duplicate(statements)
    if what.startswith("Cannot overwrite a value") and duplicate:
        path, at, first = duplicate
        return f"{source}, line {at}: key '{'.'.join(path)}': duplicate key (first given on line {first})"
    column = f" (column {where.group(2)})" if where and where.group(2) else ""
    place = f"{source}, line {line}" if line else source
    return f"{place}: not valid TOML: {what}{column}"


def _tuple(text: str) -> tuple[str, ...]:
    """A key path as tomllib prints it, ``('t', 'x')``."""
    try:
        parts = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return (text,)
    return tuple(str(part) for part in parts) if isinstance(parts, tuple) else (str(parts),)


def _path(dotted: str) -> tuple[str, ...]:
    return tuple(part[1:-1] if part[0] in "\"'" else part for part in re.findall(_KEY, dotted))


def _statements(lines: list[str]) -> Iterator[tuple[tuple[str, ...], int, str]]:
    """Each header and ``key =`` line: its full path, line and kind ("table", "array", "key").
    A scan, not a parser: a value spread over lines never counts as a statement."""
    current: tuple[str, ...] = ()
    for number, raw in enumerate(lines, 1):
        header = _HEADER.fullmatch(raw)
        if header:
            current = _path(header.group(2))
            yield current, number, "array" if header.group(1) == "[[" else "table"
            continue
        assign = _ASSIGN.match(raw)
        if assign:
            yield current + _path(assign.group(1)), number, "key"


def _first_duplicate(statements: list[tuple[tuple[str, ...], int, str]]) -> tuple[tuple[str, ...], int, int] | None:
    """The first key or table given twice: its path, its second line and its first line."""
    seen: dict[tuple[str, ...], int] = {}
    for path, number, kind in statements:
        if kind == "array":                    # a new element: its keys start afresh
            for old in [p for p in seen if p[:len(path)] == path and len(p) > len(path)]:
                del seen[old]
            continue
        if path in seen:
            return path, number, seen[path]
        seen[path] = number
    return None


@dataclass(frozen=True)
class Ceiling:
    """The most a whole number may be: ``most``, unless the file says the house overrides
    ceilings, and never more than ``absolute``; ``why`` says where ``most`` comes from."""
    most: int
    absolute: int
    unit: str                 # "odds" (read X to 1) or "cents"
    why: str

    def say(self, value: int) -> str:
        return f"{value} to 1" if self.unit == "odds" else f"{value} cents ({money(value)})"


class TomlChecker:
    """Walks a parsed TOML document, raising ``error`` naming file, key and line."""

    error: type[Exception] = ValueError

    def __init__(self, text: str, source: str, *, collect: bool = False):
        self.lines = text.splitlines()
        self.source = source
        self.collect = collect
        self.problems: list[str] = []
        self.overrides = False            # the file says the house means values above a ceiling
        self.override = "house_overrides_ceilings = true"      # how it says so, and where

    def within(self, value: int, key: str, ceiling: Ceiling) -> int:
        """``value`` when it is at most the ceiling (or the file overrides ceilings and it is at
        most the absolute bound), else the refusal names the ceiling and how to override it."""
        if value > ceiling.absolute:
            raise self.fail(key, f"{ceiling.say(value)} is above {ceiling.say(ceiling.absolute)}, the most "
                            f"allowed even with {self.override.split(' under ')[0]}")
        if value > ceiling.most and not self.overrides:
            raise self.fail(key, f"{ceiling.say(value)} is above the ceiling of {ceiling.say(ceiling.most)} "
                            f"({ceiling.why}); if the house means it, set {self.override}")
        return value

    def fail(self, key: str, problem: str) -> Exception:
        line = self._line_of(key)
        where = f"{self.source}, line {line}" if line else self.source
        return self.error(f"{where}: key '{key}': {problem}")

    def problem(self, key: str, problem: str) -> None:
        """A problem after which the rest of the file can still be checked: kept when collecting,
        else raised."""
        err = self.fail(key, problem)
        if not self.collect:
            raise err
        self.problems.append(str(err))

    @contextmanager
    def part(self) -> Iterator[None]:
        """One independently checked part (a key, a section): when collecting, the refusal raised
        inside is kept and the check goes on after the block."""
        try:
            yield
        except self.error as err:
            if not self.collect:
                raise
            self.problems.append(str(err))

    def section(self, doc: dict[str, Any], key: str, allowed: set[str], *,
                required: bool = True) -> dict[str, Any] | None:
        """``table``, but when collecting a missing or malformed table is kept as a problem and
        None returned (its keys cannot be checked)."""
        with self.part():
            return self.table(doc, key, allowed, required=required)
        return None

    def finish(self) -> None:
        """Raise every problem kept, one per line; nothing when there was none."""
        if self.problems:
            raise self.error("\n".join(self.problems))

    def _line_of(self, dotted: str) -> int | None:
        """Best-effort line of a dotted key: the key under its [table] (under the Nth [[table]]
        for ``table[N].key``), else the table's header, else the first of its sub-tables."""
        parts = dotted.split(".")
        leaf = re.sub(r"\[\d+\]$", "", parts[-1])
        table = ".".join(re.sub(r"\[\d+\]$", "", p) for p in parts[:-1])
        index = re.search(r"\[(\d+)\]$", parts[-2] if len(parts) > 1 else "")
        element = re.search(r"\[(\d+)\]$", dotted)       # the key is itself one [[table]]
        wanted = int(index.group(1)) if index else None
        current, seen, table_line, nearby = "", -1, None, None
        for number, raw in enumerate(self.lines, 1):
            line = raw.split("#", 1)[0].strip()
            header = re.fullmatch(r"(\[\[?)\s*([^\]]+?)\s*\]\]?", line)
            if header:
                current = header.group(2)
                if header.group(1) == "[[" and current in (table, leaf if element else None):
                    seen += 1
                    if element and not table and seen == int(element.group(1)):
                        return number
                if table_line is None and (current == dotted or current == table) and \
                        (wanted is None or seen == wanted):
                    table_line = number
                if nearby is None and table and current.startswith(f"{table}."):
                    nearby = number           # a missing key's neighbours: [devices.shoe] for devices.sign
                continue
            if wanted is not None and seen != wanted:
                continue
            if current == table and re.match(rf"{re.escape(leaf)}\s*=", line):
                return number
            if table and current == table.split(".")[0] and re.match(
                    rf"{re.escape(table.split('.')[-1])}\s*=.*\b{re.escape(leaf)}\b", line):
                return number
            if not table and current == "" and re.match(rf"{re.escape(leaf)}\s*=", line):
                return number
        return table_line or nearby

    def table(self, doc: dict[str, Any], key: str, allowed: set[str], *, required: bool = True) -> dict[str, Any]:
        value = doc.get(key.split(".")[-1])
        if value is None:
            if required:
                raise self.fail(key, "missing")
            return {}
        if not isinstance(value, dict):
            raise self.fail(key, "must be a table")
        for name in value:
            if name not in allowed:
                self.problem(f"{key}.{name}", f"unknown key (allowed: {', '.join(sorted(allowed))})")
        return value

    def cents(self, value: Any, key: str, *, positive: bool = False) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"must be a whole number of cents, not {value!r}")
        if value < 0 or (positive and value == 0):
            raise self.fail(key, f"must be {'positive' if positive else 'zero or more'}, not {value}")
        return value

    def flag(self, value: Any, key: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, not {value!r}")
        return value

    def text(self, value: Any, key: str, *, longest: int = 4096) -> str:
        """Non-empty printable text (no control characters such as a tab or NUL), at most
        ``longest`` characters."""
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, "must be non-empty text")
        if not value.isprintable():
            raise self.fail(key, f"must be printable text, without control characters: {value!r}")
        if len(value) > longest:
            raise self.fail(key, f"must be at most {longest} characters, not {len(value)}")
        return value
