"""Rounds of one case joined into one record, back-to-back rounds in bench(), the check's error in
the result, and the note that says why the methods disagree (real records, synthetic samples)."""

from __future__ import annotations

import json

import pytest

import bench_kernel
from bench_kernel.measure import agreement_note, merge_measurements, merge_results
from bench_kernel.records import BenchResult, Measurement, Samples, info, warning


def _m(method, values, clocks=(), wall_s=0.1, cps=1, error=None, **kw):
    return Measurement.of(method, Samples.of(values), calls_per_sample=cps, wall_s=wall_s, sm_clock_mhz=tuple(clocks),
                       error=error, **kw)


def test_rounds_join_in_order_with_their_sizes_and_aligned_clocks():
    a = _m("graph", [10.0, 11.0, 12.0], clocks=[1980.0] * 3, stop_reason="precision")
    b = _m("graph", [20.0, 21.0], stop_reason="time")  # this round read no clock
    c = _m("graph", [12.0, 13.0, 14.0, 15.0], clocks=[1500.0] * 4)
    m = merge_measurements([a, b, c])
    assert m.samples.values_us == (10.0, 11.0, 12.0, 20.0, 21.0, 12.0, 13.0, 14.0, 15.0)
    assert m.round_sizes == (3, 2, 4) and m.rounds == 3
    assert m.sm_clock_mhz == (1980.0,) * 3 + (None, None) + (1500.0,) * 4  # aligned with the samples
    assert m.round_medians_us == (11.0, 20.5, 13.5) and m.median_us == 13.5  # the median of the round medians
    assert m.wall_s == pytest.approx(0.3) and m.stop_reason == "time"  # a round on its time bound is said
    back = Measurement.from_dict(json.loads(json.dumps(m.to_dict())))
    assert (back.round_sizes, back.median_us, back.round_medians_us) == (m.round_sizes, 13.5, m.round_medians_us)
    assert m.to_dict()["rounds"] == 3 and m.to_dict()["round_medians_us"] == [11.0, 20.5, 13.5]


def test_a_round_that_failed_is_left_out_and_said():
    ok = _m("graph", [10.0, 11.0])
    failed = Measurement.failed("graph", "capture failed: cudaErrorStreamCaptureUnsupported")
    m = merge_measurements([ok, failed, ok])
    assert m.ok and m.round_sizes == (2, 2)
    assert m.notes[-1].code == "rounds-failed" and m.notes[-1].data["rounds"] == [2]
    assert m.notes[-1].text == "graph: round(s) 2 of 3 did not measure (capture failed: cudaErrorStreamCaptureUnsupported)"
    none = merge_measurements([failed, failed])
    assert not none.ok and none.error.startswith("capture failed")


def test_one_round_stays_one_round_and_older_records_read_as_one():
    m = merge_measurements([_m("host", [5.0, 6.0, 7.0])])
    assert m.round_sizes == () and m.rounds == 1 and m.median_us == 6.0
    old = {k: v for k, v in _m("host", [5.0, 6.0, 7.0]).to_dict().items() if k not in ("round_sizes", "rounds")}
    assert Measurement.from_dict(old).rounds == 1
    with pytest.raises(ValueError, match="round_sizes \\[2, 2\\] must be positive and sum to the 3 samples"):
        _m("host", [1.0, 2.0, 3.0], round_sizes=(2, 2))


def test_results_join_their_measurements_notes_and_a_wrong_round():
    warm, drifted = info("warm", "warm L2"), warning("drift", "drifted")
    r1 = BenchResult("k", {"M": 1}, {"host": _m("host", [1.0, 2.0])}, correct=True, notes=(warm,), env={"d": 1})
    r2 = BenchResult("k", {"M": 1}, {"host": _m("host", [3.0])}, notes=(warm, drifted), env={"d": 2})
    j = merge_results([r1, r2], rounds_env=[{"round": 1, "pid": 10}, {"round": 2, "pid": 11}])
    assert j.measurements["host"].round_sizes == (2, 1) and j.correct is True
    assert [n.text for n in j.notes] == [warm.text, f"{drifted.text} (in 1 of 2 rounds)"]
    assert j.notes[1].code == drifted.code and j.notes[1].data["rounds"] == [2]
    assert j.env == {"d": 1, "rounds": [{"round": 1, "pid": 10}, {"round": 2, "pid": 11}]}
    assert merge_results([r1, BenchResult("k", {"M": 1}, correct=False)]).correct is False


