#!/usr/bin/env bash
# The real-user suite (examples/real/) with --roofline on the GPU, in one device call of a few
# minutes. Run from the repo root: `OUT=/path bash benchmarks/gpu/real_targets.sh`. Writes into
# $OUT (4 files): real-targets-h200.md and .json (run --roofline tables and the invariants, per
# benchmarks/gpu/real_targets.py), ops-hf-llama-h200.md (ops on a live trace of the HF Llama
# forward) and gpu-tests-real.txt (the gpu tests over the suite). real-targets-h200.md becomes
# benchmarks/results/real-targets-h200.md.
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT"
export PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
echo "=== suite with --roofline ($(date +%T))"
timeout 420 python3 benchmarks/gpu/real_targets.py "$OUT" 2>&1 | tail -60
echo "=== gpu tests over the suite ($(date +%T))"
timeout 420 python3 -m pytest -q -rA --tb=short -m gpu -p no:cacheprovider tests/test_real_targets_gpu.py \
  > "$OUT/gpu-tests-real.txt" 2>&1
tail -25 "$OUT/gpu-tests-real.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv >> "$OUT/gpu-tests-real.txt" 2>&1
ls -la "$OUT"
