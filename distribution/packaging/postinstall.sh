#!/bin/sh
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# The storage directory belongs to the service's user. The service is enabled
# but not started: set the gateways in /etc/otelcol-xlaoom/otelcol-xlaoom.conf,
# then `systemctl start otelcol-xlaoom`. An upgrade restarts a running service.
set -e
chown otelcol-xlaoom:otelcol-xlaoom /var/lib/otelcol-xlaoom
chmod 0750 /var/lib/otelcol-xlaoom
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
  systemctl daemon-reload || true
  systemctl enable otelcol-xlaoom.service || true
  systemctl try-restart otelcol-xlaoom.service || true
fi
