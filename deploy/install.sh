#!/usr/bin/env bash
# Installs the table controller on a Debian table PC. Safe to run again: it replaces the
# program and the unit, never the configuration or the udev rules a technician has edited
# (a changed shipped version is put beside them as *.new), and never the journal.
#
#   sudo deploy/install.sh                      # the real thing
#   deploy/install.sh --root /tmp/img --no-system --no-venv   # into a directory (tests, images)
#
# The program and its dependencies come from the wheelhouse (wheelhouse/ beside deploy/, made by
# scripts/build-wheelhouse) when there is one: no network at all, the versions and SHA-256 of
# requirements.lock's table block (--require-hashes), the program's own wheel as listed in SHA256SUMS.
# Without a wheelhouse they come from the package index, still pinned and hash-checked by the lock.
#
# Options:
#   --root DIR       install under DIR instead of / (implies --no-system)
#   --no-system      do not create the user, reload systemd/udev, enable the service or apt-get
#   --no-venv        do not create the virtual environment (the program files are still copied)
#   --wheelhouse DIR the wheels to install from (default: wheelhouse/ beside deploy/, if present)
# Lays out:
#   /opt/table-controller/{src,venv,docs,deploy}   program, its environment, the technician's docs
#   /etc/table-controller/table.toml               configuration (from deploy/table.example.toml)
#   /etc/systemd/system/table-controller.service   the service
#   /etc/systemd/system/table-controller-backup.{service,timer}   the daily checked backup
#   /etc/udev/rules.d/70-table-controller.rules    stable device names and permissions
#   /etc/xdg/autostart/table-kiosk.desktop         the dealer's page full screen at log-in, as
#   /etc/systemd/user/table-kiosk.service          a user service restarted when the browser dies
#   /var/lib/table-controller, /var/log/table-controller   journal and PINs, audit trail
#   /var/backups/table-controller                  the backups (docs/deploy.md, "Backups")
set -euo pipefail

SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT=/
SYSTEM=1
VENV=1
WHEELHOUSE="$SOURCE/wheelhouse"
while [ $# -gt 0 ]; do
    case "$1" in
        --root) ROOT="$2"; SYSTEM=0; shift 2 ;;
        --no-system) SYSTEM=0; shift ;;
        --no-venv) VENV=0; shift ;;
        --wheelhouse) WHEELHOUSE="$2"; shift 2 ;;
        -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
        *) echo "install: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
ROOT="${ROOT%/}"
USER_NAME=table-controller
OPT="$ROOT/opt/table-controller"

say() { echo "install: $*"; }

# put FILE at DEST with MODE; a DEST the technician may have edited is kept (KEEP=1) and the
# shipped version goes beside it as DEST.new when they differ
place() {
    local file="$1" dest="$2" mode="$3" keep="${4:-0}"
    mkdir -p "$(dirname "$dest")"
    if [ "$keep" = 1 ] && [ -e "$dest" ]; then
        if ! cmp -s "$file" "$dest"; then
            install -m "$mode" "$file" "$dest.new"
            say "kept $dest (edited here); the shipped version is $dest.new"
        fi
        return
    fi
    install -m "$mode" "$file" "$dest"
}

if [ "$SYSTEM" = 1 ]; then
    # An upgrade under a running table would mix the old program with the new (Python reads a module
    # when first needed, and the install replaces them under it): the table is stopped between rounds first.
    if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet table-controller.service; then
        echo "install: the table is running (table-controller.service): stop it between rounds with" \
             "'sudo systemctl stop table-controller', run the install again, then start it; nothing changed" >&2
        exit 1
    fi
    [ "$(id -u)" = 0 ] || { echo "install: run as root (sudo), or give --root DIR" >&2; exit 1; }
    missing=""
    for package in python3-venv chromium curl; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
            missing="$missing $package"
    done
    if [ -n "$missing" ] && command -v apt-get >/dev/null 2>&1; then   # none asked for when present: offline
        say "Debian packages:$missing"
        # a fresh machine's package lists may be empty; offline, the lists as they are
        apt-get update -qq >/dev/null 2>&1 || say "apt-get update failed (no network?): the package lists as they are"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    fi
    if ! id "$USER_NAME" >/dev/null 2>&1; then
        say "user $USER_NAME (groups dialout, plugdev)"
        getent group plugdev >/dev/null || groupadd --system plugdev
        useradd --system --home-dir /var/lib/table-controller --no-create-home \
            --shell /usr/sbin/nologin --user-group --groups dialout,plugdev "$USER_NAME"
    fi
fi

say "program into $OPT"
mkdir -p "$OPT"
rm -rf "$OPT/src.tmp"
mkdir -p "$OPT/src.tmp"
( cd "$SOURCE" && tar -cf - --exclude=.git --exclude=.venv --exclude='*.egg-info' --exclude=__pycache__ \
    --exclude=table-data --exclude=tests --exclude=benchmarks pyproject.toml README.md requirements.lock \
    controller drivers simulators docs deploy ) | tar -xf - -C "$OPT/src.tmp"
