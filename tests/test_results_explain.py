"""What changed: each point's explanation from what both sides recorded (real records, synthetic times).

The cases are the ones a regression hunt meets: a kernel that moved, a kernel swapped for another, a
kernel relaunched with another configuration, the graph time moving while the kernels' device time
held (the first, freshly compiling process of three identical H200 sweeps), the same kernels at
another speed on the same code (a fresh compile's other pick), another machine, another commit.
"""

from __future__ import annotations

import re

from _results_helpers import rounds_measurement
from bench_kernel.records import BenchResult, KernelStat, PointResult, RunInfo
from bench_kernel.results import compare_points, explain, launch_text


def _k(name: str, us: float, total: float, **launch) -> KernelStat:
    return KernelStat(name=name, short=name.split("<")[0], category="other", kind="kernel", count_per_call=1.0,
                      us_per_call=us, share=us / total, **launch)


def _point(graph_us: float, kernel_us: float, kernels: tuple[KernelStat, ...], *, seed: int, env: dict | None = None,
           provider: str = "compiled") -> PointResult:
    ms = {"graph": rounds_measurement(seed, 3, median_us=graph_us, between=0.003),
          "kernel": rounds_measurement(seed + 500, 3, median_us=kernel_us, between=0.003, method="kernel")}
    r = BenchResult(name=provider, params={"tokens": 64}, measurements=ms, kernels=kernels,
                    env={"device": "NVIDIA H200", "git_commit": "abc", "torch": "2.11", **(env or {})})
    return PointResult(provider, {"tokens": 64}, "ok", r)


def _one(a: PointResult, b: PointResult, **kw):
    (row,) = compare_points([a], [b], **kw).rows
    return row


def test_the_kernels_device_time_held_so_the_change_is_outside_the_kernels():
    ks = (_k("triton_red_fused_mul_rsqrt_0", 1.85, 1.85),)
    row = _one(_point(1.85, 1.85, ks, seed=1), _point(2.11, 1.86, ks, seed=2))
    assert row.comparison.verdict == "slower" and row.explanation.reasons[0].kind == "outside-kernels"
    assert row.explanation.summary.startswith("outside the kernels: graph 1.1")
    assert "the launch or graph-replay path moved" in row.explanation.summary
    assert row.explanation.method_verdicts == {"graph": "slower", "kernel": "same"}
    assert [r.kind for r in row.explanation.reasons] == ["outside-kernels", "methods"]


def test_kernels_that_moved_are_named_with_both_times():
    a = (_k("gemm_a", 80.0, 100.0), _k("add_b", 20.0, 100.0))
    b = (_k("gemm_a", 100.0, 120.0), _k("add_b", 20.0, 120.0))
    row = _one(_point(100.0, 100.0, a, seed=3), _point(120.0, 120.0, b, seed=4))
    assert row.explanation.summary == "kernels moved: gemm_a 80 -> 100 us (+25%): +20 us per call of 100"
    assert [(d.name, d.a_us, d.b_us) for d in row.explanation.kernels] == [("gemm_a", 80.0, 100.0),
                                                                          ("add_b", 20.0, 20.0)]


def test_a_kernel_swapped_and_a_kernel_relaunched():
    a = (_k("cutlass_80x128", 90.0, 100.0, grid=(128, 1, 1), block=(256, 1, 1)),
         _k("norm", 10.0, 100.0, grid=(64, 1, 1), block=(128, 1, 1), registers_per_thread=32, shared_memory_bytes=0))
    b = (_k("cutlass_256x128", 110.0, 122.0, grid=(64, 1, 1), block=(256, 1, 1)),
         _k("norm", 12.0, 122.0, grid=(64, 1, 1), block=(256, 1, 1), registers_per_thread=40, shared_memory_bytes=0))
    row = _one(_point(100.0, 100.0, a, seed=5), _point(122.0, 122.0, b, seed=6))
    kinds = {r.kind: r.text for r in row.explanation.reasons}
    assert kinds["kernel-set"] == ("kernel set changed (another library, heuristic or autotuner pick): gone: "
                                   "cutlass_80x128; added: cutlass_256x128")
    assert kinds["launch-config"] == ("launch configuration of norm: grid 64x1x1 block 128x1x1 regs 32 smem 0 -> "
                                      "grid 64x1x1 block 256x1x1 regs 40 smem 0")
    assert launch_text(a[0]) == "grid 128x1x1 block 256x1x1" and launch_text(_k("x", 1.0, 1.0)) is None


