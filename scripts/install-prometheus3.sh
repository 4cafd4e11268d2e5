#!/usr/bin/env bash
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# Installs Prometheus 3 (prometheus and promtool, built from the Go module
# proxy: no download site needed) into out/tools/prometheus3, for the
# end-to-end alerting tests, which also run against it when it is there
# (distribution/e2e picks it up; XLAOOM_E2E_PROMETHEUS overrides the choice).
# Idempotent: does nothing when the pinned version is already installed.
# About 4 minutes on 2 cores the first time.
set -euo pipefail
version=v0.316.0 # Prometheus 3.x, as the module github.com/prometheus/prometheus tags it
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/out/tools/prometheus3"
stamp="$dir/.version"
if [ -x "$dir/prometheus" ] && [ -x "$dir/promtool" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
  echo "Prometheus $version already in $dir"
  exit 0
fi
mkdir -p "$dir"
echo "building Prometheus $version into $dir"
GOBIN="$dir" timeout 1500 go install \
  "github.com/prometheus/prometheus/cmd/prometheus@$version" \
  "github.com/prometheus/prometheus/cmd/promtool@$version"
echo "$version" >"$stamp"
"$dir/prometheus" --version | head -1