rm -rf "$OPT/src" && mv "$OPT/src.tmp" "$OPT/src"
rm -rf "$OPT/docs" "$OPT/deploy"
cp -r "$OPT/src/docs" "$OPT/docs"
cp -r "$OPT/src/deploy" "$OPT/deploy"
chmod 0755 "$OPT/deploy/kiosk/table-kiosk"

if [ "$VENV" = 1 ]; then
    say "virtual environment $OPT/venv"
    [ -x "$OPT/venv/bin/python" ] || python3 -m venv "$OPT/venv"
    # the table's block of the one lock (scripts/lockfile.py): the program's and the floor's
    # dependencies, without the development tools a table PC never runs
    python3 "$SOURCE/scripts/lockfile.py" table "$SOURCE/requirements.lock" > "$OPT/requirements-table.lock"
    if [ -f "$WHEELHOUSE/SHA256SUMS" ]; then
        say "from the wheelhouse $WHEELHOUSE (no network)"
        ( cd "$WHEELHOUSE" && sha256sum --check --quiet --strict SHA256SUMS ) ||
            { echo "install: a wheel in $WHEELHOUSE is not the one built (SHA256SUMS above)" >&2; exit 1; }
        program="$(awk '$2 ~ /^three_card_table-.*\.whl$/ {print $2}' "$WHEELHOUSE/SHA256SUMS")"
        [ "$(echo "$program" | wc -w)" = 1 ] ||
            { echo "install: $WHEELHOUSE/SHA256SUMS lists no single program wheel" >&2; exit 1; }
        # only the wheelhouse: no configuration file or PIP_* variable may add an index
        PIP_CONFIG_FILE=/dev/null "$OPT/venv/bin/python" -m pip --isolated install -q --no-index \
            --find-links "$WHEELHOUSE" --only-binary=:all: --require-hashes -r "$OPT/requirements-table.lock"
        # the program at the same version is replaced too (a fix without a version bump)
        PIP_CONFIG_FILE=/dev/null "$OPT/venv/bin/python" -m pip --isolated install -q --no-index --no-deps \
            --force-reinstall "$WHEELHOUSE/$program"
    else
        say "no wheelhouse: from the package index, pinned by requirements.lock (needs the network)"
        "$OPT/venv/bin/python" -m pip install -q --only-binary=:all: --require-hashes -r "$OPT/requirements-table.lock"
        "$OPT/venv/bin/python" -m pip install -q --no-deps --force-reinstall "$OPT/src"
    fi
    "$OPT/venv/bin/python" -m pip check -q >/dev/null ||
        { "$OPT/venv/bin/python" -m pip check >&2; exit 1; }
    "$OPT/venv/bin/table-controller" verify-install >/dev/null ||
        { echo "install: the installed program does not verify against its manifest" >&2; exit 1; }
    say "$("$OPT/venv/bin/table-controller" --version | tr '\n' ' ')"
fi

place "$SOURCE/deploy/table.example.toml" "$ROOT/etc/table-controller/table.toml" 0640 1
for unit in table-controller.service table-controller-backup.service table-controller-backup.timer; do
    place "$SOURCE/deploy/systemd/$unit" "$ROOT/etc/systemd/system/$unit" 0644
done
place "$SOURCE/deploy/udev/70-table-controller.rules" "$ROOT/etc/udev/rules.d/70-table-controller.rules" 0644 1
place "$SOURCE/deploy/kiosk/table-kiosk.desktop" "$ROOT/etc/xdg/autostart/table-kiosk.desktop" 0644
place "$SOURCE/deploy/kiosk/table-kiosk.service" "$ROOT/etc/systemd/user/table-kiosk.service" 0644
install -d -m 0750 "$ROOT/var/lib/table-controller" "$ROOT/var/log/table-controller" \
    "$ROOT/var/backups/table-controller"
# The journal's chain key (controller/store/chain.py): 32 random bytes made once, never replaced
# (a new key would leave every record unverifiable), readable by the service alone.
if [ ! -f "$ROOT/var/lib/table-controller/journal.key" ]; then
    (umask 077 && head -c 32 /dev/urandom > "$ROOT/var/lib/table-controller/journal.key")
fi

if [ "$SYSTEM" = 1 ]; then
    chown root:"$USER_NAME" "$ROOT/etc/table-controller" "$ROOT/etc/table-controller/table.toml"
    chown "$USER_NAME":"$USER_NAME" "$ROOT/var/lib/table-controller" "$ROOT/var/log/table-controller" \
        "$ROOT/var/lib/table-controller/journal.key" "$ROOT/var/backups/table-controller"
    systemctl daemon-reload
    systemctl enable table-controller.service >/dev/null
    systemctl enable --now table-controller-backup.timer >/dev/null
    udevadm control --reload && udevadm trigger --subsystem-match=tty --subsystem-match=usb
    say "check the configuration: $OPT/venv/bin/table-controller config check /etc/table-controller/table.toml"
    say "then: systemctl restart table-controller; journalctl -u table-controller -f"
fi
say "done"
