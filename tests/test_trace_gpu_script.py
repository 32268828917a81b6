"""benchmarks/gpu/make_decode_graph_trace.py: its model runs (CPU smoke test) and, on a GPU, its
trace's layer period equals the independently counted kernels of one layer."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "gpu" / "make_decode_graph_trace.py"


def _script():
    pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location("make_decode_graph_trace", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_decode_step_runs_on_cpu():
    torch = pytest.importorskip("torch")
    mod = _script()
    model = mod.Decoder(layers=2, hidden=64, heads=4, inter=96, vocab=50, max_seq=16, batch=3).eval()
    tokens, pos = torch.randint(0, 50, (3, 1)), torch.tensor([5])
    with torch.no_grad():
        logits = model.step(tokens, pos)
    assert logits.shape == (3, 1, 50) and torch.isfinite(logits).all()
    cache = model.layers[0].k_cache
    assert cache[:, :, 5].abs().sum() > 0 and cache[:, :, 4].abs().sum() == 0  # wrote only position 5


@pytest.mark.gpu
def test_script_self_check_on_gpu(tmp_path, monkeypatch):
    mod = _script()
    monkeypatch.setenv("OUT", str(tmp_path))
    assert mod.main(["--replays", "2"]) == 0
    expected = json.loads((tmp_path / "h200_decode_graph.expected.json").read_text())
    assert expected["layers"] == 4 and expected["replays"] == 2 and expected["kernels_per_layer"] > 5
