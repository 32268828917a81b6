#!/usr/bin/env bash
# The GEMM sweep on a GPU (and a --gpus run when 2+ GPUs are visible).
#
#   OUT=/some/dir bash benchmarks/gpu/sweep_gemm.sh        # from the repository root
#
# 1. bench-kernel sweep examples/sweep_gemm.py --best --plot   (run 1: torch vs 3 Triton tiles)
# 2. the same sweep again                                      (run 2)
# 3. benchmarks/gpu/sweep_gemm_slowed.py: torch ~10% slower    (run 3)
# 4. compare 1 2 (must be "same" or "(clock)" everywhere, exit 0; with --strict-clocks the clock-
#    limited slowdowns count), compare 2 3 (must catch torch, exit 1), compare 3 2 (faster, exit 0)
# 5. with 2+ GPUs: --gpus all (run 4), compare 1 4, and the wall-time speed-up
# Writes into $OUT: sweep-gemm.md and sweep-gemm.json (-> benchmarks/results/sweep-gemm-h200.md
# and .json), sweep-gemm-h200.png (the plot), results.db (every run, raw samples), log.txt.
# SWEEP_ARGS adds options to every sweep (e.g. "--steady -m graph"); SWEEP_RUN_TIMEOUT bounds each run (s).
set -uo pipefail
OUT=${OUT:-out}
ARGS=${SWEEP_ARGS:-}
T=${SWEEP_RUN_TIMEOUT:-280}
mkdir -p "$OUT"
export PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
WORK=$(mktemp -d)
export BENCH_KERNEL_DB="$WORK/results.db"
BK="python3 -m bench_kernel"
LOG="$OUT/log.txt"
SPEC=examples/sweep_gemm.py
step() { echo "=== $1 ($(date +%T))" | tee -a "$LOG"; }

step "run 1: the sweep, --best --plot"
timeout $T $BK sweep $SPEC $ARGS --best --plot "$OUT/sweep-gemm-h200.png" --x M >> "$LOG" 2>&1
echo "exit $?" >> "$LOG"
step "run 2: the same sweep again"
timeout $T $BK sweep $SPEC $ARGS >> "$LOG" 2>&1
echo "exit $?" >> "$LOG"
step "run 3: torch made ~10% slower"
SWEEP_GEMM_SLOW=torch timeout $T $BK sweep benchmarks/gpu/sweep_gemm_slowed.py $ARGS >> "$LOG" 2>&1
echo "exit $?" >> "$LOG"
step "compare"
$BK compare 1 2 >> "$LOG" 2>&1; SAME=$?
$BK compare 1 2 --strict-clocks >> "$LOG" 2>&1; STRICT=$?
$BK compare 2 3 >> "$LOG" 2>&1; SLOW=$?
$BK compare 3 2 >> "$LOG" 2>&1; BACK=$?
echo "compare exit: same=$SAME strict=$STRICT slow=$SLOW reverse=$BACK" | tee -a "$LOG"
MULTI_ARGS=()
NGPU=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "${NGPU:-0}" -ge 2 ]; then
  step "run 4: --gpus all on $NGPU GPUs"
  timeout $T $BK sweep $SPEC $ARGS --gpus all >> "$LOG" 2>&1
  echo "exit $?" >> "$LOG"
  $BK compare 1 4 >> "$LOG" 2>&1; MULTI=$?
  MULTI_ARGS=(--multi 4)
  EXTRA="multi=$MULTI"
fi
step "report"
python3 benchmarks/gpu/sweep_gemm_report.py --db "$BENCH_KERNEL_DB" --first 1 --second 2 --slow 3 \
  "${MULTI_ARGS[@]}" --exit same=$SAME strict=$STRICT slow=$SLOW reverse=$BACK ${EXTRA:-} --out "$OUT" > /dev/null 2>> "$LOG"
echo "report exit $?" | tee -a "$LOG"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv >> "$LOG" 2>&1
cp "$BENCH_KERNEL_DB" "$OUT/results.db"
rm -rf "$WORK"
ls -la "$OUT"
tail -5 "$LOG"
