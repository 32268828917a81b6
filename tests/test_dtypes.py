"""The one dtype vocabulary: every spelling lands on one canonical name, every row is validated."""

from __future__ import annotations

from importlib import resources

import pytest

from bench_kernel import dtypes
from bench_kernel.errors import UsageError


def _rows(name: str) -> list[list[str]]:
    text = resources.files("bench_kernel").joinpath("data", name).read_text()
    return [ln.split("\t") for ln in text.splitlines() if ln.strip() and not ln.startswith("#")][1:]


def test_every_dtype_row_is_loaded():
    assert [d.name for d in dtypes.all_dtypes()] == [r[0] for r in _rows("dtypes.tsv")]


def test_every_spelling_row_maps_to_its_dtype():
    rows = _rows("dtype_spellings.tsv")
    assert len(rows) > 50
    for spelling, canon in rows:
        assert dtypes.lookup(spelling) == canon, spelling


@pytest.mark.parametrize("given,canon", [
    ("torch.bfloat16", "bf16"), ("bfloat16", "bf16"), ("BF16", "bf16"), ("c10::BFloat16 const*", "bf16"),
    ("__nv_bfloat16&", "bf16"), ("torch.float32", "fp32"), ("float", "fp32"), ("c10::Half", "fp16"),
    ("torch.float8_e4m3fn", "fp8e4m3"), ("ck::f8_fnuz_t", "fp8e4m3fnuz"), ("unsigned char", "uint8"),
    ("long", "int64"), ("torch.int32", "int32"), ("fp8", "fp8"),
])
def test_spellings(given, canon):
    assert dtypes.canonical(given) == canon


def test_torch_dtypes_map_through_their_names():
    torch = pytest.importorskip("torch")
    for d in dtypes.all_dtypes():
        if d.torch_name and hasattr(torch, d.torch_name):
            assert dtypes.canonical(getattr(torch, d.torch_name)) == d.name


@pytest.mark.parametrize("given,peak", [("torch.float8_e4m3fn", "fp8"), ("fp8e5m2fnuz", "fp8"), ("bf16", "bf16"),
                                        ("uint8", "int8"), ("nvfp4", "fp4"), ("complex64", "fp32")])
def test_peak_class(given, peak):
    assert dtypes.peak_class(given) == peak


def test_unknown_and_peakless_dtypes_are_usage_errors():
    assert dtypes.lookup("fp12") is None
    with pytest.raises(UsageError, match=r"unknown dtype 'fp12'; expected one of fp64, fp32"):
        dtypes.canonical("fp12")
    with pytest.raises(UsageError, match=r"dtype 'int32' has no peak rate"):
        dtypes.peak_class("torch.int32")


def test_bits():
    assert (dtypes.bits("bf16"), dtypes.bits("fp8e4m3"), dtypes.bits("fp4"), dtypes.bits("torch.float64")) == (16, 8, 4, 64)
