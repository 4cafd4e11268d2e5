#!/bin/sh
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# On removal (deb: "remove", rpm: 0 packages left), stop and disable the service;
# an upgrade leaves it running (postinstall restarts it).
set -e
case "$1" in
remove | 0)
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    systemctl stop otelcol-xlaoom.service || true
    systemctl disable otelcol-xlaoom.service || true
  fi
  ;;
esac
