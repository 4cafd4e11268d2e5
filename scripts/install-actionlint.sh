#!/usr/bin/env bash
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# Installs the pinned actionlint (built with go install: only Go and the module
# proxy are needed; about a minute on 2 cores) into out/tools/actionlint, and
# prints its path. `make lint` checks .github/workflows with it.
# Idempotent: does nothing when the pinned version is already there.
set -euo pipefail
version=v1.7.12
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/out/tools/actionlint"
stamp="$dir/.version"
if [ -x "$dir/actionlint" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
  echo "$dir/actionlint"
  exit 0
fi
mkdir -p "$dir"
echo >&2 "installing actionlint $version into $dir"
GOBIN="$dir" timeout 900 go install "github.com/rhysd/actionlint/cmd/actionlint@$version" >&2
echo "$version" >"$stamp"
echo "$dir/actionlint"
