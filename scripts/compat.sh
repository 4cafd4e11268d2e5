#!/usr/bin/env bash
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# The component against the newest collector release, in a throw-away directory
# so that the repository stays pinned to its supported line (v0.158.0):
#  1. the component module upgraded to the newest core line, vetted and tested;
#  2. a second, smaller collector built from that copy with the newest builder
#     (ocb): core + xla_oom + health_check + file_storage + prometheus_remote_write
#     -- the components served at that release here (file_log, transform, count,
#     prometheus, k8s_attributes and load_balancing are not served at v0.165.0;
#     contrib v0.165.1 serves file_log, prometheus and the file exporter; the
#     demo's collector, distribution/cmd/otelcol-xlaoom-demo, is on that line
#     with the OTLP receiver, the file and OTLP/HTTP exporters;
#     resource_detection v0.165.0 needs a newer Go than the pinned toolchain, so
#     it stays out rather than pull a toolchain or break the default build);
#  3. one end-to-end pipeline through it: OTLP/HTTP in -> xla_oom processor ->
#     xla_oom connector -> metrics out over OTLP/HTTP to a test receiver
#     (distribution/e2e/newest_test.go).
# Usage: scripts/compat.sh [beta-version] [stable-version]
#   COMPAT_JSON=1          go test -json on stdout (make test), the rest on stderr
#   COMPAT_COMPONENT_ONLY=1  step 1 only
set -euo pipefail
beta=${1:-v0.165.0}
stable=${2:-v1.71.0}
contrib=${CONTRIB_VERSION:-$beta}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
json=()
verbose=(-v) # the newest-collector test logs the collector's version
[ -n "${COMPAT_JSON:-}" ] && json=(-json) && verbose=()
# The toolchain is pinned: a module that needs a newer Go fails here instead of
# downloading another toolchain (and the default build never sees it).
export GOTOOLCHAIN=local

# --- 1. the component module on the newest line
# The component module only: nested modules (distribution, bench, e2e) are left out.
mkdir -p "$work/component"
tar -C "$root" --exclude=.git --exclude=./distribution --exclude=./bench --exclude=./e2e --exclude=./out -cf - . | tar -C "$work/component" -xf -
cd "$work/component"

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
# scripts/versionrefs checks files of the nested modules, which are not copied.
go test "${json[@]}" -count=1 $(go list ./... | grep -v '/scripts/versionrefs$')
[ -n "${COMPAT_COMPONENT_ONLY:-}" ] && exit 0

# --- 2. a smaller collector at the newest release, built with that release's builder
started=$(date +%s)
echo >&2 "compat: installing builder $beta"
GOBIN="$work/bin" timeout 600 go install "go.opentelemetry.io/collector/cmd/builder@$beta" >&2
mkdir -p "$work/newest"
cat >"$work/newest/builder-config.yaml" <<EOF
dist:
  module: example.com/otelcol-xlaoom-newest
  name: otelcol-xlaoom-newest
  description: otelcol-xlaoom's components on the newest collector release (compatibility check)
  output_path: $work/newest/_build
  version: 0.0.0-compat
receivers:
  - gomod: go.opentelemetry.io/collector/receiver/otlpreceiver $beta
processors:
  - gomod: github.com/xlaoom/xlaoomprocessor v0.0.0
    path: $work/component
  - gomod: go.opentelemetry.io/collector/processor/batchprocessor $beta
  - gomod: go.opentelemetry.io/collector/processor/memorylimiterprocessor $beta
connectors:
  - gomod: github.com/xlaoom/xlaoomprocessor v0.0.0
    import: github.com/xlaoom/xlaoomprocessor/xlaoomconnector
    path: $work/component
exporters:
  - gomod: go.opentelemetry.io/collector/exporter/debugexporter $beta
  - gomod: go.opentelemetry.io/collector/exporter/otlpexporter $beta
  - gomod: go.opentelemetry.io/collector/exporter/otlphttpexporter $beta
  - gomod: github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusremotewriteexporter $contrib
extensions:
  - gomod: github.com/open-telemetry/opentelemetry-collector-contrib/extension/healthcheckextension $contrib
  - gomod: github.com/open-telemetry/opentelemetry-collector-contrib/extension/storage/filestorage $contrib
EOF
echo >&2 "compat: building otelcol-xlaoom-newest with builder $beta"
(cd "$work/newest" && CGO_ENABLED=0 timeout 1500 "$work/bin/builder" --config=builder-config.yaml >&2)
newest="$work/newest/_build/otelcol-xlaoom-newest"
"$newest" components >&2
echo >&2 "compat: builder + build took $(( $(date +%s) - started ))s"

# --- 3. one pipeline through it (the e2e test skips unless XLAOOM_NEWEST_COLLECTOR is set)
cd "$root/distribution"
OTELCOL_XLAOOM="$newest" XLAOOM_NEWEST_COLLECTOR="$newest" XLAOOM_NEWEST_VERSION="$beta" CGO_ENABLED=0 \
  go test -trimpath "${json[@]}" "${verbose[@]}" -count=1 -timeout 5m -run '^TestNewestCollectorPipeline$' ./e2e/
