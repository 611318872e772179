"""Log lines that systemd's journal files under their priority: ``<N>`` before each line.

Owns recognising that standard error is the journal's stream and the prefixes.
systemd sets ``JOURNAL_STREAM=DEVICE:INODE`` for a service whose output goes to
the journal; when that names the stream the controller writes to, each line is
begun with its syslog priority (``<3>`` error, ``<4>`` warning, ``<6>`` info,
``<7>`` debug), which journald reads and strips (``SyslogLevelPrefix=yes`` in the
unit, systemd's default), so ``journalctl -u table-controller -p warning`` shows
the warnings and errors. Anywhere else (a terminal, a pipe to ``jq``, a test)
nothing is added: the JSON lines stay clean for tools.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from structlog.typing import EventDict, Processor, WrappedLogger

PRIORITY = {"critical": 2, "exception": 3, "error": 3, "warning": 4, "warn": 4, "info": 6, "debug": 7}


def under_journald(stream: Any, environ: Mapping[str, str] = os.environ) -> bool:
    """Whether ``stream`` (a file object with a descriptor) is the journal's stream."""
    expected = environ.get("JOURNAL_STREAM", "")
    if ":" not in expected:
        return False
    try:
        st = os.fstat(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return False
    return expected == f"{st.st_dev}:{st.st_ino}"


def prefixed(renderer: Processor) -> Processor:
    """``renderer``, its line begun with the entry's syslog priority."""
    def render(logger: WrappedLogger, method_name: str, event_dict: EventDict) -> str:
        level = str(event_dict.get("level", method_name)).lower()
        line = renderer(logger, method_name, event_dict)
        text = line.decode() if isinstance(line, bytes | bytearray) else str(line)
        return f"<{PRIORITY.get(level, 6)}>{text}"
    return render
