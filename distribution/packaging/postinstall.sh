#!/bin/sh
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# The storage directory belongs to the service's user. A new install enables
# and starts the service (with the node agent config, /etc/otelcol-xlaoom/
# otelcol-xlaoom.conf chooses); an upgrade restarts it if it runs. On Debian
# this is what dh_installsystemd does: a unit the admin disabled stays
# disabled, and policy-rc.d is honoured (deb-systemd-helper/-invoke).
# Arguments: deb "configure <version configured before, if any>"; rpm the
# number of installed copies (1: install, 2: upgrade).
set -e
unit=otelcol-xlaoom.service
chown otelcol-xlaoom:otelcol-xlaoom /var/lib/otelcol-xlaoom
chmod 0750 /var/lib/otelcol-xlaoom

# plain FIRST: without the Debian helpers (rpm, or a system without them).
plain() {
  [ -d /run/systemd/system ] || return 0
  systemctl daemon-reload || true
  if [ "$1" = yes ]; then
    systemctl enable --now "$unit" || true
  else
    systemctl try-restart "$unit" || true
  fi
}

case "$1" in
configure | abort-upgrade | abort-deconfigure | abort-remove)
  if ! command -v deb-systemd-helper >/dev/null 2>&1; then
    plain "$([ -z "$2" ] && echo yes || echo no)"
    exit 0
  fi
  deb-systemd-helper unmask "$unit" >/dev/null || true
  # was-enabled is true on a new install: enable; else keep the admin's choice.
  if deb-systemd-helper --quiet was-enabled "$unit"; then
    deb-systemd-helper enable "$unit" >/dev/null || true
  else
    deb-systemd-helper update-state "$unit" >/dev/null || true
  fi
  if [ -d /run/systemd/system ]; then
    systemctl --system daemon-reload >/dev/null || true
    # deb-systemd-invoke starts or restarts only an enabled unit.
    deb-systemd-invoke "$([ -n "$2" ] && echo restart || echo start)" "$unit" >/dev/null || true
  fi
  ;;
1) plain yes ;;
*) plain no ;;
esac