def test_the_same_kernels_at_another_speed_on_the_same_code_is_said_to_be_about_the_kernels():
    # two fresh compiles of one torch.compile'd RMSNorm on an H200: the same kernel name, 22% apart
    row = _one(_point(1.835, 2.112, (_k("triton_red_fused_0", 2.112, 2.112),), seed=7),
               _point(1.612, 1.728, (_k("triton_red_fused_0", 1.728, 1.728),), seed=8))
    assert row.comparison.verdict == "faster"
    same = next(r.text for r in row.explanation.reasons if r.text.startswith("the same kernels"))
    assert same.startswith("the same kernels (names) ran -18% by their device time on the same code: a fresh "
                           "Inductor/Triton compile or autotune can pick another configuration")


def test_the_machine_and_the_code_are_named_where_they_differ():
    ks = (_k("k", 10.0, 10.0),)
    a = _point(10.0, 10.0, ks, seed=9, env={"driver": "580.1", "state_after": {"temperature_c": 40}})
    b = _point(12.0, 12.0, (_k("k", 12.0, 12.0),), seed=10,
               env={"driver": "580.2", "torch": "2.12", "git_commit": "def", "state_after": {"temperature_c": 71}})
    run = RunInfo(id=1, kind="sweep", name="s", status="done", created_at="t", source_hash="aa" * 32, git_dirty=False)
    row = _one(a, b, a_run=run, b_run=run.replace(id=2, source_hash="bb" * 32, git_dirty=True))
    kinds = {r.kind: r.text for r in row.explanation.reasons}
    assert kinds["machine"] == "the machine differs: driver 580.1 -> 580.2; torch 2.11 -> 2.12; temperature 40 -> 71 C"
    assert kinds["code"] == ("the code differs: git commit abc -> def; sweep source sha256 aaaaaaaaaa -> bbbbbbbbbb; "
                             "uncommitted changes: A False, B True")
    assert "the same kernels" not in " ".join(kinds.values())  # the code changed: it is not the compile's pick


def test_a_same_point_carries_no_explanation_and_one_without_kernels_says_so():
    ks = (_k("k", 10.0, 10.0),)
    row = _one(_point(10.0, 10.0, ks, seed=11), _point(10.0, 10.0, ks, seed=12))
    assert (row.comparison.verdict, row.explanation) == ("same", None)
    bare = PointResult("k", {"tokens": 64}, "ok", BenchResult(name="k", params={"tokens": 64}, measurements={
        "graph": rounds_measurement(13, 3, median_us=100.0, between=0.003)}))
    slow = bare.replace(result=bare.result.replace(measurements={
        "graph": rounds_measurement(14, 3, median_us=150.0, between=0.003)}))
    why = explain(bare, slow, "graph", _one(bare, slow).comparison)
    assert why.summary == ("nothing both sides recorded differs but the time; no kernel breakdown on either side "
                           "(time both with -m kernel to see which kernels moved)")


def test_an_inconclusive_point_whose_noise_is_outside_the_kernels_says_so_and_names_the_noisy_side():
    # The H100's first, freshly compiling sweep: graph rounds 1.94, 2.88, 2.84 us, kernel rounds steady.
    from _results_helpers import gpu_like_samples
    from bench_kernel.records import Measurement, Samples

    def rounds(medians, method="graph"):
        values = [v for i, m in enumerate(medians) for v in gpu_like_samples(i + int(m * 100), n=30, median_us=m,
                                                                            sigma=0.005)]
        return Measurement.of(method, Samples.of(values), calls_per_sample=20, stop_reason="precision", wall_s=0.5,
                              round_sizes=(30,) * len(medians))

    ks = (_k("triton_red_fused_add_mean_mul_pow_rsqrt_0", 2.35, 2.35),)

    def point(graph, kernel):
        r = BenchResult(name="compiled", params={"tokens": 1}, kernels=ks,
                        measurements={"graph": rounds(graph), "kernel": rounds(kernel, "kernel")},
                        env={"device": "NVIDIA H100", "git_commit": "abc", "torch": "2.11"})
        return PointResult("compiled", {"tokens": 1}, "ok", r)

    row = _one(point([1.94, 2.88, 2.84], [2.368, 2.368, 2.336]), point([2.03, 1.95, 1.93], [2.304, 2.336, 2.336]))
    assert row.comparison.verdict == "inconclusive"
    why = row.explanation
    assert why.reasons[0].kind == "outside-kernels"
    assert why.summary.startswith("cannot tell at this noise (noise floor +/-")
    assert "; the noise is outside the kernels: graph's noise floor" in why.summary
    assert re.search(r"A's rounds spread (48|49)%, B's 5%", why.summary) and "on A's side" in why.summary  # 2.88 / 1.94
    # steady graph rounds on both sides: no such reason, however wide the threshold leaves it
    calm = _one(point([1.94, 1.95, 1.93], [2.368, 2.368, 2.336]), point([2.03, 1.95, 1.93], [2.304, 2.336, 2.336]))
    assert all(r.kind != "outside-kernels" for r in (calm.explanation.reasons if calm.explanation else ()))
