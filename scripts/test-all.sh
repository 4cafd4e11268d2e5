#!/usr/bin/env bash
# Emits `go test -json` for every module of the repository on stdout, so that
# one gotestsum run (make test) prints one summary for all of them. Checks that
# are not Go tests (compat's build, promtool) are reported as test2json events
# too, so they are counted, and their output is shown when they fail. Progress
# and tool noise go to out/test-all.log. Exits non-zero if any stage failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/out"
log="$root/out/test-all.log"
: >"$log"
status=0
stage() { echo "--- $*" >>"$log"; }

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

stage "component module (race)"
(cd "$root" && go test -json -race -count=1 ./... 2>>"$log") || status=1

for mod in distribution bench; do
  if [ -f "$root/$mod/go.mod" ]; then
    stage "$mod module"
    (cd "$root/$mod" && go test -json -count=1 -timeout 20m ./... 2>>"$log") || status=1
  fi
done

# A short run of every fuzz target (issue 6): new inputs on every CI run,
# seeded from the fixtures. Long runs: make fuzz FUZZTIME=31m.
stage "short fuzz runs (${FUZZTIME:=10s} each)"
for name in $("$root/scripts/fuzz.sh" list); do
  check "Fuzz/$name" env FUZZTIME="$FUZZTIME" "$root/scripts/fuzz.sh" "$name" || status=1
done

stage "compatibility with the newest collector core line"
COMPAT_JSON=1 "$root/scripts/compat.sh" 2>>"$log" || { status=1; check CompatBuild bash -c "tail -40 '$log'; exit 1"; }

if [ -f "$root/examples/prometheus/alerts_test.yaml" ]; then
  stage "promtool test rules"
  if command -v promtool >/dev/null; then
    check PromtoolTestRules bash -c "cd '$root/examples/prometheus' && promtool test rules *_test.yaml" || status=1
  elif [ "${CI:-}" = true ]; then
    check PromtoolTestRules bash -c "echo 'promtool is not installed: .ci/run should have installed it'; exit 1"
    status=1
  else
    echo "promtool not installed: alert rule tests NOT run (CI installs it)" >>"$log"
  fi
fi
exit $status
