"""benchmarks/gpu/check_doc_links.py, which the GPU docs script runs: right links pass, wrong ones fail."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "gpu" / "check_doc_links.py"


def _checker():
    spec = importlib.util.spec_from_file_location("check_doc_links", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_links_are_opened_and_checked(tmp_path):
    (tmp_path / "model.py").write_text("import torch\n\n@torch.no_grad()\ndef forward(x):\n    return x\n\n"
                                       "def other():\n    pass\n")
    docs = tmp_path / "docs"
    docs.mkdir()
    good = docs / "good.md"
    good.write_text("- [forward](../model.py:3)\n- [other](../model.py#L7)\n- [<module>](../model.py:1)\n"
                    "- [x](https://github.com/pytorch/pytorch/blob/v2.13.0/aten/src/ATen/native/cuda/Loops.cuh)\n")
    bad = docs / "bad.md"
    bad.write_text("- [forward](../model.py:7)\n- [gone](../missing.py:1)\n")
    check = _checker()
    r = check.check(good)
    assert (r["checked"], r["wrong"], r["urls"]) == (3, [], 1)
    r = check.check(bad)
    assert [w["why"] for w in r["wrong"]] == ["line does not name the function", "file not found"]
    assert check.main([str(good)]) == 0 and check.main([str(good), str(bad)]) == 1
