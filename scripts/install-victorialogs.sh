#!/usr/bin/env bash
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# Installs the pinned VictoriaLogs (a single static Go binary, built with go
# install: only Go and the module proxy are needed, under a minute on 2
# cores) into out/tools/victorialogs, and prints its path. The log-store
# end-to-end test (distribution/e2e, TestLogStore) and `make run-logstore` use it.
# Idempotent: does nothing when the pinned version is already there.
set -euo pipefail
version=v1.52.1
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/out/tools/victorialogs"
stamp="$dir/.version"
if [ -x "$dir/victoria-logs" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
  echo "$dir/victoria-logs"
  exit 0
fi
mkdir -p "$dir"
echo >&2 "installing VictoriaLogs $version into $dir"
GOBIN="$dir" timeout 900 go install "github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs@$version" >&2
echo "$version" >"$stamp"
echo "$dir/victoria-logs"
