"""Regenerate section 2 of ``src/bench_kernel/kernels/data/inductor_ops.txt`` from torch's op registry.

Inductor names a fused kernel after the sorted names of the ops it fused, joined by ``_``
(``triton_poi_fused_native_layer_norm_mul_0``), so splitting a name back into ops needs the list of
op names that contain ``_`` themselves. Section 1 (custom and higher-order ops) is hand-maintained
and kept as it is; section 2 is every aten/prims op with an inner underscore, in-place ops (``_``
suffix) left out, and anything already in section 1 left out.

    python tools/gen_inductor_ops.py            # rewrite the file in place
    python tools/gen_inductor_ops.py --check    # exit 1 if the file is not what torch gives
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

FILE = Path(__file__).resolve().parent.parent / "src/bench_kernel/kernels/data/inductor_ops.txt"
MARK = "# Section 2:"


def registry_ops() -> list[str]:
    """aten/prims op base names with an inner underscore, sorted (torch is needed here only)."""
    import torch

    ops = set()
    for full in torch._C._dispatch_get_all_op_names():
        namespace, _, rest = full.partition("::")
        base = rest.split(".")[0]
        if namespace in ("aten", "prims") and not base.endswith("_") and "_" in base.strip("_"):
            ops.add(base)
    return sorted(ops)


def render(text: str, ops: list[str], torch_version: str) -> str:
    """The file with section 2 replaced by ``ops`` (minus section 1's names)."""
    lines = text.splitlines()
    cut = next(i for i, line in enumerate(lines) if line.startswith(MARK))
    head = lines[:cut]
    section1 = {line.strip() for line in head if line.strip() and not line.startswith("#")}
    version = torch_version.split("+")[0].rsplit(".", 1)[0]
    out = head + [
        f"{MARK} every aten/prims op with an underscore inside its name (in-place '_'-suffixed ones left out),",
        f"# generated from torch {version} with torch._C._dispatch_get_all_op_names() by tools/gen_inductor_ops.py.",
    ]
    out += [op for op in ops if op not in section1]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when the file differs")
    args = parser.parse_args(argv)
    import torch

    current = FILE.read_text(encoding="utf-8")
    new = render(current, registry_ops(), torch.__version__)
    if args.check:
        if new != current:
            print(f"{FILE} differs from torch {torch.__version__}'s registry; run tools/gen_inductor_ops.py",
                  file=sys.stderr)
            return 1
        return 0
    FILE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
