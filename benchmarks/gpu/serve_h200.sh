#!/usr/bin/env bash
# bench-kernel serve on the H200: `transformers serve --continuous-batching` with a random
# 0.85B-parameter bf16 Llama (14 layers, hidden 2048, GQA 16/4, MLP 8192) built here, launched BY
# bench-kernel serve (--launch), warmed up, swept over request rates, then a profiled window whose
# GPU trace goes through inventory, phases, timeline and layers. A second launch runs --sweep auto.
# Part 0 first: a prefix workload run 3 times with GPU telemetry and the server-metrics probe, its
# Markdown for benchmarks/results/serve-h200.md in $OUT/serve-h200-prefix.md. PARTS=0 runs only it
# (about 2-3 minutes); the default runs all (about 6-8 minutes). At most 10 files under $OUT.
# Run from the repository root (the device tool's working tree), with .whl/ carried:
#   bash benchmarks/gpu/serve_h200.sh
# A dry run of the same chain on a CPU (a tiny model, no continuous batching, fewer requests):
#   MODEL_ARGS="64 2 4 2 128 float32 cpu" CB="" PROMPTS=8 OUT_LEN=8 bash benchmarks/gpu/serve_h200.sh
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD/src
set -u
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
WORK=/tmp/serve_h200; rm -rf "$WORK"; mkdir -p "$WORK/prof" "$WORK/hf"
# transformers serve 5.17 answers /v1/models with HTTP 500 when the Hugging Face cache folder does not
# exist (a bare machine): give it an empty one, and name the model so the run never depends on that list.
export HF_HUB_CACHE="$WORK/hf"
MODEL=$WORK/llama-0.85b
BK="python3 -m bench_kernel"
PORT=8011
MODEL_ARGS=${MODEL_ARGS:-2048 14 16 4 8192 bfloat16 cuda}  # hidden layers heads kv_heads mlp dtype device
CB=${CB---continuous-batching}
PROMPTS=${PROMPTS:-48}
OUT_LEN=${OUT_LEN:-64}
SERVER="python3 tests/serve_profiling_wrapper.py $WORK/prof serve $MODEL $CB --host 127.0.0.1 --port $PORT"
summary() { echo "$@" | tee -a "$OUT/summary.txt"; }
: > "$OUT/summary.txt"

t0=$(date +%s)
timeout 300 python3 tests/serve_models.py "$MODEL" $MODEL_ARGS > "$WORK/build.log" 2>&1 \
  && summary "model built in $(( $(date +%s) - t0 )) s: $(du -sh "$MODEL" | cut -f1)" \
  || { summary "model build FAILED: $(tail -3 "$WORK/build.log")"; exit 1; }

# 0. the server's view and the GPU under a prefix workload, three runs (what serve-h200.md reports):
#    --launch with GPU telemetry (NVML) every 100 ms, /metrics scraped when it answers (transformers
#    serve 5.x has none: the run says so), warm-up by default, 5 s time slices. nvidia-ml-py must be
#    importable (the image has it, or carry its wheel in .whl/).
t0p=$(date +%s)
timeout 200 $BK serve --launch "$SERVER" --model "$MODEL" --server-log "$WORK/server0.log" --ready-timeout 180 \
  --dataset-name prefix_repetition --prefix-repetition-num-prefixes 4 --prefix-repetition-prefix-len 256 \
  --prefix-repetition-suffix-len 64 --prefix-repetition-output-len 32 --num-prompts 32 --max-concurrency 8 \
  --num-runs 3 --slice-duration 2 --json -o "$OUT/serve_prefix_runs.json" 2> "$WORK/prefix.err"
summary "prefix workload x3 runs: exit $? in $(( $(date +%s) - t0p )) s; $(grep 'bench-kernel: error' "$WORK/prefix.err" | head -1)"
$BK serve --help > /dev/null  # (keeps the timing above free of the report's imports)
python3 - "$OUT" <<'PY' | tee "$OUT/serve-h200-prefix.md"
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
try:
    d = json.load(open(out / "serve_prefix_runs.json"))
