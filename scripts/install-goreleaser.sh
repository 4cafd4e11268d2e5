#!/usr/bin/env bash
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# Installs the pinned goreleaser (built with go install: only Go and the module
# proxy are needed; about 10 minutes on 2 cores from empty caches, a 121 MB
# binary) into out/tools/goreleaser, and prints its path. `make release-snapshot`
# and the package test (scripts/test-packages.sh) use it. Newer goreleaser
# releases need a newer Go than the one pinned here.
# Idempotent: does nothing when the pinned version is already there.
set -euo pipefail
version=v2.15.1
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/out/tools/goreleaser"
stamp="$dir/.version"
if [ -x "$dir/goreleaser" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
  echo "$dir/goreleaser"
  exit 0
fi
mkdir -p "$dir"
echo >&2 "installing goreleaser $version into $dir (about 10 min from empty caches)"
GOBIN="$dir" timeout 1800 go install "github.com/goreleaser/goreleaser/v2@$version" >&2
echo "$version" >"$stamp"
echo "$dir/goreleaser"
