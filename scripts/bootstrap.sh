# Sourced by scripts/run-table, scripts/run-tests and scripts/lint: makes sure .venv holds exactly
# requirements.lock (every pin, hash-checked, nothing else) and the project itself, installing
# Debian's venv support first when a bare Debian Python lacks it. A developer's .venv, CI's and a
# fresh clone's are then the same versions: pip never resolves anything here. Re-installs only
# when the lock or pyproject.toml changed, so later runs start at once.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${TABLE_VENV:-$ROOT/.venv}"

find_python() {
    # 3.11 is the interpreter the project is built for (Debian 12); a newer one when it is all there is
    for py in python3.11 python3.12 python3.13 python3; do
        if command -v "$py" >/dev/null 2>&1 &&
           "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            command -v "$py"; return 0
        fi
    done
    echo "bootstrap: Python 3.11 or newer is required (apt-get install python3)" >&2
    return 1
}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

PY="$(find_python)"
# a lock resolved from other dependency lists than pyproject.toml's is refused, in one sentence
"$PY" "$ROOT/scripts/lockfile.py" check || { echo "bootstrap: stopped, nothing installed" >&2; exit 1; }

if [ ! -x "$VENV/bin/python" ]; then
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

STAMP="$VENV/.installed-lock"
WANT="$(cat "$ROOT/requirements.lock" "$ROOT/pyproject.toml" | sha256sum | cut -c1-16)"
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$WANT" ]; then
    echo "bootstrap: installing requirements.lock and the project into $VENV" >&2
    LOG="$VENV/install.log"
    rm -f "$STAMP" "$VENV"/.installed-*            # an install cut short is redone next time
    # 1. exactly the lock: every file's hash checked, no resolution, wheels only (the lock's own pip
    #    replaces the venv's); 2. the project, editable, built by the lock's setuptools (no isolated
    #    build environment that would fetch a build backend of whatever version); 3. anything else
    #    (an older install's leftovers) removed, so the environment is the lock and nothing more
    if ! { "$VENV/bin/python" -m pip install --quiet --require-hashes --no-deps --only-binary :all: \
               -r "$ROOT/requirements.lock" &&
           "$VENV/bin/python" -m pip install --quiet --no-deps --no-build-isolation -e "$ROOT" &&
           strays="$("$PY" "$ROOT/scripts/lockfile.py" strays "$VENV/bin/python")" &&
           { [ -z "$strays" ] || "$VENV/bin/python" -m pip uninstall --quiet -y $strays; }
         } >"$LOG" 2>&1; then
        cat "$LOG" >&2
        echo "bootstrap: installing requirements.lock failed (log above, kept in $LOG)" >&2
        exit 1
    fi
    echo "$WANT" > "$STAMP"
fi
export PATH="$VENV/bin:$PATH"