except Exception as e:
    print(f"serve_prefix_runs.json: unreadable ({e})"); raise SystemExit(0)
print(f"## Prefix workload, 3 runs: {d['server']['model']}, status {d['status']}\n")
for n in d.get("notes", []):
    print(f"- {n['kind']}: {n['text']}")
print("\n| run | done/failed | req/s | out tok/s | TTFT p50 | TTFT p99 | TPOT p50 | ITL p50 | E2E p50 | first/later TTFT p50 | GPU SM MHz min-max | power max W | util mean % | mem max GiB |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
f = lambda x: "-" if x is None else f"{x:.4g}"
for p in d["points"]:
    m, r, t = p["metrics"], p["requests"], p["throughput"]
    g = (p.get("gpu_telemetry") or [{}])[0].get("summary") or {}
    pg = p.get("prefix_groups") or {}
    gs = lambda k, s: f((g.get(k) or {}).get(s))
    mem = (g.get("memory_used_bytes") or {}).get("max")
    print(f"| {p.get('repeat')} | {r['completed']}/{r['failed']} | {t['requests_per_s']:.3g} | {t['output_tokens_per_s']:.4g} | "
          f"{f(m['ttft_ms']['p50'])} | {f(m['ttft_ms']['p99'])} | {f(m['tpot_ms']['p50'])} | {f(m['itl_ms']['p50'])} | "
          f"{f(m['e2el_ms']['p50'])} | {f(pg.get('first_ttft_p50_ms'))}/{f(pg.get('rest_ttft_p50_ms'))} | "
          f"{gs('sm_clock_mhz','min')}-{gs('sm_clock_mhz','max')} | {gs('power_w','max')} | {gs('utilization_pct','mean')} | "
          f"{f(mem / 2**30) if mem else '-'} |")
print("\nAcross the 3 runs (geometric mean, 95% CI of it):\n")
for rep in d.get("repeats", []):
    for s in rep["stats"]:
        ci = "-" if s["ci_low"] is None else f"{s['ci_low']:.4g}-{s['ci_high']:.4g}"
        print(f"- {s['metric']} ({s['unit']}): {', '.join(f'{v:.4g}' for v in s['values'])}; mean {s['mean']:.4g}, CI {ci}")
for p in d["points"][:1]:
    for sm in [p.get("server_metrics")] if p.get("server_metrics") else []:
        print(f"\nserver metrics: {sm['scrapes']} scrapes; view:")
        for row in sm["view"]:
            print(f"- {row['what']}: server {row['server']} client {row['client']}")
    sl = (p.get("slices") or {}).get("slices") or []
    if sl:
        print("\nslices of run 0:", "; ".join(f"{s['start_s']:g}s: {s['output_tokens_per_s']:.4g} tok/s TTFT p50 {f(s['ttft_p50_ms'])}" for s in sl))
PY

[ "${PARTS:-all}" = "0" ] && { ls -la "$OUT"; exit 0; }
# 1. rate sweep (warm-up first: the first requests pay the model load), then the profiled window.
t1=$(date +%s)
timeout 330 $BK serve --launch "$SERVER" --model "$MODEL" --server-log "$WORK/server1.log" --ready-timeout 180 \
  --warmup 8 --num-prompts "$PROMPTS" --random-input-len 256 --random-output-len "$OUT_LEN" --ignore-eos \
  --request-rate 2,4,8,16,inf --goodput ttft:500 tpot:100 \
  --profile --profile-dir "$WORK/prof" --profile-requests 4 --profile-timeout 180 \
  --json -o "$OUT/serve_sweep.json" 2> "$WORK/sweep.err"
rc=$?
summary "rate sweep + profile: exit $rc in $(( $(date +%s) - t1 )) s; $(grep 'bench-kernel: error' "$WORK/sweep.err" | head -1)"
tail -40 "$WORK/server1.log" > "$WORK/server1.tail"

# 2. the trace of the profiled window through the trace commands (each one on its own: one failing
#    keeps the others).
TRACE=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print((d.get('profile') or {}).get('traces', [''])[0])" "$OUT/serve_sweep.json" 2>/dev/null)
{
  echo "trace: $TRACE ($(du -h "$TRACE" 2>/dev/null | cut -f1))"
  for c in inventory phases timeline layers; do
    echo; echo "===== bench-kernel $c"
    case $c in inventory) extra="--top 15";; layers) extra="--step decode";; *) extra="";; esac
    timeout 120 $BK $c "$TRACE" $extra 2>&1 | head -80
  done
} > "$OUT/trace_analysis.txt" 2>&1
if [ -n "$TRACE" ] && [ "$(stat -c %s "$TRACE" 2>/dev/null || echo 99999999)" -lt 16000000 ]; then cp "$TRACE" "$OUT/trace.json.gz"; fi

