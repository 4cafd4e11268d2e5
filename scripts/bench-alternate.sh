#!/usr/bin/env bash
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
#
# Old and new builds of the processor, alternated in one run: the root
# package's benchmarks built at BASE (a git ref) and at the work tree, run
# ROUNDS times each, old then new then old..., and the median of each side.
#
#   scripts/bench-alternate.sh [BASE] [ROUNDS] [BENCH]
#   defaults: BASE=main, ROUNDS=7, BENCH='^(BenchmarkProcessorOrdinaryOnly|BenchmarkProcessorBatch)$'
#
# Both sides link every function at a 64-byte boundary (BENCH_LDFLAGS,
# default -funcalign=64): with Go's default 32, a change anywhere before a
# hot function can move it half a cache line and swing the figure by 15 %
# with the same instructions (BENCHMARKS.md, "Code layout").
# BENCH_LDFLAGS= builds with the linker's defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-main}
rounds=${2:-7}
bench=${3:-'^(BenchmarkProcessorOrdinaryOnly|BenchmarkProcessorBatch)$'}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/old" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add --detach "$work/old" "$base" >/dev/null
ldflags=${BENCH_LDFLAGS--funcalign=64}
(cd "$work/old" && go test -c -ldflags="$ldflags" -o "$work/old.test" .)
go test -c -ldflags="$ldflags" -o "$work/new.test" .
for i in $(seq 1 "$rounds"); do
  for side in old new; do
    "$work/$side.test" -test.run '^$' -test.bench "$bench" -test.benchmem -test.count 1 -test.cpu 1 |
      awk -v side="$side" '/^Benchmark/ { print side, $1, $3 }' >>"$work/results.txt"
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); ldflags: ${ldflags:-none}"
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
for name in $(awk '{ print $2 }' "$work/results.txt" | sort -u); do
  old=$(awk -v n="$name" '$1 == "old" && $2 == n { print $3 }' "$work/results.txt" | median)
  new=$(awk -v n="$name" '$1 == "new" && $2 == n { print $3 }' "$work/results.txt" | median)
  awk -v n="$name" -v o="$old" -v w="$new" -v r="$rounds" 'BEGIN { printf "%-40s old %10.1f ns/op  new %10.1f ns/op  new/old %.3f  (medians of %d alternated rounds)\n", n, o, w, w / o, r }'
done
