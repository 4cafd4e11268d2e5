#!/usr/bin/env bash
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# Capture real JAX/XLA GPU OOM messages (see README.md in this folder).
# Run from the repository root on a machine with one NVIDIA GPU and JAX:
#     bash scripts/gpu-capture/capture.sh
# Writes all captures to $WORK (default /tmp/xla_oom_real); when $OUT is set
# it also packs them into $OUT/real_capture.tgz and copies manifest.json there
# (handy when the GPU machine is remote and only one folder comes back).
set -u
WORK=${WORK:-/tmp/xla_oom_real}
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
rm -rf "$WORK"
mkdir -p "$WORK"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv || true
"$PY" scripts/gpu-capture/capture.py --outdir "$WORK" --deadline "${DEADLINE:-450}"
rc=$?
for f in "$WORK"/*.exception.txt; do
  [ -e "$f" ] || continue
  echo "== $(basename "$f"): $(head -c 300 "$f" | head -n 2)"
done
if [ -n "${OUT:-}" ]; then
  tar -C "$WORK" -czf "$OUT/real_capture.tgz" .
  cp "$WORK/manifest.json" "$OUT/manifest.json"
  ls -la "$WORK" > "$OUT/listing.txt"
fi
exit $rc
