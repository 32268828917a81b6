"""Demangling never raises: cxxfilt, the DF16b rewrite, c++filt, then the mangled prefix."""

from __future__ import annotations

import pytest

from bench_kernel.kernels import _demangle, decode, demangle

BF16_KERNEL = "_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi16ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib"
# clang >= 17 mangles a template parameter declaration as "Tn": no demangler here accepts it.
TN_KERNEL = "_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_ES3_S5_EEEEvPS3_PS4_i"


@pytest.fixture(autouse=True)
def _fresh_caches():
    _demangle.demangle.cache_clear()
    yield
    _demangle.demangle.cache_clear()


def test_plain_names_pass_through_untouched():
    d = demangle("triton_poi_fused_mul_silu_0")
    assert (d.text, d.readable, d.notes) == ("triton_poi_fused_mul_silu_0", "triton_poi_fused_mul_silu_0", ())


def test_bf16_builtin_is_demangled_even_by_an_old_libstdcxx():
    d = demangle(BF16_KERNEL)
    assert d.notes == ()
    assert d.text.startswith("void aiter::add_rmsnorm_quant_kernel<std::bfloat16_t, std::bfloat16_t, 256, 16, false")
    assert "decimal" not in d.text


def test_amd_kernel_descriptor_suffix_is_ignored():
    assert demangle(BF16_KERNEL + ".kd").text == demangle(BF16_KERNEL).text


def test_undemanglable_name_keeps_raw_and_reads_prefix():
    d = demangle(TN_KERNEL)
    assert d.text == TN_KERNEL
    assert d.readable == "sgl_hip::activation::act_and_mul_kernel<…>"
    assert len(d.notes) == 1 and "kept the raw name" in d.notes[0]


def test_missing_cxxfilt_and_cxxfilt_binary_still_gives_a_readable_name(monkeypatch):
    monkeypatch.setattr(_demangle, "_cxxfilt", lambda name: None)
    monkeypatch.setattr(_demangle, "_external", lambda name: None)
    d = demangle(BF16_KERNEL)
    assert d.text == BF16_KERNEL
    assert d.readable == "aiter::add_rmsnorm_quant_kernel<…>"
    assert "no installed demangler accepts this name" in d.notes[0]


def test_uninstalled_cxxfilt_is_named_in_the_note(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "cxxfilt", None)  # "import cxxfilt" now raises ImportError
    monkeypatch.setattr(_demangle, "_external", lambda name: None)
    _demangle._cxxfilt_available.cache_clear()
    try:
        d = demangle(BF16_KERNEL)
    finally:
        _demangle._cxxfilt_available.cache_clear()
    assert d.text == BF16_KERNEL
    assert "the cxxfilt package is unavailable" in d.notes[0]


def test_decode_of_undemanglable_name_is_still_classified_and_noted():
    k = decode(TN_KERNEL)
    assert k.demangled == TN_KERNEL
    assert k.short == "sgl_hip::activation::act_and_mul_kernel<…>"
    assert k.category == "activation"
    assert any("not demangled" in n for n in k.notes)


@pytest.mark.parametrize("bad", ["_Z", "_Z3", "_ZN", "_ZN999abc", "_ZNK", "_Z\x00\x00", "_Zé", "_ZN3abc"])
def test_garbage_after_Z_never_raises(bad):
    d = demangle(bad)
    assert d.text == bad
    assert d.notes and "kept the raw name" in d.notes[0]
