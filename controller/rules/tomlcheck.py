"""Validation helpers for TOML files people edit by hand (pay tables, table configuration).

Owns the wording of refusals: every error names the file, the dotted key
and, where it can be found, the line. ``tomllib`` keeps no positions, so the
line is found by a best-effort scan of the text; when the scan cannot find
it the message names file and key without a line.

A checker raises on the first problem, unless made with ``collect=True``:
then each ``problem`` and each refusal raised inside a ``part`` (a key or a
section whose check does not depend on the others) is kept, the rest of the
file is still checked, and ``finish`` raises one error listing every
problem, one per line, in the order found (the first line is the message the
first problem alone would have raised).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def read_file(path: Path, error: type[Exception]) -> str:
    """A hand-edited file's text; ``error`` names the file when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as err:
        raise error(f"{path}: cannot read: {err.strerror or err}") from None


class TomlChecker:
    """Walks a parsed TOML document, raising ``error`` naming file, key and line."""

    error: type[Exception] = ValueError

    def __init__(self, text: str, source: str, *, collect: bool = False):
        self.lines = text.splitlines()
        self.source = source
        self.collect = collect
        self.problems: list[str] = []

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
        """Best-effort line of a dotted key: the key under its [table], else the table."""
        parts = dotted.split(".")
        leaf = re.sub(r"\[\d+\]$", "", parts[-1])
        table = ".".join(re.sub(r"\[\d+\]$", "", p) for p in parts[:-1])
        current = ""
        table_line = None
        for number, raw in enumerate(self.lines, 1):
            line = raw.split("#", 1)[0].strip()
            header = re.fullmatch(r"\[\[?\s*([^\]]+?)\s*\]\]?", line)
            if header:
                current = header.group(1)
                if current == dotted or current == table:
                    table_line = table_line or number
                continue
            if current == table and re.match(rf"{re.escape(leaf)}\s*=", line):
                return number
            if table and current == table.split(".")[0] and re.match(
                    rf"{re.escape(table.split('.')[-1])}\s*=.*\b{re.escape(leaf)}\b", line):
                return number
            if not table and current == "" and re.match(rf"{re.escape(leaf)}\s*=", line):
                return number
        return table_line

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

    def text(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, "must be non-empty text")
        return value