def test_bench_runs_its_rounds_back_to_back_and_keeps_the_checks_error():
    import torch

    torch.manual_seed(0)
    x = torch.randn(4096)
    r = bench_kernel.bench(lambda t: torch.nn.functional.gelu(t, approximate="tanh"), make_inputs=lambda: (x,),
                           reference=torch.nn.functional.gelu, rtol=1e-3, methods=("host",), precision=0.5,
                           max_time_s=0.02, rounds=3)
    m = r.measurements["host"]
    assert m.rounds == 3 and len(m.round_medians_us) == 3 and r.correct is True
    assert r.check.passed and 1e-4 < r.check.rel_error < 1e-3 and r.check.rtol == 1e-3  # a tanh-GELU against exact GELU
    assert r.to_dict()["check"]["rel_error"] == r.check.rel_error  # the error measured, in the JSON
    wrong = bench_kernel.bench(lambda t: torch.nn.functional.gelu(t, approximate="tanh"), make_inputs=lambda: (x,),
                               reference=torch.nn.functional.gelu, methods=("host",), max_time_s=0.02, rounds=1)
    assert wrong.correct is False and wrong.measurements == {} and not wrong.check.passed
    assert f"relative error {wrong.check.rel_error:.3g} (max abs" in wrong.notes[-1].text  # the error, printed
    assert 1e-4 < wrong.check.rel_error < 3e-4 and "exceeds the fp32 tolerance rtol 0.0001" in wrong.notes[-1].text


# Measured: a power-capped 8192^3 bf16 GEMM held steady on an H200 read graph 1618-1634 us, events
# 1485-1528 us and kernel 1366-1380 us; back-to-back graph replays keep the clock at the cap, the
# profiler's one call per sample lets it recover.
GEMM = {"graph": _m("graph", [1626.0] * 40, clocks=[1515.0] * 40, wall_s=0.066, cps=1),
        "events": _m("events", [1500.0] * 40, clocks=[1620.0] * 40, wall_s=0.09),
        "kernel": _m("kernel", [1373.0] * 40, clocks=[1755.0] * 40, wall_s=0.16)}


def test_graph_and_kernel_that_disagree_by_more_than_5_percent_say_why_and_which_answers_what():
    note = agreement_note(GEMM)
    assert note.code == "methods-disagree" and note.kind == "warning"
    note = note.text
    assert note.startswith("graph and kernel disagree by 18%: graph 1.626 ms (1515 MHz, busy 99%), kernel 1.373 ms "
                           "(1755 MHz, busy 34%); why: they ran at different SM clocks")
    assert "the device rested between samples for one and not the other" in note
    assert "graph: the cost per call in sustained back-to-back work" in note
    assert "kernel: the kernels' own device time, at the clock they ran at" in note
    assert "events" not in note  # events include the launches: not compared


def test_no_note_unless_like_is_compared_with_like():
    agree = {k: _m(k, [100.0 + i] * 10, wall_s=0.002) for i, k in enumerate(("graph", "events", "kernel"))}
    assert agreement_note(agree) is None
    # events far above graph and kernel: the launch overhead, shown as 'launch ovh', never a disagreement
    launch = {"graph": _m("graph", [10.0] * 10, wall_s=0.0002), "events": _m("events", [40.0] * 10, wall_s=0.0008),
              "kernel": _m("kernel", [10.2] * 10, wall_s=0.0002)}
    assert agreement_note(launch) is None
    # a sub-2-us graph above its kernel: the graph node's own cost (graph_floor_note says it)
    node = {"graph": _m("graph", [1.03] * 10, wall_s=1.03e-5), "kernel": _m("kernel", [0.85] * 10, wall_s=0.85e-5)}
    assert agreement_note(node) is None
    # a cold kernel (L2 flushed) against a warm graph (one input set): the cache differs, not the methods
    cache = {"graph": _m("graph", [4.0] * 10, wall_s=4e-5, cache="warm"), "kernel": _m("kernel", [7.4] * 10, wall_s=7e-5)}
    assert agreement_note(cache) is None
    unexplained = {"graph": _m("graph", [100.0] * 10, wall_s=0.001), "kernel": _m("kernel", [80.0] * 10, wall_s=0.0008)}
    assert "why: no recorded clock or gap explains it" in agreement_note(unexplained).text
    assert agreement_note({"host": _m("host", [5.0]), "graph": _m("graph", [1.0])}) is None  # host is not compared
    assert agreement_note({"events": _m("events", [50.0] * 10), "graph": _m("graph", [10.0] * 10)}) is None


