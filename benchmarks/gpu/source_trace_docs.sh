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
status=0
timeout 480 python3 benchmarks/gpu/make_source_trace_docs.py --out-8l "$OUT/qwen2_moe_8l.en.md" || status=1
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
