"""Logging set-up: structlog as JSON lines in production, a readable console in development.

Owns the one place where structlog is configured. Every entry carries a
timestamp (UTC, ISO 8601) and level; the table engine binds table, round,
position and state to what it logs, the drivers bind device and URL.
Standard-library loggers (transitions, the web server) are routed through
the same renderer so one stream holds everything. Under systemd each line
carries its journald priority (controller/app/journald.py).
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO, cast

import structlog
from structlog.typing import EventDict, Processor, WrappedLogger

from controller.app import journald
from controller.store.anchors import ANCHOR

# The trail's own entries: one per committed event (controller/store/anchors.py), for the audit
# trail and its checks, not for a technician reading journalctl. The console shows them at debug.
TRAIL_ONLY = frozenset({ANCHOR})

LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
          "error": logging.ERROR}


def configure(fmt: str = "json", level: str = "info", stream: TextIO | None = None,
              audit: Processor | None = None) -> None:
    """``fmt`` is "json" (production) or "console" (development); ``audit`` an AuditTrail that
    receives every entry, whatever the console shows."""
    stream = stream or cast(TextIO, _CurrentStderr())      # it has the write, flush and isatty loggers use
    shared: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: Processor = (structlog.processors.JSONRenderer(sort_keys=False) if fmt == "json"
                else structlog.dev.ConsoleRenderer(colors=stream.isatty()))
    if journald.under_journald(sys.stderr if isinstance(stream, _CurrentStderr) else stream):
        renderer = journald.prefixed(renderer)      # journalctl -p warning finds warnings and errors
    global _console_level
    _console_level = LEVELS[level]
    if audit is not None:
        global _settings
        _settings = (fmt, level, stream)
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, *([audit] if audit else []),
                    _below(LEVELS[level]), renderer],
        # the audit trail keeps info and above whatever the console shows
        wrapper_class=structlog.make_filtering_bound_logger(min(LEVELS[level], logging.INFO) if audit
                                                            else LEVELS[level]),
        logger_factory=structlog.PrintLoggerFactory(stream),
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(stream)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        foreign_pre_chain=[structlog.stdlib.add_logger_name, *shared]))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(LEVELS[level])
    logging.getLogger("transitions").setLevel(logging.WARNING)   # we log transitions ourselves


def _below(console_level: int) -> Processor:
    """Drops entries under the console's level after the audit trail has kept them, and the
    trail's own entries unless the console shows debug."""
    def processor(logger: WrappedLogger, method_name: str, event_dict: EventDict) -> EventDict:
        if LEVELS.get(event_dict.get("level", "info"), logging.INFO) < console_level or \
                (console_level > logging.DEBUG and event_dict.get("event") in TRAIL_ONLY):
            raise structlog.DropEvent
        return event_dict
    return processor


_settings: tuple[str, str, TextIO] | None = None
_console_level = logging.INFO


def console_debug() -> bool:
    """Whether the console shows debug entries (the trail's own lines among them)."""
    return _console_level <= logging.DEBUG


def detach_audit() -> None:
    """Stop sending entries to an audit trail that is being closed (same console as before)."""
    if _settings is not None:
        configure(*_settings)


class _CurrentStderr:
    """Whatever ``sys.stderr`` is when a line is written (test runners swap it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()

    def isatty(self) -> bool:
        return sys.stderr.isatty()
