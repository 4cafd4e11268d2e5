#!/bin/sh
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# The service's own system user and group, created once, kept on removal.
set -e
getent group otelcol-xlaoom >/dev/null 2>&1 || groupadd --system otelcol-xlaoom
getent passwd otelcol-xlaoom >/dev/null 2>&1 || useradd --system --gid otelcol-xlaoom \
  --home-dir /var/lib/otelcol-xlaoom --no-create-home --shell /usr/sbin/nologin \
  --comment "otelcol-xlaoom collector" otelcol-xlaoom
# The kernel's log (file_log/kernel): /var/log/kern.log is readable by the adm
# group on Debian and Ubuntu. Where the group exists, the service joins it.
if getent group adm >/dev/null 2>&1; then usermod -a -G adm otelcol-xlaoom; fi
# The kernel's log in the journal (journald/kernel, the packaged default):
# journalctl shows the system journal to the systemd-journal group.
if getent group systemd-journal >/dev/null 2>&1; then usermod -a -G systemd-journal otelcol-xlaoom; fi
