"""Make a small CUDA-graph decode trace on a GPU: the fixture behind ``tests/test_trace_layers.py``.

    PYTHONPATH=src python3 benchmarks/gpu/make_decode_graph_trace.py [--replays 3] [--profile-during-capture]

Writes to ``$OUT`` (or ``./out``):
- ``h200_decode_graph.json.gz``       the trace: one decode step captured in one CUDA graph, replayed
                                      ``--replays`` times under ``torch.profiler`` (a few hundred kernels);
- ``h200_decode_graph.expected.json`` what the test asserts: ``kernels_per_layer``, ``layers``, ``replays``.
Copy both into ``tests/data/trace/`` and commit them.

The model is a Llama-like decoder in plain torch, no downloads: 4 layers, hidden 1024, 8 heads of 128,
bf16, RMSNorm (``F.rms_norm``), rotary embeddings from a precomputed table, a static KV cache of 256
positions with SDPA over it (masked to the current position), a SwiGLU MLP (intermediate 2816), then
a final norm and the LM head. Every layer runs the same kernels, so the trace's kernel sequence
repeats with a period of one layer.

``kernels_per_layer`` is counted independently of bench-kernel's period finder: layer 0 alone is
captured in its own graph, replayed under the profiler, and its kernel events counted. The script
then runs ``bench_kernel.trace.layers`` on the full trace and exits 1 if the two disagree, so a
mismatch is seen before the files are committed. If the trace has no kernels at all (some CUPTI
versions do not trace graphs captured before profiling starts), rerun with
``--profile-during-capture``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

LAYERS, HIDDEN, HEADS, INTERMEDIATE, VOCAB, MAX_SEQ, BATCH = 4, 1024, 8, 2816, 32000, 256, 4


class Layer(nn.Module):
    """One decoder layer: RMSNorm, QKV, rotary, KV-cache write, SDPA, O, RMSNorm, SwiGLU MLP."""

    def __init__(self, hidden: int, heads: int, inter: int, max_seq: int, batch: int) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.norm1 = nn.Parameter(torch.ones(hidden))
        self.norm2 = nn.Parameter(torch.ones(hidden))
        self.qkv = nn.Linear(hidden, 3 * hidden, bias=False)
        self.o = nn.Linear(hidden, hidden, bias=False)
        self.gate_up = nn.Linear(hidden, 2 * inter, bias=False)
        self.down = nn.Linear(inter, hidden, bias=False)
        shape = (batch, heads, max_seq, self.head_dim)
        self.register_buffer("k_cache", torch.zeros(shape), persistent=False)
        self.register_buffer("v_cache", torch.zeros(shape), persistent=False)

    def forward(self, x: torch.Tensor, pos: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                mask: torch.Tensor) -> torch.Tensor:
        b, t, h = x.shape  # t == 1: one decode token per sequence
        y = F.rms_norm(x, (h,), self.norm1)
        q, k, v = self.qkv(y).view(b, t, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k = _rotate(q, cos, sin), _rotate(k, cos, sin)
        self.k_cache.index_copy_(2, pos, k)
        self.v_cache.index_copy_(2, pos, v)
        a = F.scaled_dot_product_attention(q, self.k_cache, self.v_cache, attn_mask=mask)
        x = x + self.o(a.transpose(1, 2).reshape(b, t, h))
        g, u = self.gate_up(F.rms_norm(x, (h,), self.norm2)).chunk(2, dim=-1)
        return x + self.down(F.silu(g) * u)


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


class Decoder(nn.Module):
    """Embedding, ``layers`` decoder layers, final norm, LM head; ``step`` runs one decode token."""

    def __init__(self, layers: int = LAYERS, hidden: int = HIDDEN, heads: int = HEADS, inter: int = INTERMEDIATE,
                 vocab: int = VOCAB, max_seq: int = MAX_SEQ, batch: int = BATCH) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList(Layer(hidden, heads, inter, max_seq, batch) for _ in range(layers))
        self.norm = nn.Parameter(torch.ones(hidden))
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        hd = hidden // heads
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        ang = torch.outer(torch.arange(max_seq).float(), inv)
        self.register_buffer("cos", torch.cat((ang.cos(), ang.cos()), -1), persistent=False)
        self.register_buffer("sin", torch.cat((ang.sin(), ang.sin()), -1), persistent=False)
        self.register_buffer("positions", torch.arange(max_seq), persistent=False)

    def rope_and_mask(self, pos: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        cos, sin = self.cos[pos], self.sin[pos]  # (1, head_dim): gathered on the device, graph-safe
        return cos, sin, (self.positions <= pos).view(1, 1, 1, -1)

    def step(self, tokens: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        cos, sin, mask = self.rope_and_mask(pos)
        for layer in self.layers:
            x = layer(x, pos, cos, sin, mask)
        return self.lm_head(F.rms_norm(x, (x.shape[-1],), self.norm))


def _capture(fn) -> torch.cuda.CUDAGraph:
    """Warm ``fn`` up on a side stream (lazy init, cuBLAS handles), then capture it in a graph."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    torch.cuda.synchronize()
    return graph


