"""The contract: every decoding vector in ../shared/data/kernel_names/decode_vectors.json passes,
and every real kernel name decodes with a short name <= 80 characters and few ``other``s."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from bench_kernel.kernels import CATEGORIES, FAMILIES, MAX_SHORT, decode


def _vectors(shared_data):
    return json.loads((shared_data / "kernel_names" / "decode_vectors.json").read_text())["vectors"]


def _real_names(shared_data) -> list[str]:
    lines = (shared_data / "kernel_names" / "real_kernel_names.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == ["name", "seen_in"]
    return [line.split("\t")[0] for line in lines[1:] if line.strip()]


def _same(got, want) -> bool:
    # The vectors' contract: layout strings compare case-insensitively, everything else exactly.
    if isinstance(want, str) and isinstance(got, str):
        return got.lower() == want.lower()
    return type(got) is type(want) and got == want


def test_every_vector_passes(shared_data):
    failures = []
    vectors = _vectors(shared_data)
    assert len(vectors) >= 20
    for v in vectors:
        k = decode(v["name"])
        got = k.to_dict()
        if got["family"] != v["family"]:
            failures.append((v["name"][:60], "family", got["family"], v["family"]))
        if "category" in v and got["category"] != v["category"]:
            failures.append((v["name"][:60], "category", got["category"], v["category"]))
        for field, want in v["fields"].items():
            if not _same(got["fields"].get(field), want):
                failures.append((v["name"][:60], field, got["fields"].get(field), want))
        if "short_contains" in v and v["short_contains"] not in got["short"]:
            failures.append((v["name"][:60], "short", got["short"], v["short_contains"]))
    assert failures == []


def test_real_names_decode_within_limits(shared_data):
    names = _real_names(shared_data)
    assert len(names) >= 590
    decoded = [decode(n) for n in names]
    too_long = [k.short for k in decoded if len(k.short) > MAX_SHORT]
    assert too_long == []
    assert all(k.family in FAMILIES and k.category in CATEGORIES for k in decoded)
    other = sum(k.category == "other" for k in decoded)
    assert other / len(decoded) <= 0.10, Counter(k.category for k in decoded)
    # Every family the real names contain is recognised (these traces have no 'other'-only family
    # gap: each of these families appears at least once).
    families = Counter(k.family for k in decoded)
    for fam in ("ck", "tensile", "cublas", "cutlass", "inductor", "triton", "flash_attn", "flashinfer",
                "cudnn", "aiter", "nccl", "aten"):
        assert families[fam] > 0, fam


def test_real_names_short_is_stable_across_cache_clears(shared_data):
    from bench_kernel.kernels import _decode

    names = _real_names(shared_data)
    first = {n: decode(n).short for n in names}
    _decode._decode_default.cache_clear()
    _decode._parts.cache_clear()
    assert {n: decode(n).short for n in names} == first


@pytest.mark.parametrize("field", ["tile_m", "tile_n", "tile_k"])
def test_gemm_families_give_normalised_tiles_as_ints(shared_data, field):
    for n in _real_names(shared_data):
        k = decode(n)
        if k.family in ("tensile", "cutlass") or (k.family == "cublas" and "tile_m" in k.fields):
            if field == "tile_k" and k.fields.get("version") == 2 and "stages" not in k.fields:
                continue  # CUTLASS 2.x names without the K x stages group carry no K tile
            assert isinstance(k.fields[field], int), (n[:80], k.fields)
