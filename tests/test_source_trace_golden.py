"""Golden Source Trace documents (en and zh), byte for byte, from the checked-in synthetic traces.

The traces come from tests/data/make_source_trace_fixtures.py: one op (linear + SiLU) and a
Qwen2-MoE-like decoder with 2 and with 8 layers. Refresh the goldens after an intended change with
``BENCH_KERNEL_UPDATE_GOLDEN=1 python -m pytest tests/test_source_trace_golden.py`` and read the diff.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import statistics
from pathlib import Path

import pytest

from bench_kernel.source_trace import document_trace

DATA = Path(__file__).resolve().parent / "data" / "source_trace"
GOLDEN = DATA / "golden"
CASES = {"op": ("op_linear_silu.json", {}), "moe": ("moe_L2.json.gz", {})}


def _doc(fixture: str, tmp_path: Path, **kw):
    # a root where none of the recorded user files exist: links stay as recorded, on every machine
    return document_trace(DATA / fixture, step=0, root=tmp_path, torch_ref="v2.13.0", **kw)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_document_matches_the_golden_file(case, lang, tmp_path):
    fixture, kw = CASES[case]
    text = _doc(fixture, tmp_path, **kw).to_markdown(lang)
    golden = GOLDEN / f"{case}.{lang}.md"
    if os.environ.get("BENCH_KERNEL_UPDATE_GOLDEN") == "1":
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def _layer_times(path: Path) -> list[float]:
    """Device time of each decoder layer in step 0, from the raw events: the kernels whose launch
    lies inside the layer's module marker."""
    events = json.loads(gzip.decompress(path.read_bytes()))["traceEvents"]
    step = next(e for e in events if e["name"] == "ProfilerStep#0")
    end = step["ts"] + step["dur"]
    layers = [e for e in events if e["name"].startswith("nn.Module: Qwen2MoeDecoderLayer_") and step["ts"] <= e["ts"] < end]
    launch = {e["args"]["correlation"]: e["ts"] for e in events if e.get("cat") == "cuda_runtime"}
    kernels = [(launch[e["args"]["correlation"]], e["dur"]) for e in events if e.get("cat") == "kernel"]
    return [sum(d for t, d in kernels if m["ts"] <= t <= m["ts"] + m["dur"]) for m in layers]


_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:\s?(?:ns|µs|ms|s)\b)?")


def _shape(line: str) -> str:
    """A line with its numbers (and their units) blanked and box-drawing padding collapsed."""
    return re.sub(r"[─ ]+", " ", _NUMBER.sub("N", line))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_eight_layers_read_like_two_but_for_the_counts(lang, tmp_path):
    two = _doc("moe_L2.json.gz", tmp_path).to_markdown(lang).splitlines()
    eight = _doc("moe_L8.json.gz", tmp_path).to_markdown(lang).splitlines()
    assert len(two) == len(eight) <= 200
    assert [_shape(a) for a in two] == [_shape(b) for b in eight]
    # and the counts that differ are the repeats: × 2 layers against × 8
    # (the structure line and the flow box)
    assert sum("Qwen2MoeDecoderLayer" in a and "× 2 " in a for a in two) == 2
    assert sum("Qwen2MoeDecoderLayer" in b and "× 8 " in b for b in eight) == 2


def test_the_model_document_folds_layers_and_experts(tmp_path):
    doc = _doc("moe_L8.json.gz", tmp_path)
    assert doc.scale == "model" and doc.flow == "modules"
    [causal] = doc.structure
    [model, head] = causal.children
    layer = next(n for n in model.children if n.cls == "Qwen2MoeDecoderLayer")
    assert layer.per_parent == (8, 8) and layer.instances_per_call == 8
    # the spread of the layers' device time, against the raw events of step 0
    per_layer = sorted(_layer_times(DATA / "moe_L8.json.gz"))
    assert layer.us_per_instance == pytest.approx((per_layer[0], statistics.median(per_layer), per_layer[-1]))
    moe = next(n for n in layer.children if n.cls == "Qwen2MoeSparseMoeBlock")
    experts = next(n for n in moe.children if n.cls == "Qwen2MoeMLP")
    # 3 or 4 routed experts per layer (by layer parity) plus the shared one
    assert experts.per_parent == (4, 5) and experts.instances_per_call == 4 * 4 + 4 * 5
    assert head.cls == "Linear" and head.module_type == "other"
    # one site per (kernel, call site): the expert GEMMs of all layers are 3 sites (gate/up share a stack)
    assert doc.overview.kernels_per_call == sum(s.launches_per_call for s in doc.kernels)
    assert len(doc.kernels) == doc.overview.distinct_sites == 20
    assert sum(s.share for s in doc.kernels) == pytest.approx(1.0)
    types = dict(doc.overview.by_module_type)
    assert set(types) == {"moe", "attention", "norm", "other", "embedding", "position"}
    assert sum(types.values()) == pytest.approx(1.0)