# 3. the automatic sweep (synchronous, throughput, rates between; stops past saturation).
t2=$(date +%s)
timeout 240 $BK serve --launch "$SERVER" --model "$MODEL" --server-log "$WORK/server2.log" --ready-timeout 180 \
  --warmup 8 --num-prompts "$(( PROMPTS / 4 ))" --random-input-len 256 --random-output-len "$(( OUT_LEN / 2 ))" --ignore-eos \
  --sweep auto --sweep-points 3 --json -o "$OUT/serve_auto.json" 2> "$WORK/auto.err"
summary "auto sweep: exit $? in $(( $(date +%s) - t2 )) s; $(grep 'bench-kernel: error' "$WORK/auto.err" | head -1)"
{ echo "== server 1 (last 40 lines)"; cat "$WORK/server1.tail"; echo "== server 2"; tail -20 "$WORK/server2.log";
  echo "== stderr"; cat "$WORK/sweep.err" "$WORK/auto.err"; } > "$OUT/logs.txt" 2>&1

# 4. the summary: one line per point, the profile's kernel view.
python3 - "$OUT" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
for name in ("serve_sweep.json", "serve_auto.json"):
    try:
        d = json.load(open(out / name))
    except Exception as e:
        print(f"{name}: unreadable ({e})"); continue
    print(f"{name}: status {d.get('status')}, server {d['server'].get('model')}, sweep {d.get('sweep')}")
    for p in d.get("points", [d]):
        m, t = p["metrics"], p["throughput"]
        f = lambda k, s: "-" if m[k][s] is None else f"{m[k][s]:.1f}"
        print(f"  {p['load']}: {p['requests']['completed']}/{p['requests']['completed'] + p['requests']['failed']} ok, "
              f"{t['requests_per_s']:.2f} req/s, {t['output_tokens_per_s']:.0f} tok/s, TTFT p50 {f('ttft_ms','p50')} "
              f"p99 {f('ttft_ms','p99')} ms, TPOT p50 {f('tpot_ms','p50')}, ITL p50 {f('itl_ms','p50')}, "
              f"ICL p50 {f('icl_ms','p50')} ms, chunks {p['requests']['chunks']}/{p['requests']['output_tokens']} tokens, "
              f"send late p99 {p['client']['lateness_ms']['p99']}")
    w = d.get("profile")
    if w:
        v = w.get("view") or {}
        print(f"  profile: stop {w['stop_profile_s']:.1f} s, export {w['export_s']:.1f} s, error {w['error']}; kernels "
              f"{v.get('kernels')}, steps {v.get('steps')}, decode step {v.get('decode_step_us')} us, kernels/decode step "
              f"{v.get('kernels_per_decode_step')}")
        for k in (v.get("top_decode") or [])[:5]:
            print(f"    decode: {k['short'][:60]} x{k['count']} {k['total_us']:.0f} us")
PY
ls -la "$OUT"
