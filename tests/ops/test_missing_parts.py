"""A part installed separately and missing anyway: each console script says in one sentence what is
missing and how to install it, with exit status 2, never a traceback."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# Runs a console script's main with the named modules made unimportable (as in an environment
# made by hand without them): a meta-path finder that refuses them.
HIDE = textwrap.dedent("""
    import sys
    class Hide:
        def find_spec(self, name, path=None, target=None):
            if name in {hidden!r} or name.partition(".")[0] in {hidden!r}:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
    sys.meta_path.insert(0, Hide())
    sys.argv = ["prog", *{argv!r}]
    from controller import installed
    sys.exit(getattr(installed, {script!r})())
""")


def _run(module: str, argv: list[str], hidden: set[str]) -> subprocess.CompletedProcess:
    code = HIDE.format(hidden=hidden, script=module, argv=argv)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("module, argv, hidden, words", [
    ("table_floor", ["hits", "--dsn", "host=/nowhere"], {"psycopg"}, "the floor's PostgreSQL driver"),
    ("table_floor", ["--help"], {"psycopg"}, "the floor's PostgreSQL driver"),
    ("table_controller", ["par-sheet", "--preset", "sheet-002"], {"numpy"}, "the par sheet's arithmetic (numpy)"),
    ("table_controller", ["presets"], {"controller.rules"}, "the program's own module controller.rules is missing"),
])
def test_a_missing_library_is_one_sentence_not_a_traceback(module, argv, hidden, words):
    out = _run(module, argv, hidden)
    assert "Traceback" not in out.stderr, out.stderr
    assert out.returncode == 2
    [line] = out.stderr.strip().splitlines()
    assert words in line and "install requirements.lock" in line
