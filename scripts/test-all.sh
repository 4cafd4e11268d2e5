#!/usr/bin/env bash
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# Emits `go test -json` for every module of the repository on stdout, so that
# one gotestsum run (make test) prints one summary for all of them. Checks that
# are not Go tests (compat's build, promtool) are reported as test2json events
# too, so they are counted, and their output is shown when they fail. Progress
# and tool noise go to out/test-all.log. Exits non-zero if any stage failed.
#
# Every test that cannot run for want of a tool is reported as skipped, with the
# command that installs the tool, in the summary make test prints:
#   helm + XLAOOM_HELM_CHART   Helm render tests (deploy/helm)
#   buildah, podman, runc      container image build + run
#   prometheus, promtool       alerting end-to-end tests and rule unit tests
#   VictoriaLogs               log-store end-to-end test (scripts/install-victorialogs.sh)
#   goreleaser, rpm            the package test (scripts/test-packages.sh)
#   mmdebstrap, systemd-nspawn the .deb booted in Debian 12 (scripts/test-package-boot.sh, as root)
#
# Every package is labelled with the collector release it was built against
# ("[collector v0.158.0]", the newest-collector stage "[collector v0.165.0]"),
# since both stages run packages of the same names.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/out"
log="$root/out/test-all.log"
: >"$log"
status=0
stage() { echo "--- $*" >>"$log"; }

# The collector release of the pinned line (go.mod) and of the newest-collector stage.
pinned=$(awk '$1 == "go.opentelemetry.io/collector/processor/processorhelper" {print $2; exit}' "$root/go.mod")
newest=$(sed -n 's/^beta=\${1:-\(v[0-9.]*\)}$/\1/p' "$root/scripts/compat.sh")
# label VERSION: tags the package names of a go test -json stream with VERSION.
label() { sed -u "s/\"Package\":\"\([^\"]*\)\"/\"Package\":\"\1 [collector $1]\"/g"; }

