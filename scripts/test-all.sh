#!/usr/bin/env bash
# Emits `go test -json` for every module of the repository on stdout, so that
# one gotestsum run (make test) prints one summary for all of them. Anything
# that is not test2json goes to stderr. Exits non-zero if any stage failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
status=0
stage() { echo "--- $*" >&2; }

stage "component module (race)"
(cd "$root" && go test -json -race -count=1 ./...) || status=1

for mod in distribution bench; do
  if [ -f "$root/$mod/go.mod" ]; then
    stage "$mod module"
    (cd "$root/$mod" && go test -json -count=1 -timeout 20m ./...) || status=1
  fi
done

stage "compatibility with the newest collector core line"
COMPAT_JSON=1 "$root/scripts/compat.sh" || status=1

if [ -f "$root/examples/prometheus/alerts_test.yaml" ]; then
  stage "promtool test rules"
  if command -v promtool >/dev/null; then
    (cd "$root/examples/prometheus" && promtool test rules alerts_test.yaml) >&2 || status=1
  else
    echo "promtool not installed: alert rule tests NOT run (CI installs it)" >&2
    [ "${CI:-}" = true ] && status=1
  fi
fi
exit $status
