"""Short names: readable, at most 80 characters, a pure function of the name, never raising."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench_kernel.kernels import MAX_SHORT, decode
from bench_kernel.kernels._shorten import fit, shorten_cxx

ADD_BF16 = ("void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>, "
            "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)")
COPY_LAMBDA = ("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_"
               "kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() "
               "const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::"
               "TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda("
               "c10::BFloat16)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct"
               "_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator"
               "()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at"
               "::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c"
               "10::BFloat16)#1} const&)::{lambda(int)#1})")
ENABLE_IF = ("std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type vllm::fused_add_rms_"
             "norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, c10::BFloat16*, c10::BFloat16 const*, float, int, int)")


@pytest.mark.parametrize("name, short", [
    (ADD_BF16, "at::native::vectorized_elementwise_kernel<add, bf16>"),
    (COPY_LAMBDA, "at::native::elementwise_kernel<copy, bf16>"),
    (ENABLE_IF, "vllm::fused_add_rms_norm_kernel<bf16, 8>"),
    ("void (anonymous namespace)::softmax_warp_forward<float, float, float, 9, false, false>(float*, float const*, "
     "int, int, int, bool const*, int, bool)", "softmax_warp_forward<fp32, fp32, fp32, 9, false, false>"),
    ("void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, unsigned char, (vllm::Fp8KVCacheDataType)1>"
     "(__nv_bfloat16 const*)", "vllm::reshape_and_cache_flash_kernel<bf16, uint8, 1>"),
    ("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "ncclDevKernel_AllGather"),
    ("triton_poi_fused__to_copy_add_cat_fmha_v3_fwd_mul_neg_stack_unbind_unsqueeze_view_13",
     "triton_poi_fused_add_cat_fmha_v3_fwd_mul_neg_stack_13"),
])
def test_known_shorts(name, short):
    assert decode(name).short == short


def test_fit_cuts_at_the_limit_with_an_ellipsis():
    assert fit("a" * 100) == "a" * 79 + "…"
    assert fit("  a   b ") == "a b"
    assert len(fit("x" * 1000, 20)) == 20


def test_long_template_arguments_are_dropped_from_the_end():
    # The outermost namespace stays (it names the library), the inner ones go first.
    name = "void ns::inner::k<" + ", ".join(f"Arg{i}<int>" for i in range(40)) + ">(int)"
    short = shorten_cxx(name)
    assert short.startswith("ns::k<Arg0<int32>, Arg1<int32>") and short.endswith("…>")
    assert len(short) <= MAX_SHORT


# Adversarial text: brackets that never close or close twice, deep nesting, unicode, NUL, lambdas.
_PIECES = st.sampled_from(["<", ">", "(", ")", "{", "}", "[", "]", "::", ",", " ", "_Z", "N", "I", "E", "3",
                           "void ", "const", "{lambda(", "#1}", "operator()", "(anonymous namespace)::",
                           "c10::BFloat16", "\x00", "é", "核", "\U0001F600", "\t", "\n", "->", "&", "*"])
ADVERSARIAL = st.lists(st.one_of(_PIECES, st.text(max_size=8)), max_size=60).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ADVERSARIAL)
def test_adversarial_names_never_raise_and_stay_short(name):
    k = decode(name)
    assert len(k.short) <= MAX_SHORT
    assert decode(name).short == k.short  # stable
    assert k.to_dict()["name"] == name


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_random_text_never_raises(name):
    k = decode(name)
    assert len(k.short) <= MAX_SHORT
    assert k.category


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=1, max_value=400), st.sampled_from(["<", "(", "{", "["]))
def test_huge_nested_and_unbalanced_templates(depth, opener):
    closer = {"<": ">", "(": ")", "{": "}", "[": "]"}[opener]
    nested = "void k" + ("<T" * depth) + (">" * depth) + "(int)"
    unbalanced = "void k" + (opener + "T") * depth
    overclosed = "k<int>" + closer * depth
    for name in (nested, unbalanced, overclosed):
        assert len(decode(name).short) <= MAX_SHORT


@pytest.mark.parametrize("name,short,note", [
    ("", "", None), (" ", "", None), ("\x00", "", "NUL characters removed before decoding"),
    ("\x00" * 10, "", "NUL characters removed before decoding"), ("<>", "<>", None), (">>>>", ">>>>", None),
    ("(((", "(((", None), ("::", "::", None),
    ("_Z", "_Z", "not demangled: no installed demangler accepts this name; kept the raw name"),
    ("x" * 200_000, "x" * (MAX_SHORT - 1) + "…", "name is 200,000 characters; decoded from its first 8,192"),
])
def test_edge_cases(name, short, note):
    # None of these is a kernel of any family: exactly 'other', with the short name and the note each gets.
    k = decode(name)
    assert (k.family, k.category, k.short, k.fields) == ("other", "other", short, {})
    assert [n for n in k.notes if note and n.startswith(note)] == ([k.notes[0]] if note else [])
    assert len(k.notes) == (1 if note else 0)


def test_nul_and_huge_names_are_noted():
    assert any("NUL" in n for n in decode("abc\x00def").notes)
    assert any("characters; decoded from its first" in n for n in decode("y" * 70_000).notes)
