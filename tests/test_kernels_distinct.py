"""Short names are unique within a table (three hipBLASLt kernels of an MI300 trace showed under one name)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from bench_kernel.kernels import decode, distinct_shorts
from bench_kernel.trace import diff, inventory, load_trace

#: The three hipBLASLt solutions of torch_compile_triton__trace.json.gz that shared one short name.
_COMMON = ("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_"
           "CADS0_DTLA0_DTLB0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMBSK_GLS0_ISA942_IU1_K1_LDSTI0_")
HIPBLASLT = (
    _COMMON + "LBSPPA1024_LBSPPB256_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV0_MIWT8_6_MO40_NTn1_NTA0_NTB0_NTC0_NTD4_"
    "NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW8_SK0_SKFTR0_SKXCCM0_TLDS1_ULSGRO0_USL1_"
    "UIOFGRO0_USFGROn1_VSn1_VWA8_VWB2_WSGRA0_WSGRB0_WS64_WG32_8_1",
    _COMMON + "LBSPPA1024_LBSPPB256_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV0_MIWT8_6_MO40_NTn1_NTA0_NTB0_NTC0_NTD4_"
    "NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW8_SK0_SKFTR0_SKXCCM0_TLDS1_ULSGRO1_USL1_"
    "UIOFGRO0_USFGROn1_VSn1_VWA8_VWB2_WSGRA0_WSGRB0_WS64_WG32_8_1",
    _COMMON + "LBSPPA512_LBSPPB512_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV0_MIWT4_12_MO40_NTn1_NTA0_NTB0_NTC0_NTD4_"
    "NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW4_SK0_SKFTR0_SKXCCM0_TLDS1_ULSGRO0_USL1_"
    "UIOFGRO0_USFGROn1_VSn1_VWA4_VWB4_WSGRA0_WSGRB0_WS64_WG64_4_1",
)
SHORT = "Cijk_TN_BBS_BH_MT256x192x64_MI16x16x1_ISA942"


def test_the_three_hipblaslt_solutions_get_the_parameters_that_differ():
    assert {decode(n).short for n in HIPBLASLT} == {SHORT}
    assert [distinct_shorts(HIPBLASLT)[n] for n in HIPBLASLT] == [
        f"{SHORT} [LBSPPA1024 ULSGRO0]", f"{SHORT} [ULSGRO1]", f"{SHORT} [LBSPPA512]"]
    # Each label is the fewest parameters that tell one solution from the rest of the set: alone, or
    # beside a kernel with another short name, a solution keeps its plain short name.
    assert distinct_shorts(HIPBLASLT[:1] + ("gemm_kernel",)) == {HIPBLASLT[0]: SHORT, "gemm_kernel": "gemm_kernel"}
    assert distinct_shorts(HIPBLASLT[1:]) == {HIPBLASLT[1]: f"{SHORT} [LBSPPA1024]",
                                              HIPBLASLT[2]: f"{SHORT} [LBSPPA512]"}


def test_decoded_fields_words_then_numbers():
    a = "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<bool, at::native::func_wrapper_t<bool, x> > >(int)"
    b = a.replace("<128, 4,", "<256, 2,")
    assert decode(a).short == decode(b).short
    got = distinct_shorts([a, b])
    assert got == {a: f"{decode(a).short} [threads=128]", b: f"{decode(a).short} [threads=256]"}
    # Names that differ only in a character no word holds: numbered in the order of the raw names.
    same = ["kernel<1>", "kernel<1> "]
    assert distinct_shorts(same) == {"kernel<1>": "kernel<1> [#1]", "kernel<1> ": "kernel<1> [#2]"}


def _traces(traces_dir: Path) -> list[Path]:
    found = sorted(traces_dir.glob("*.json.gz"))
    assert len(found) >= 10
    return found


def _kernel_names(path: Path) -> set[str]:
    with gzip.open(path, "rt") as f:
        return {e["name"] for e in json.load(f)["traceEvents"] if e.get("cat") == "kernel"}


@pytest.mark.slow
def test_no_two_kernels_of_a_shared_trace_share_a_short_name_in_a_table(traces_dir):
    seen_collisions = 0
    for path in _traces(traces_dir):
        t = load_trace(path, links=False)
        names = {t.names[i] for i in set(t.kernels.name.tolist())}
        if not names:
            continue
        seen_collisions += len(names) - len({decode(n).short for n in names})
        rows = inventory(t).kernels
        assert len({r.short for r in rows}) == len(rows) == len(names), path.name
        # every record and table of the trace reads the same distinct short name
        assert {t.decoded(int(i)).short for i in set(t.kernels.name.tolist())} == {r.short for r in rows}
    assert seen_collisions >= 10  # the shared traces do hold kernels that plain short names merge


@pytest.mark.parametrize("a,b", [("vllm_decode_full__graph_execution.json.gz",
                                  "vllm_prefilldecode_piecewise__graph_execution.json.gz"),
                                 ("torch_compile_triton__trace.json.gz", "mi300__resnet_act_checkpoint.json.gz")])
def test_a_diff_of_two_traces_keys_each_kernel_once(traces_dir, a, b):
    ta, tb = load_trace(traces_dir / a, links=False), load_trace(traces_dir / b, links=False)
    d = diff(ta, tb)
    names = _kernel_names(traces_dir / a) | _kernel_names(traces_dir / b)
    assert len(d.kernels) == len({r.key for r in d.kernels}) == len(names)
