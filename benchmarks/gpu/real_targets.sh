#!/usr/bin/env bash
# The real-user suite (examples/real/) with --roofline on the GPU. Run from the repo root:
#   OUT=/path bash benchmarks/gpu/real_targets.sh [all|suite|tests]
# 'all' (the default) fits one 10-minute device call (the second step reuses the first's Inductor
# and Triton caches); 'suite' and 'tests' split it in two calls. Writes into $OUT (4 files):
#   real-targets-h200.md, .json  run --roofline tables and the invariants (benchmarks/gpu/real_targets.py);
#                                 the .md becomes benchmarks/results/real-targets-h200.md
#   ops-hf-llama-h200.md          bench-kernel ops on a live trace of the HF Llama forward
#   gpu-tests-real.txt            the gpu tests over the suite (tests/test_real_targets_gpu.py)
set -uo pipefail
PART=${1:-all}
OUT=${OUT:-out}
mkdir -p "$OUT"
export PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
if [ "$PART" = all ] || [ "$PART" = suite ]; then
  echo "=== suite with --roofline ($(date +%T))"
  timeout 330 python3 benchmarks/gpu/real_targets.py "$OUT" 2>&1 | tail -60
fi
if [ "$PART" = all ] || [ "$PART" = tests ]; then
  echo "=== gpu tests over the suite ($(date +%T))"
  timeout 240 python3 -m pytest -q -rA --tb=short -m gpu -p no:cacheprovider tests/test_real_targets_gpu.py \
    > "$OUT/gpu-tests-real.txt" 2>&1
  tail -25 "$OUT/gpu-tests-real.txt"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv >> "$OUT/gpu-tests-real.txt" 2>&1
fi
ls -la "$OUT"