def test_a_stop_on_the_time_bound_is_judged_per_round():
    # Joined, five rounds' samples have a narrow interval and one round's stop says nothing of it:
    # the note once read "stopped at the 0.5 s bound at +/-0.9%, above the 1.0% precision asked for".
    from bench_kernel.measure import Timed, merge_measurements
    from bench_kernel.measure._measure import _method_notes
    from bench_kernel.options import Options

    def rnd(spread, stop):  # 30 samples around 100 us; `spread` sets the round's own interval
        return Timed(_m("host", [100.0 + spread * ((i % 7) - 3) for i in range(30)], stop_reason=stop))

    rounds = [rnd(0.1, "precision"), rnd(6.0, "time"), rnd(0.1, "time"), rnd(9.0, "time"), rnd(0.1, "precision")]
    wide = [t.measurement.samples.rel_ci95 for t in rounds]
    assert wide[1] > 0.01 and wide[3] > wide[1] and wide[2] < 0.01  # rounds 2 and 4 fell short; 3 did not
    merged = {"host": Timed(merge_measurements([t.measurement for t in rounds]))}
    options = Options(precision=0.01, max_time_s=0.5)
    assert [n.text for n in _method_notes({"host": rounds}, merged, options)] == [
        f"host: stopped at the 0.5 s bound its rounds share in 2 of 5 rounds at up to +/-{wide[3]:.1%}, above the 1.0% precision "
        f"asked for"]
    one = {"host": rounds[1:2]}
    assert [n.text for n in _method_notes(one, {"host": rounds[1]}, options)] == [
        f"host: stopped at the 0.5 s bound at +/-{wide[1]:.1%}, above the 1.0% precision asked for"]
    assert _method_notes({"host": rounds[2:3]}, {"host": rounds[2]}, options) == []  # precise enough at the bound


def test_rounds_go_where_the_noise_is():
    # rounds=None: the default rounds always, more only where they disagree though each met its
    # precision, never past the method's bound; rounds=K: exactly K.
    from bench_kernel.measure._rounds import RoundPlan
    from bench_kernel.options import Options

    plan = RoundPlan.of(Options(max_time_s=0.6), gpu=True)
    assert (plan.min_rounds, plan.max_rounds, plan.share_s) == (3, 6, pytest.approx(0.2))

    def rounds(*medians, stop="precision"):
        return [_m("graph", [x] * 10, stop_reason=stop) for x in medians]

    assert plan.wants_more(rounds(100.0, 100.0), 0.1)  # fewer than the default rounds
    assert not plan.wants_more(rounds(100.0, 100.5, 100.2), 0.1)  # they agree within 1%: done
    assert plan.wants_more(rounds(100.0, 104.0, 100.2), 0.1)  # they disagree: another round
    assert not plan.wants_more(rounds(100.0, 104.0, 100.2), 0.58)  # ... unless the bound is (nearly) spent
    assert not plan.wants_more(rounds(100.0, 104.0, 100.2, stop="time"), 0.1)  # no round met its precision
    assert not plan.wants_more(rounds(*[100.0, 104.0] * 3), 0.1)  # at most twice the default rounds
    assert plan.round_bound_s(1, 0.4) == pytest.approx(0.2)  # a default round gets its share
    assert plan.round_bound_s(3, 0.5) == pytest.approx(0.1)  # a round beyond them, what is left
    ticks = [_m("kernel", [1.024, 1.056, 1.056, 1.088] * 5 if i % 2 else [1.056, 1.088, 1.088, 1.12] * 5,
                stop_reason="precision") for i in range(3)]  # medians 1.056 and 1.088: one 32 ns step apart
    assert not plan.wants_more(ticks, 0.1)  # they agree to the timer's step: no more rounds
    fixed = RoundPlan.of(Options(rounds=2, max_time_s=0.6), gpu=True)
    assert (fixed.min_rounds, fixed.max_rounds, fixed.share_s) == (2, 2, pytest.approx(0.3))
    assert not fixed.wants_more(rounds(100.0, 150.0), 0.1)
    assert RoundPlan.of(Options(), gpu=False).min_rounds == 5  # the host method's default


