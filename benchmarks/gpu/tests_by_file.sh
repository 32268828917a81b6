#!/usr/bin/env bash
# Run the GPU tests one file at a time under one deadline, so that a device call that runs out of
# time still returns every finished file's full report (a killed pytest loses its summary).
#   OUT=out DEADLINE_S=480 bash benchmarks/gpu/tests_by_file.sh [FILE ...]   (default: every gpu file)
# Writes $OUT/gpu-tests.txt: each file's `pytest -rA` report, then one line per file skipped for time.
set -uo pipefail
OUT=${OUT:-out}; DEADLINE_S=${DEADLINE_S:-480}; mkdir -p "$OUT"
export PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
files=("$@")
[ ${#files[@]} -gt 0 ] || mapfile -t files < <(grep -l "mark.gpu" tests/*.py tests/hostile/*.py | sort)
end=$(( $(date +%s) + DEADLINE_S )); log="$OUT/gpu-tests.txt"; : > "$log"
for f in "${files[@]}"; do
  left=$(( end - $(date +%s) ))
  if [ "$left" -lt 20 ]; then echo "NOT RUN (out of time): $f" >> "$log"; continue; fi
  echo "=== $f ($(date -u +%T), ${left}s left)" >> "$log"
  timeout "$left" python3 -m pytest -q -rA --tb=short -m "gpu and not slow" -p no:cacheprovider "$f" >> "$log" 2>&1
  echo "=== rc $? for $f" >> "$log"
done
grep -E "^(=== rc|NOT RUN|[0-9]+ (passed|failed)|FAILED)" "$log"
