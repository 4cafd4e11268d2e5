#!/usr/bin/env bash
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# Runs fuzz targets for FUZZTIME each (default 10s), one after another.
#   scripts/fuzz.sh                 every target
#   scripts/fuzz.sh FuzzParseSize   the named ones
#   scripts/fuzz.sh list            the target names
# A failing input is written to the package's testdata/fuzz/NAME/ and is from
# then on a seed that plain `go test` runs: commit it with the fix.
set -euo pipefail
cd "$(dirname "$0")/.."

# package:target, one line per fuzz target of the component module.
targets=(
  ./oom:FuzzRecognizeProperties
  ./oom:FuzzParseSize
  ./oom:FuzzRecognize
  ./oom:FuzzRecognizeWarning
  ./oom:FuzzPrefilterDifferential
  .:FuzzProcessRecord
  ./cmd/xlaoom/internal/explain:FuzzExplain
  ./oom:FuzzStartsRecord
)

if [ "${1:-}" = list ]; then
  for t in "${targets[@]}"; do echo "${t#*:}"; done
  exit 0
fi
# A misspelt name would otherwise run nothing and pass.
for want in "$@"; do
  [[ " ${targets[*]#*:} " == *" $want "* ]] || { echo "fuzz.sh: no fuzz target $want (scripts/fuzz.sh list)" >&2; exit 2; }
done
for t in "${targets[@]}"; do
  pkg=${t%%:*} name=${t#*:}
  if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then
    continue
  fi
  # Go's fuzzing engine can end a run with "context deadline exceeded" when
  # -fuzztime runs out while it is minimising a new interesting input. That is
  # not a finding (no failing input is written), so such a run is repeated
  # once; a real failure writes its input to testdata/fuzz and fails as usual.
  log=$(mktemp)
  rc=0
  go test -run='^$' -fuzz="^$name\$" -fuzztime="${FUZZTIME:-10s}" "$pkg" 2>&1 | tee "$log" || rc=${PIPESTATUS[0]}
  if [ $rc -ne 0 ] && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
    echo "fuzz.sh: $name hit the fuzzing deadline while minimising (no failing input written): running it once more"
    go test -run='^$' -fuzz="^$name\$" -fuzztime="${FUZZTIME:-10s}" "$pkg"
  elif [ $rc -ne 0 ]; then
    rm -f "$log"
    exit $rc
  fi
  rm -f "$log"
done