# event TEST ACTION [OUTPUT]: one test2json event of package "checks" (no
# python or jq on a bare CI machine, so the JSON string is escaped here).
event() {
  local out=${3-}
  out=${out//\\/\\\\}
  out=${out//\"/\\\"}
  out=${out//$'\t'/\\t}
  out=$(printf '%s' "$out" | tr -d '\000-\010\013-\037')
  if [ "$2" = output ]; then
    printf '{"Package":"checks","Test":"%s","Action":"output","Output":"%s\\n"}\n' "$1" "$out"
  else
    printf '{"Package":"checks","Test":"%s","Action":"%s"}\n' "$1" "$2"
  fi
}

# check NAME CMD...: runs CMD as the test NAME of package "checks".
check() {
  local name=$1 out rc
  shift
  out=$("$@" 2>&1)
  rc=$?
  printf '%s\n' "$out" >>"$log"
  event "$name" run
  if [ $rc -ne 0 ]; then
    printf '%s\n' "$out" | tail -60 | while IFS= read -r line; do event "$name" output "$line"; done
  fi
  event "$name" "$([ $rc -eq 0 ] && echo pass || echo fail)"
  return $rc
}

# skipped NAME MESSAGE: a check that cannot run here, shown as skipped with MESSAGE.
skipped() {
  echo "SKIPPED $1: $2" >>"$log"
  event "$1" run
  event "$1" output "$2"
  event "$1" skip
}

stage "component module (race), collector $pinned"
(cd "$root" && go test -json -race -count=1 ./... 2>>"$log") | label "$pinned" || status=1

# The distribution binary is built once (static) and shared by the end-to-end,
# Helm and image tests.
stage "build otelcol-xlaoom"
if check BuildDistribution make -C "$root/distribution" build-dist; then
  export OTELCOL_XLAOOM="$root/distribution/bin/otelcol-xlaoom"
else
  status=1
fi

# Tests that need helm (and XLAOOM_HELM_CHART), buildah/podman/runc or
# prometheus skip themselves, naming the install command; gotestsum lists them
# under "Skipped" in the summary.
for mod in distribution bench; do
  if [ -f "$root/$mod/go.mod" ]; then
    stage "$mod module, collector $pinned"
    # The newest-collector pipeline runs in the compat stage, against that collector.
    # The distribution's tests use build-dist's flags (CGO_ENABLED=0, -trimpath):
    # the build cache is keyed by them, so its packages are compiled once, not twice.
    flags=(-count=1 -timeout 25m)
    [ "$mod" = distribution ] && flags+=(-trimpath)
    cgo=$([ "$mod" = distribution ] && echo 0 || go env CGO_ENABLED)
    (cd "$root/$mod" && CGO_ENABLED=$cgo go test -json "${flags[@]}" -skip '^TestNewestCollectorPipeline$' ./... 2>>"$log") | label "$pinned" || status=1
  fi
done

# The demo's collector is a module of its own, on the newest collector line
# whose components it needs are all served (its go.mod).
demo="$root/distribution/cmd/otelcol-xlaoom-demo"
if [ -f "$demo/go.mod" ]; then
  democore=$(awk '$1 == "go.opentelemetry.io/collector/otelcol" {print $2; exit}' "$demo/go.mod")
  stage "demo collector module, collector $democore"
  (cd "$demo" && CGO_ENABLED=0 go test -json -trimpath -count=1 ./... 2>>"$log") | label "$democore" || status=1
fi

# A short run of every fuzz target (issue 6): new inputs on every CI run,
# seeded from the fixtures. Long runs: make fuzz FUZZTIME=31m.
stage "short fuzz runs (${FUZZTIME:=10s} each)"
for name in $("$root/scripts/fuzz.sh" list); do
  check "Fuzz/$name" env FUZZTIME="$FUZZTIME" "$root/scripts/fuzz.sh" "$name" || status=1
done

stage "newest collector $newest: component tests, otelcol-xlaoom-newest built with its builder, one pipeline"
COMPAT_JSON=1 "$root/scripts/compat.sh" 2>>"$log" | label "$newest" || { status=1; check CompatBuild bash -c "tail -40 '$log'; exit 1"; }

# The release packages, built by goreleaser for this platform only and unpacked.
stage "packages: goreleaser snapshot of this platform, .deb and .rpm checked"
goreleaser=$root/out/tools/goreleaser/goreleaser
[ -x "$goreleaser" ] || goreleaser=$(command -v goreleaser || true)
missing=()
[ -n "$goreleaser" ] || missing+=("goreleaser (./scripts/install-goreleaser.sh, about 10 min)")
for tool in dpkg-deb rpm rpm2archive; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
packaged=false
if [ ${#missing[@]} -eq 0 ]; then
  check PackageTest env GORELEASER="$goreleaser" "$root/scripts/test-packages.sh" && packaged=true || status=1
elif [ "${CI:-}" = true ]; then
  check PackageTest bash -c "echo 'not installed: ${missing[*]}; .ci/run should have installed them'; exit 1"
  status=1
else
  skipped PackageTest "not installed: ${missing[*]}: the .deb/.rpm package test NOT run. Install: ./scripts/install-goreleaser.sh; apt-get install -y rpm (Debian/Ubuntu)"
fi

# The .deb just built, booted in Debian 12 under systemd-nspawn (as root).
stage "packages: the .deb installed, used, upgraded and purged in a booted Debian 12"
bootmissing=$(GORELEASER="$goreleaser" "$root/scripts/test-package-boot.sh" --missing)
if [ -n "$bootmissing" ] && [ "${CI:-}" = true ]; then
  check PackageBootTest bash -c "echo 'not installed: $bootmissing; .ci/run should have installed them (and runs as root)'; exit 1"
  status=1
elif [ -n "$bootmissing" ]; then
  skipped PackageBootTest "not installed: $bootmissing: the .deb was NOT booted. Install (as root): apt-get install -y mmdebstrap debian-archive-keyring systemd-container (Debian/Ubuntu); ./scripts/install-goreleaser.sh"
elif [ "$packaged" = true ]; then
  check PackageBootTest env GORELEASER="$goreleaser" "$root/scripts/test-package-boot.sh" || status=1
else
  skipped PackageBootTest "the package test did not build the packages: nothing to boot"
fi

if [ -f "$root/examples/prometheus/alerts_test.yaml" ]; then
  stage "promtool test rules"
  promtool=$(command -v promtool || true)
  [ -n "$promtool" ] || [ ! -x "$root/out/tools/prometheus3/promtool" ] || promtool="$root/out/tools/prometheus3/promtool"
  if [ -n "$promtool" ]; then
    check PromtoolTestRules bash -c "cd '$root/examples/prometheus' && '$promtool' test rules *_test.yaml" || status=1
  elif [ "${CI:-}" = true ]; then
    check PromtoolTestRules bash -c "echo 'promtool is not installed: .ci/run should have installed it'; exit 1"
    status=1
  else
    skipped PromtoolTestRules "promtool is not installed: alert rule tests NOT run. Install: apt-get install -y prometheus (Debian/Ubuntu), or make install-prometheus3 (./scripts/install-prometheus3.sh, Go only)"
  fi
fi
exit $status
