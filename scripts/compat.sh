#!/usr/bin/env bash
# Builds and tests the component module against the newest collector core line
# in a throw-away copy, so the real go.mod stays pinned to the supported line.
# Usage: scripts/compat.sh [beta-version] [stable-version]
set -euo pipefail
beta=${1:-v0.164.0}
stable=${2:-v1.70.0}
contrib=${CONTRIB_VERSION:-v0.164.1}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The component module only: nested modules (distribution, bench, e2e) are left out.
tar -C "$root" --exclude=.git --exclude=./distribution --exclude=./bench --exclude=./e2e -cf - . | tar -C "$work" -xf -
cd "$work"

upgrades=()
while read -r mod ver; do
  case "$mod" in
    go.opentelemetry.io/collector/*)
      if [[ $ver == v1.* ]]; then upgrades+=("$mod@$stable"); else upgrades+=("$mod@$beta"); fi ;;
    github.com/open-telemetry/opentelemetry-collector-contrib/pkg/*)
      upgrades+=("$mod@$contrib") ;;
  esac
done < <(go list -m -f '{{if and (not .Main) (not .Indirect)}}{{.Path}} {{.Version}}{{end}}' all)

echo >&2 "compat: upgrading ${#upgrades[@]} modules to $beta / $stable (contrib $contrib)"
timeout 600 go get "${upgrades[@]}" >&2
timeout 600 go mod tidy >&2
go list -m go.opentelemetry.io/collector/pdata go.opentelemetry.io/collector/processor/processorhelper >&2
go vet ./... >&2
if [ -n "${COMPAT_JSON:-}" ]; then
  go test -json -count=1 ./...
else
  go test -count=1 ./...
fi
