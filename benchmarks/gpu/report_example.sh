#!/usr/bin/env bash
# The inputs of the example HTML report (examples/report-h200.html), measured on a GPU:
#
#   OUT=/some/dir bash benchmarks/gpu/report_example.sh          # from the repository root, ~6 min
#
# 1. the GEMM sweep of examples/sweep_gemm.py held steady (torch vs three Triton tiles, M in 1..8192)
# 2. the same sweep with torch made ~10% slower (benchmarks/gpu/sweep_gemm_slowed.py): the report's comparison
# 3. run --roofline on examples/torch_ops.py and examples/multi_kernel.py (per-kernel breakdowns)
# 4. profile of examples/multi_kernel.py's LayerNorm+GELU case: a trace, for the timeline section
# 5. bench-kernel report over all of them (a check that it renders on the GPU machine too)
# Writes into $OUT: sweep-gemm.json, sweep-gemm-slow.json, run-roofline.json, run-multi-kernel.json,
# trace-ln-gelu.json.gz, report-h200.html, log.txt. Each step runs on if another fails. Then commit the
# inputs (they are the example's record, small) and re-render on any machine with Chromium:
#
#   cp $OUT/sweep-gemm*.json $OUT/run-*.json $OUT/trace-*.json.gz benchmarks/results/report-h200/
#   python3 benchmarks/report_example.py benchmarks/results/report-h200   # -> examples/report-h200.html, .png
#
# Without a GPU (a check of this script): the sweep's CPU path, and the built-in suite on the host
# placed under the H200's roofs.
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT"
export PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
WORK=$(mktemp -d)
export BENCH_KERNEL_DB="$WORK/results.db"   # the sweeps' store: scratch, the JSON files are the record
BK="python3 -m bench_kernel"
LOG="$OUT/log.txt"
: > "$LOG"
step() { echo "=== $1 ($(date +%T))" | tee -a "$LOG"; }
GPU=$(python3 -c "import torch; print(int(torch.cuda.is_available()))" 2>/dev/null || echo 0)
STEADY=""
[ "$GPU" = 1 ] && STEADY="--steady -m graph"   # as benchmarks/gpu/sweep_gemm.sh: comparable runs

step "sweep (gpu=$GPU)"
# shellcheck disable=SC2086
timeout 280 $BK sweep examples/sweep_gemm.py $STEADY --max-time 0.2 --json -o "$OUT/sweep-gemm.json" >> "$LOG" 2>&1
echo "exit $?" | tee -a "$LOG"
step "sweep, torch ~10% slower"
# shellcheck disable=SC2086
SWEEP_GEMM_SLOW=torch timeout 280 $BK sweep benchmarks/gpu/sweep_gemm_slowed.py $STEADY --max-time 0.2 \
  --json -o "$OUT/sweep-gemm-slow.json" >> "$LOG" 2>&1
echo "exit $?" | tee -a "$LOG"
step "run --roofline"
if [ "$GPU" = 1 ]; then
  timeout 120 $BK run examples/torch_ops.py:cases --roofline --json -o "$OUT/run-roofline.json" >> "$LOG" 2>&1
  echo "exit $?" | tee -a "$LOG"
  timeout 120 $BK run examples/multi_kernel.py:cases --roofline --json -o "$OUT/run-multi-kernel.json" >> "$LOG" 2>&1
  echo "exit $?" | tee -a "$LOG"
  step "profile (a trace for the timeline section)"
  timeout 120 $BK profile examples/multi_kernel.py:cases --case ln_gelu_residual --steps 5 \
    -o "$OUT/trace-ln-gelu.json.gz" >> "$LOG" 2>&1
  echo "exit $?" | tee -a "$LOG"
else
  timeout 120 $BK run --roofline --device H200 --max-time 0.1 --json -o "$OUT/run-roofline.json" >> "$LOG" 2>&1
  echo "exit $?" | tee -a "$LOG"
fi
step "report"
INPUTS=$(ls "$OUT"/sweep-gemm.json "$OUT"/sweep-gemm-slow.json "$OUT"/run-*.json "$OUT"/trace-*.json.gz 2>/dev/null)
# shellcheck disable=SC2086
$BK report $INPUTS --title "bench-kernel on an H200: GEMM sweep, roofline, kernels, a trace" \
  -o "$OUT/report-h200.html" >> "$LOG" 2>&1
echo "exit $?" | tee -a "$LOG"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv >> "$LOG" 2>&1
rm -rf "$WORK"
ls -la "$OUT"
tail -4 "$LOG"
