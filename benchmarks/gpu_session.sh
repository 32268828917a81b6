#!/usr/bin/env bash
# Everything that needs the GPU, in one call of the device tool (its README: few, full calls).
# Run from the repo root: `bash benchmarks/gpu_session.sh 1` then `... 2` (each fits the device
# tool's 10-minute call); results land in $OUT/results-<part>.tgz.
# Part 1: GPU tests, fidelity, calibration. Part 2: roofline, run --roofline, examples, the
# decode-graph fixture, source-trace examples.
set -uo pipefail
PART=${1:-all}
export PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
OUT=${OUT:-out}
R="$OUT/r"; mkdir -p "$R"
BK="python3 -m bench_kernel"
step() { echo "=== $1 ($(date +%T))"; }

if [ "$PART" = 1 ] || [ "$PART" = all ]; then
step "gpu tests"
# The real-user suite's tests are slow (compiles, autotuning, HF models): benchmarks/gpu/real_targets.sh.
timeout 300 python3 -m pytest -q -rA --tb=short -m "gpu and not slow" -p no:cacheprovider tests > "$R/gpu-tests.txt" 2>&1
tail -25 "$R/gpu-tests.txt"
step "fidelity"
OUT="$R" timeout 300 python3 benchmarks/fidelity.py 2>&1 | grep -v -i warn | tail -8
step "calibrate"
OUT="$R" timeout 120 python3 benchmarks/calibrate_report.py --repeats 3 2>&1 | tail -5
fi
if [ "$PART" = 2 ] || [ "$PART" = all ]; then
step "roofline report"
OUT="$R" timeout 120 python3 benchmarks/roofline_report.py 2>&1 | tail -5
step "run --roofline on the suite"
timeout 120 $BK run --roofline --plot "$R/run-roofline-h200.png" --json -o "$R/run-roofline-h200.json" 2>&1 | tail -3
timeout 120 $BK run --roofline --md -o "$R/run-roofline-h200.md" 2>&1 | tail -3
step "examples"
for t in triton_add torch_ops multi_kernel capture_unsafe; do
  timeout 60 $BK run "examples/$t.py:cases" --md -o "$R/run-$t.md" 2>&1 | tail -2
done
step "decode-graph fixture"
[ -f benchmarks/gpu/make_decode_graph_trace.py ] && OUT="$R" timeout 120 python3 benchmarks/gpu/make_decode_graph_trace.py 2>&1 | tail -3
step "source-trace examples (and the HF MoE, compiled documents; every link checked)"
OUT="$R/source_trace" timeout 420 bash benchmarks/gpu/source_trace_docs.sh 2>&1 | tail -12
fi
step "pack"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > "$R/nvidia-smi.txt" 2>&1
tar czf "$OUT/results-$PART.tgz" -C "$R" . && ls -la "$R"
