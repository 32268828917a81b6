#!/usr/bin/env bash
# Everything that needs the GPU, in one call of the device tool (its README: few, full calls).
# Run from the repo root: `bash benchmarks/gpu_session.sh 1` then `... 2` (each fits the device
# tool's 10-minute call); results land in $OUT/results-<part>.tgz.
# Part 1: GPU tests, fidelity, calibration. Part 2: roofline, run --roofline, examples, the
# decode-graph fixture, source-trace examples.
# The later parts, one device call each, in this order:
#   tests-trust  the GPU tests (not the slow real-user suite) and benchmarks/gpu/trust.py (measurement trust)
#   real         the real-user suite (examples/real/) with its invariants and tests, run --roofline JSON for
#                the example report, the Source Trace documents
#   sweep        the GEMM sweep, steady, three runs and compare both ways
#   verdicts     the verdict GPU tests, then benchmarks/gpu/verdicts.py (cold pairs, a +10%
#                under --steady, one round with history, the methods' disagreement note); ~8 min
#   speed        what a bench() call costs (benchmarks/gpu/startup.py, speed.py with its paced raw
#                reference), then every GPU test file one by one until the call's time runs out; ~9 min.
#                Make the page after: python benchmarks/gpu/speed_report.py (speed.json beside it).
# The device image lacks some dependencies: wheels in .whl/ (carried) are installed to /tmp/site first.
set -uo pipefail
PART=${1:-all}
export PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
OUT=${OUT:-out}
# Results are gathered outside $OUT and come back as one tarball (the device tool returns at most 8 files).
R="/tmp/bk-results-$PART"; mkdir -p "$R" "$OUT"
BK="python3 -m bench_kernel"
if [ -d .whl ] && ls .whl/*.whl >/dev/null 2>&1; then
  [ -d /tmp/site ] || python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl
  export PYTHONPATH="$PYTHONPATH:/tmp/site"
fi
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
if [ "$PART" = tests-trust ]; then
step "gpu tests"
timeout 240 python3 -m pytest -q -rA --tb=short -m "gpu and not slow" -p no:cacheprovider tests > "$R/gpu-tests.txt" 2>&1
tail -4 "$R/gpu-tests.txt"
step "trust (power-capped GEMM with and without --steady; the sub-microsecond add)"
OUT="$R" timeout 330 python3 benchmarks/gpu/trust.py 2>&1 | tail -12
fi
if [ "$PART" = real ]; then
step "real-user suite, its invariants and tests"
OUT="$R/real" timeout 420 bash benchmarks/gpu/real_targets.sh all 2>&1 | tail -15
step "run --roofline JSON for the example report"
timeout 60 $BK run examples/torch_ops.py:cases --roofline --json -o "$R/run-roofline.json" 2>&1 | tail -2
timeout 60 $BK run examples/multi_kernel.py:cases --roofline --json -o "$R/run-multi-kernel.json" 2>&1 | tail -2
step "source-trace documents"
OUT="$R/source_trace" timeout 120 bash benchmarks/gpu/source_trace_docs.sh 2>&1 | tail -4
fi
if [ "$PART" = sweep ]; then
step "GEMM sweep, steady"
OUT="$R/sweep" SWEEP_ARGS="--steady -m graph" SWEEP_RUN_TIMEOUT=${SWEEP_RUN_TIMEOUT:-170} \
  bash benchmarks/gpu/sweep_gemm.sh 2>&1 | tail -6
fi
if [ "$PART" = verdicts ]; then
step "verdict GPU tests"
timeout 100 python3 -m pytest -q -rA --tb=short -m gpu -p no:cacheprovider tests/test_verdicts_gpu.py \
  > "$R/verdicts-gpu-tests.txt" 2>&1
tail -4 "$R/verdicts-gpu-tests.txt"
step "verdicts benchmark"
OUT="$R/verdicts" timeout 400 python3 benchmarks/gpu/verdicts.py 2>&1 | tail -8
fi
if [ "$PART" = speed ]; then
step "start-up: import torch, the CUDA context, the profiler's first session"
OUT="$R" timeout 100 python3 benchmarks/gpu/startup.py 2>&1 | tail -4
step "speed: bench() beside the snippets, in a loop, run, a sweep; the paced raw reference"
OUT="$R" timeout 300 python3 benchmarks/gpu/speed.py --parts micro,profiler,cases,loop,run,sweep --repeat 3 \
  --budget-s 220 2>&1 | tail -10
step "gpu tests, one file at a time, in the time left"
OUT="$R" DEADLINE_S=${TESTS_DEADLINE_S:-170} bash benchmarks/gpu/tests_by_file.sh 2>&1 | tail -20
fi
step "pack"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > "$R/nvidia-smi.txt" 2>&1
tar czf "$OUT/results-$PART.tgz" -C "$R" . && ls -la "$R"