def _profile(replay, n: int, path: Path) -> None:
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=acts) as prof:
        for _ in range(n):
            replay()
        torch.cuda.synchronize()
    prof.export_chrome_trace(str(path))


def _kernel_count(path: Path) -> int:
    with open(path) as f:
        return sum(1 for e in json.load(f)["traceEvents"] if e.get("cat") == "kernel")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replays", type=int, default=3)
    ap.add_argument("--profile-during-capture", action="store_true",
                    help="start the profiler before capturing (for CUPTI versions that miss earlier graphs)")
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        print("make_decode_graph_trace: needs a CUDA GPU", file=sys.stderr)
        return 2
    out = Path(os.environ.get("OUT", "out"))
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = Decoder().to(dev, torch.bfloat16).eval()
    tokens = torch.randint(0, VOCAB, (BATCH, 1), device=dev)
    pos = torch.tensor([17], device=dev)

    with torch.no_grad(), tempfile.TemporaryDirectory() as tmp:
        # 1. The independent count: layer 0 alone, in its own graph.
        x = torch.randn(BATCH, 1, HIDDEN, device=dev, dtype=torch.bfloat16)
        cos, sin, mask = model.rope_and_mask(pos)
        layer_graph = _capture(lambda: model.layers[0](x, pos, cos, sin, mask))
        layer_trace = Path(tmp) / "layer.json"
        _profile(layer_graph.replay, 2, layer_trace)
        per_layer = _kernel_count(layer_trace)
        if per_layer % 2:
            print(f"odd kernel count {per_layer} for 2 replays of one layer", file=sys.stderr)
            return 1
        per_layer //= 2

        # 2. The fixture: the whole decode step in one graph, replayed under the profiler.
        trace = Path(tmp) / "decode.json"
        if args.profile_during_capture:
            acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
            with torch.profiler.profile(activities=acts) as prof:
                graph = _capture(lambda: model.step(tokens, pos))
                for _ in range(args.replays):
                    graph.replay()
                torch.cuda.synchronize()
            prof.export_chrome_trace(str(trace))
        else:
            graph = _capture(lambda: model.step(tokens, pos))
            _profile(graph.replay, args.replays, trace)
        gz = out / "h200_decode_graph.json.gz"
        with open(trace, "rb") as src, gzip.open(gz, "wb") as dst:
            shutil.copyfileobj(src, dst)

    expected = {"kernels_per_layer": per_layer, "layers": LAYERS, "replays": args.replays,
                "device": torch.cuda.get_device_name(), "torch": torch.__version__,
                "cuda": torch.version.cuda, "model": {"hidden": HIDDEN, "heads": HEADS, "intermediate": INTERMEDIATE,
                                                      "batch": BATCH, "kv_cache": MAX_SEQ, "dtype": "bfloat16"}}
    (out / "h200_decode_graph.expected.json").write_text(json.dumps(expected, indent=2) + "\n")

    # 3. Self-check with bench-kernel itself (needs its dependencies: numpy, msgspec, click, rich).
    try:
        from bench_kernel.trace import layers, load_trace
    except ImportError as e:
        print(f"wrote {gz}; self-check skipped ({e}): run the layers test after copying the files")
        return 0
    t = load_trace(gz)
    print(f"wrote {gz} ({gz.stat().st_size:,} bytes, {t.kernel_count} kernels, "
          f"{int(t.graph_launched.sum())} graph-replayed); one layer = {per_layer} kernels")
    if not t.kernel_count:
        print("no kernels in the trace: rerun with --profile-during-capture", file=sys.stderr)
        return 1
    rep = layers(t)
    print(f"bench-kernel layers: period {rep.period}, {rep.layer_count} layers, anchor {rep.anchor}")
    ok = rep.period == per_layer and rep.layer_count == LAYERS * args.replays
    print("self-check:", "OK" if ok else f"MISMATCH (expected period {per_layer}, {LAYERS * args.replays} layers)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
