#!/usr/bin/env bash
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# `make run` as a newcomer meets it: a clone of this checkout's committed HEAD
# (REV=<ref> for another commit) into a temporary directory, empty Go module
# and build caches (GOMODCACHE, GOCACHE in that directory; GOPROXY and the
# rest of the Go environment as they are), then `make run`, then `make run`
# again. It reports:
#   first run   the time from `make run` to the end of the demo (its incidents
#               printed), and its two parts: download (the modules the demo's
#               builds need, fetched by `make -C distribution download-demo`
#               first, as `go build` does before it compiles) and compile + run
#               (`make run` with those modules present)
#   CPU         user + system seconds of the first run (what the cores did;
#               steadier than the wall time on a busy machine)
#   memory      the peak of the memory of every process of the run together
#               (proportional set size, sampled every 0.2 s), and the largest
#               single process (its maximum resident set size)
#   disk        the module cache, the build cache and the binaries after it
#   second run  `make run` again, everything cached
# and the load average before and after. RUNS=3 repeats it (with fresh caches
# each time) and adds the median. KEEP=1 keeps the temporary directory.
# Usage: scripts/measure-first-run.sh         (or: make measure-first-run)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rev=$(git -C "$root" rev-parse "${REV:-HEAD}")
runs=${RUNS:-1}
base=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && echo "kept $base" || { chmod -R u+w "$base" 2>/dev/null; rm -rf "$base"; }' EXIT

# peak_mem PID OUTFILE: until PID ends, sums the proportional set size (kB;
# shared pages counted once) of every process of PID's session every 0.2 s
# and writes the largest sum to OUTFILE.
peak_mem() {
  local sid peak=0 sum
  sid=$(ps -o sid= -p "$1" | tr -d ' ')
  while kill -0 "$1" 2>/dev/null; do
    sum=$(for p in $(ps -e -o pid=,sid= | awk -v s="$sid" '$2 == s { print $1 }'); do
      cat "/proc/$p/smaps_rollup" 2>/dev/null; done | awk '/^Pss:/ { t += $2 } END { print t + 0 }')
    [ "$sum" -gt "$peak" ] && peak=$sum
    sleep 0.2
  done
  echo "$peak" >"$2"
}

# timed NAME CMD...: runs CMD in a session of its own under /usr/bin/time (when
# there) and records its wall time, CPU time, largest process and peak sum.
timed() {
  local name=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  if [ -x /usr/bin/time ]; then
    setsid /usr/bin/time -f '%U %S %M' -o "$w/$name.time" "$@" &
  else
    setsid "$@" &
  fi
  local pid=$!
  peak_mem "$pid" "$w/$name.peak" &
  local sampler=$!
  local rc=0
  wait "$pid" || rc=$?
  wait "$sampler" || true
  t1=$(date +%s.%N)
  echo "$t0 $t1" >"$w/$name.wall"
  return $rc
}

secs() { awk '{ printf "%.1f", $2 - $1 }' "$w/$1.wall"; }
cpu() { [ -f "$w/$1.time" ] && awk '{ printf "%.0f", $1 + $2 }' "$w/$1.time" || echo "?"; }
mib() { awk '{ printf "%.0f", $1 / 1024 }' "$1"; }

totals=()
summary=()
for i in $(seq "$runs"); do
  w=$base/run$i
  mkdir -p "$w"
  export GOMODCACHE=$w/gomodcache GOCACHE=$w/gocache
  git clone -q --no-checkout "$root" "$w/repo"
  git -C "$w/repo" checkout -q --detach "$rev"
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  echo "=== run $i: clone of ${rev:0:12}, empty GOMODCACHE and GOCACHE under $w; load average $load_before"
  cd "$w/repo"
  split=false
  if make -n -C distribution download-demo >/dev/null 2>&1; then
    split=true
    timed download make -s -C distribution download-demo >"$w/download.out" 2>&1 || { tail -20 "$w/download.out"; echo "download-demo failed"; exit 1; }
  fi
  timed first make run >"$w/first.out" 2>&1 || { tail -40 "$w/first.out"; echo "make run failed"; exit 1; }
  timed second make run >"$w/second.out" 2>&1 || { tail -40 "$w/second.out"; echo "second make run failed"; exit 1; }
  load_after=$(cut -d' ' -f1-3 /proc/loadavg)
  grep -q '^XLA OOM incidents: ' "$w/first.out" || { tail -40 "$w/first.out"; echo "the demo printed no incidents"; exit 1; }
  cd "$root"
  total=$(secs first)
  peak=$(mib "$w/first.peak")
  largest=$([ -f "$w/first.time" ] && awk '{ printf "%.0f", $3 / 1024 }' "$w/first.time" || echo "?")
  if $split; then
    total=$(awk -v a="$(secs download)" -v b="$(secs first)" 'BEGIN { printf "%.1f", a + b }')
    peak=$(mib "$w/download.peak" | awk -v b="$peak" '{ print ($1 > b ? $1 : b) }')
  fi
  totals+=("$total")
  disk=$(du -sm "$GOMODCACHE" "$GOCACHE" "$w/repo/distribution/bin" | awk '{ printf "%s%s MiB", (NR > 1 ? ", " : ""), $1 }')
  echo "--- run $i: $(grep '^XLA OOM incidents: ' "$w/first.out")"
  echo "  first make run, to the end of the demo: ${total} s"
  if $split; then
    echo "    download (make -C distribution download-demo): $(secs download) s, CPU $(cpu download) s"
    echo "    compile + run (make run):                      $(secs first) s, CPU $(cpu first) s"
  else
    echo "    CPU $(cpu first) s (no download-demo target at this commit: no split)"
  fi
  echo "  peak memory: ${peak} MiB (all processes together), largest process ${largest} MiB"
  echo "  disk: modules, build cache, binaries: $disk"
  echo "  second make run: $(secs second) s"
  echo "  load average before $load_before, after $load_after ($(nproc) cores)"
  summary+=("  run $i: ${total} s to the end ($($split && echo "download $(secs download) s + compile and run $(secs first) s; " || true)CPU $(cpu first) s), peak ${peak} MiB, disk $disk; second run $(secs second) s; load $load_before -> $load_after")
  chmod -R u+w "$w/gomodcache" 2>/dev/null
  rm -rf "$w/gomodcache" "$w/gocache"
done
echo "=== make run from a fresh clone with empty Go caches, $(nproc) cores, commit ${rev:0:12}"
printf '%s\n' "${summary[@]}"
if [ "$runs" -gt 1 ]; then
  median=$(printf '%s\n' "${totals[@]}" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }')
  echo "  median of $runs first runs: $median s"
fi
