# Sourced by scripts/run-table and scripts/run-tests: makes sure .venv exists with
# the project installed (editable) and the extras asked for, installing Debian's
# venv support first when a bare Debian Python lacks it. Re-installs only when
# pyproject.toml or the extras changed, so later runs start at once.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${TABLE_VENV:-$ROOT/.venv}"
EXTRAS="${1:-}"

find_python() {
    for py in python3.13 python3.12 python3.11 python3; do
        if command -v "$py" >/dev/null 2>&1 &&
           "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            command -v "$py"; return 0
        fi
    done
    echo "bootstrap: Python 3.11 or newer is required (apt-get install python3)" >&2
    return 1
}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if [ ! -x "$VENV/bin/python" ]; then
    PY="$(find_python)"
    if ! "$PY" -m venv "$VENV" >/dev/null 2>&1; then
        # Debian splits venv/ensurepip into python3-venv (python3.X-venv).
        echo "bootstrap: installing Debian's python3-venv" >&2
        rm -rf "$VENV"
        ver="$("$PY" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
        as_root apt-get update -qq
        as_root apt-get install -y -qq python3-venv "python${ver}-venv" >/dev/null 2>&1 ||
            as_root apt-get install -y -qq python3-venv
        "$PY" -m venv "$VENV"
    fi
fi

STAMP="$VENV/.installed-$(echo "${EXTRAS:-base}" | tr ',' '-')"
WANT="$(cat "$ROOT/pyproject.toml" | sha256sum | cut -c1-16)"
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$WANT" ]; then
    echo "bootstrap: installing the project into $VENV${EXTRAS:+ with [$EXTRAS]}" >&2
    LOG="$VENV/install.log"
    target="$ROOT${EXTRAS:+[$EXTRAS]}"
    if ! { "$VENV/bin/python" -m pip install -q --upgrade pip &&
           "$VENV/bin/python" -m pip install -q -e "$target"; } >"$LOG" 2>&1; then
        cat "$LOG" >&2
        echo "bootstrap: installing $target failed (log above, kept in $LOG)" >&2
        exit 1
    fi
    echo "$WANT" > "$STAMP"
fi
export PATH="$VENV/bin:$PATH"
