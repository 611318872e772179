#!/usr/bin/env bash
# Removes the table controller's program, service, udev rules and kiosk launcher.
# Keeps the journal, audit trail, PINs, backups and configuration (they are the table's records)
# unless --purge is given. Safe to run twice.
#
#   sudo deploy/uninstall.sh [--purge]
#   deploy/uninstall.sh --root DIR [--purge]     # from a directory install (implies --no-system)
set -euo pipefail
ROOT=/
SYSTEM=1
PURGE=0
while [ $# -gt 0 ]; do
    case "$1" in
        --root) ROOT="$2"; SYSTEM=0; shift 2 ;;
        --no-system) SYSTEM=0; shift ;;
        --purge) PURGE=1; shift ;;
        -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
        *) echo "uninstall: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
ROOT="${ROOT%/}"
say() { echo "uninstall: $*"; }

if [ "$SYSTEM" = 1 ]; then
    [ "$(id -u)" = 0 ] || { echo "uninstall: run as root (sudo), or give --root DIR" >&2; exit 1; }
    systemctl disable --now table-controller.service table-controller-backup.timer >/dev/null 2>&1 || true
fi
rm -rf "$ROOT/opt/table-controller"
rm -f "$ROOT/etc/systemd/system/table-controller.service" \
      "$ROOT/etc/systemd/system/table-controller-backup.service" "$ROOT/etc/systemd/system/table-controller-backup.timer" \
      "$ROOT/etc/udev/rules.d/70-table-controller.rules" "$ROOT/etc/udev/rules.d/70-table-controller.rules.new" \
      "$ROOT/etc/xdg/autostart/table-kiosk.desktop" "$ROOT/etc/systemd/user/table-kiosk.service"
if [ "$PURGE" = 1 ]; then
    say "purging configuration, journal, PINs, audit trail and backups"
    rm -rf "$ROOT/etc/table-controller" "$ROOT/var/lib/table-controller" "$ROOT/var/log/table-controller" \
        "$ROOT/var/backups/table-controller"
    if [ "$SYSTEM" = 1 ] && id table-controller >/dev/null 2>&1; then userdel table-controller; fi
else
    say "kept $ROOT/etc/table-controller, $ROOT/var/lib/table-controller, $ROOT/var/log/table-controller, $ROOT/var/backups/table-controller"
fi
if [ "$SYSTEM" = 1 ]; then
    systemctl daemon-reload
    udevadm control --reload || true
fi
say "done"
