"""Write the Source Trace documents of ``source_trace_docs.sh`` in one process (one torch start, one
compilation per target), each document once and rendered in both languages.

    PYTHONPATH=src python3 benchmarks/gpu/make_source_trace_docs.py [--out-8l FILE]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
TARGETS = "benchmarks/gpu/source_trace_targets.py"
DOCS = [("qwen2_moe", f"{TARGETS}:hf_moe", None), ("triton_add", "examples/triton_add.py:cases", None),
        ("compiled", f"{TARGETS}:compiled", None), ("linear_silu", "examples/torch_ops.py:cases", "linear_silu")]


def _document(target: str, case_name: str | None, out: Path):
    from bench_kernel.measure import load_target
    from bench_kernel.source_trace import document_call

    cases = load_target(str(ROOT / target))
    case = next(c for c in cases if case_name in (None, c.label))
    return document_call(case.fn, make_inputs=case.make_inputs, name=case.label, root=ROOT, doc_path=out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-8l", type=Path, default=None, help="Also document the HF model with 8 layers here.")
    args = ap.parse_args(argv)
    failed = 0
    for name, target, case_name in DOCS:
        en = ROOT / "examples" / f"source_trace_{name}.en.md"
        try:
            doc = _document(target, case_name, en)
        except Exception as e:  # noqa: BLE001 - one failing target must not hide the others
            print(f"FAILED {name}: {type(e).__name__}: {e}")
            failed += 1
            continue
        for lang in ("en", "zh"):
            (ROOT / "examples" / f"source_trace_{name}.{lang}.md").write_text(doc.to_markdown(lang), encoding="utf-8")
        print(f"{name}: {len(doc.kernels)} call sites, {doc.overview.kernels_per_call:g} kernels per call, "
              f"{len(doc.to_markdown().splitlines())} lines")
    if args.out_8l:
        os.environ["LAYERS"] = "8"
        # linked as if it sat beside the 2-layer document, so the two differ only in counts
        doc = _document(f"{TARGETS}:hf_moe", None, ROOT / "examples" / "source_trace_qwen2_moe.en.md")
        args.out_8l.write_text(doc.to_markdown("en"), encoding="utf-8")
        print(f"qwen2_moe 8 layers: {len(doc.to_markdown().splitlines())} lines")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