def test_the_round_loop_follows_the_plan_per_method():
    from bench_kernel.measure import Timed
    from bench_kernel.measure._measure import _time_rounds
    from bench_kernel.measure._rounds import RoundPlan
    from bench_kernel.options import Options

    class Fake:
        """A method whose round r reads medians[r]; records the bound each round was given."""

        def __init__(self, name, medians):
            self.name, self.medians, self.bounds = name, list(medians), []

        def run(self, runner, rule):
            self.bounds.append(rule.max_time_s)
            x = self.medians[len(self.bounds) - 1]
            return Timed(_m(self.name, [x] * 10, stop_reason="precision", wall_s=0.01))

    quiet, drifting = Fake("graph", [5.0] * 6), Fake("events", [5.0, 5.5, 5.0, 5.0, 5.0, 5.0])
    options = Options(max_time_s=0.3)
    per_method, holds = _time_rounds(None, [quiet, drifting], RoundPlan.of(options, True), options, None, lambda m: None)
    assert [len(per_method[k]) for k in ("graph", "events")] == [3, 6] and holds == []
    assert quiet.bounds == [pytest.approx(0.1)] * 3


def test_a_sweep_point_s_notes_are_made_once_from_its_rounds():
    # Each round of a sweep point is a result of its own, with its own notes: joined as they were,
    # the disagreement note (its numbers differing) was printed once per round.
    def rnd(g, k, fell_to, extra=()):
        ms = {"graph": _m("graph", [g] * 40, clocks=[1515.0] * 40, wall_s=0.066),
              "kernel": _m("kernel", [k] * 40, clocks=[1755.0] * 40, wall_s=0.16)}
        notes = [warning("clock-throttled", f"clock throttling: SM clock fell from 1980 to {fell_to} MHz during "
                         "the measurement"), *extra, agreement_note(ms)]
        return BenchResult("gemm", {}, ms, notes=tuple(notes), env={"state_before": {"max_sm_clock_mhz": 1980}})

    counted = info("flops-counted", "FLOPs counted: 1.1e+12 (bench-kernel: aten::mm)")
    unstable = warning("warmup-unstable", "warm-up did not stabilise within 0.2 s (9 calls)")
    parts = [rnd(1626.0, 1373.0, 1575, extra=[counted]), rnd(1610.0, 1380.0, 1560),
             rnd(1630.0, 1370.0, 1575, extra=[unstable])]
    assert all(sum(n.code == "methods-disagree" for n in p.notes) == 1 for p in parts)
    j = merge_results(parts)
    disagree = [n for n in j.notes if n.code == "methods-disagree"]
    assert disagree == [agreement_note(j.measurements)]  # once, judged again on the joined rounds
    texts = [n.text for n in j.notes]
    assert "clock throttling: SM clock fell from 1980 to 1575 MHz during the measurement (in 3 of 3 rounds; " \
           "round 1's numbers)" in texts
    assert counted in j.notes  # round 1 alone counts the work: kept as it is
    assert f"{unstable.text} (in 1 of 3 rounds)" in texts
    assert [n.kind for n in j.notes if n.code == "warmup-unstable"] == ["warning"]  # the producer's kind stays
    clock = [n for n in j.notes if n.text.startswith("graph: the SM clock ran at")]
    assert len(clock) == 1  # the clock note, once, from the joined clocks
