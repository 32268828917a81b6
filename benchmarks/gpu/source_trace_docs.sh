#!/usr/bin/env bash
# Source Trace documents on a GPU, committed to examples/ (en + zh), and every link checked.
#   OUT=out bash benchmarks/gpu/source_trace_docs.sh        (from the repo root; ~3 minutes on an H200)
# Writes examples/source_trace_{qwen2_moe,triton_add,compiled,linear_silu}.{en,zh}.md and brings back
# in $OUT: source_trace_docs.tgz (those 8 documents: untar into examples/ and commit), links.json
# (every link opened), qwen2_moe_8l.en.md (the 8-layer document) and summary.md (line counts, the
# 2-vs-8-layer diff). No network: the HF model is randomly initialised from a config.
set -uo pipefail
export PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
OUT=${OUT:-out}; mkdir -p "$OUT"
BK="python3 -m bench_kernel"
T=benchmarks/gpu/source_trace_targets.py
status=0
doc() {  # doc NAME TARGET [options...]: the en and zh documents of one target
  local name=$1 target=$2; shift 2
  for lang in en zh; do
    timeout 240 $BK source-trace "$target" --lang "$lang" "$@" -o "examples/source_trace_$name.$lang.md" \
      || { echo "FAILED: $name $lang"; status=1; }
  done
}
doc qwen2_moe "$T:hf_moe"
doc triton_add examples/triton_add.py:cases
doc compiled "$T:compiled"
doc linear_silu examples/torch_ops.py:cases --case linear_silu
# the same model with 8 layers: its document must read like the 2-layer one but for the counts
LAYERS=8 timeout 240 $BK source-trace "$T:hf_moe" -o "$OUT/qwen2_moe_8l.en.md" || status=1
python3 benchmarks/gpu/check_doc_links.py examples/source_trace_*.md --json "$OUT/links.json" || status=1
{
  echo "# Source Trace documents on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u +%F)"
  echo
  echo "| document | lines |"; echo "|---|---|"
  for f in examples/source_trace_*.en.md "$OUT/qwen2_moe_8l.en.md"; do echo "| $(basename "$f") | $(wc -l < "$f") |"; done
  echo
  echo '2 vs 8 layers, lines that differ other than in numbers:'
  echo '```'
  diff <(sed -E 's/[0-9]+(\.[0-9]+)?//g; s/[─ ]+/ /g' examples/source_trace_qwen2_moe.en.md) \
       <(sed -E 's/[0-9]+(\.[0-9]+)?//g; s/[─ ]+/ /g' "$OUT/qwen2_moe_8l.en.md") | head -40
  echo '```'
} > "$OUT/summary.md"
tar czf "$OUT/source_trace_docs.tgz" -C examples $(cd examples && ls source_trace_*.md)
ls -la "$OUT"
exit $status
