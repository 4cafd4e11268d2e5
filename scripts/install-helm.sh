#!/usr/bin/env bash
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# Installs the pinned Helm 3 (the version the Helm render tests are run with)
# into bin/ of the repository, or into $HELM_BIN_DIR, and prints its path.
# Only Go and the module proxy are needed (about 1.5 minutes on 2 cores).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=${HELM_VERSION:-v3.22.0}
dir=${HELM_BIN_DIR:-$root/bin}
# A helm built by go install reports only vMAJOR.MINOR.
if [ -x "$dir/helm" ] && "$dir/helm" version --short 2>/dev/null | grep -q "^${version%.*}"; then
  echo "$dir/helm"
  exit 0
fi
mkdir -p "$dir"
echo >&2 "installing helm $version into $dir"
GOBIN="$dir" timeout 900 go install "helm.sh/helm/v3/cmd/helm@$version" >&2
echo "$dir/helm"
