#!/bin/sh
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# On removal (deb: "remove", rpm: 0 copies left) stop the service; an upgrade
# leaves it running (postinstall restarts it). Debian keeps the unit's enabled
# state until purge (postremove), rpm disables it here.
set -e
unit=otelcol-xlaoom.service
[ -d /run/systemd/system ] || exit 0
case "$1" in
remove)
  if command -v deb-systemd-invoke >/dev/null 2>&1; then
    deb-systemd-invoke stop "$unit" >/dev/null || true
  else
    systemctl stop "$unit" || true
  fi
  ;;
0) systemctl disable --now "$unit" || true ;;
esac
