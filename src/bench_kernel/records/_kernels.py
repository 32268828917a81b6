"""A kernel name, decoded (``bench_kernel.kernels.decode``): its family, short name, category and the
fields its family's grammar encodes. What ``decode --json`` prints, one per name.

The families and categories are ``Literal`` choices here, the one list that ``kernels`` decodes into
and that a rules file is checked against.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Annotated, Any, Literal, Mapping, get_args

from bench_kernel.records._base import Record, derive, doc

__all__ = ["Family", "Category", "FAMILIES", "CATEGORIES", "KernelName"]

Family = Literal["ck", "tensile", "cublas", "cutlass", "inductor", "triton", "flash_attn", "flashinfer", "cudnn",
                 "aiter", "nccl", "aten", "other"]
#: Every family a name can be of, in the order decoders are tried (``other`` last).
FAMILIES: tuple[Family, ...] = get_args(Family)

# ``copy`` and ``fill`` are kernels that copy or fill memory; ``memcpy`` and ``memset`` are the
# runtime's copy and set activities (``Memcpy HtoD``), which are not kernels (one word for both hid
# which was which). ``topk`` and ``sort`` serve sampling and MoE routing alike, so they are not
# called ``sampling``.
Category = Literal["gemm", "attention", "norm", "activation", "elementwise", "reduction", "softmax", "rope",
                   "kv_cache", "quant", "moe", "communication", "copy", "fill", "memcpy", "memset", "sampling",
                   "topk", "sort", "embedding", "other"]
#: Every category a kernel can be in; ``other`` is what no rule claimed.
CATEGORIES: tuple[Category, ...] = get_args(Category)


def _freeze(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


class KernelName(Record, frozen=True, kw_only=True):
    """One kernel name, decoded. Decodes are cached and shared, so ``fields`` is read-only (a list
    in it is held as a tuple; JSON writes it as a list)."""

    name: Annotated[str, doc("the name exactly as the profiler showed it")]
    family: Annotated[Family, doc("the decoder that read it; `other`: none did")]
    short: Annotated[str, doc("a readable name of at most 80 characters for tables; the same name always "
                              "gives the same short")]
    category: Annotated[Category, doc("what the kernel does; `other`: no rule claimed it")]
    fields: Annotated[Mapping[str, Any], doc(
        "what the family's decoder read from the name: normalised `tile_m`/`tile_n`/`tile_k` for GEMM-like "
        "kernels, then the family's own fields in snake_case (dtypes, layout, stages, ...); integers are "
        "integers")] = {}
    demangled: Annotated[str, doc("the demangled C++ name (the name itself when it was not mangled or "
                                  "demangling failed)")]
    inferred: Annotated[tuple[str, ...], doc("fields whose meaning was inferred from observed names, not read "
                                             "from a published grammar")] = ()
    notes: Annotated[tuple[str, ...], doc("caveats: demangling unavailable, fields inferred, a name cut or a "
                                          "part that is not what it looks like")] = ()
    rule: Annotated[str | None, doc("the id of the category rule that matched; null: none did (category "
                                    "`other`)")] = None

    def __post_init__(self) -> None:
        if not isinstance(self.fields, MappingProxyType):
            derive(self, fields=MappingProxyType({k: _freeze(v) for k, v in dict(self.fields).items()}))

    def __hash__(self) -> int:
        # fields is a read-only mapping (unhashable); the name and the rules-dependent category
        # identify a decode.
        return hash((self.name, self.family, self.category))
