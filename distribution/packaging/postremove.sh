#!/bin/sh
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# Debian: "remove" keeps the configuration (/etc/otelcol-xlaoom, the unit's
# enabled state) and the data (/var/lib/otelcol-xlaoom: checkpoints, records);
# "purge" deletes both. The user otelcol-xlaoom stays, as Debian keeps system
# users: files it owned elsewhere keep a name. rpm (0 copies left) keeps
# everything but the files of the package.
set -e
unit=otelcol-xlaoom.service
case "$1" in
remove)
  # Masked while removed, so that nothing starts the unit's leftovers;
  # a reinstall unmasks it (postinstall).
  if command -v deb-systemd-helper >/dev/null 2>&1; then
    deb-systemd-helper mask "$unit" >/dev/null || true
  fi
  ;;
purge)
  if command -v deb-systemd-helper >/dev/null 2>&1; then
    deb-systemd-helper purge "$unit" >/dev/null || true
    deb-systemd-helper unmask "$unit" >/dev/null || true
  fi
  rm -rf /var/lib/otelcol-xlaoom
  ;;
esac
if [ -d /run/systemd/system ]; then
  systemctl --system daemon-reload >/dev/null || true
fi
