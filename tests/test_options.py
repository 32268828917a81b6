"""Options: one frozen record of how to measure, checked once, with one stored shape."""

from __future__ import annotations

import dataclasses
import math

import pytest

from bench_kernel.errors import UsageError
from bench_kernel.options import METHODS, OPTION_FIELDS, Options


@pytest.mark.parametrize("field,value,says", [
    ("methods", ("graph", "bogus"), "unknown method 'bogus'"),
    ("methods", (), "no method given"),
    ("cache", "lukewarm", "cache must be 'cold' or 'warm'"),
    ("precision", 0, "precision must be a finite number > 0"),
    ("precision", math.nan, "precision must be a finite number > 0"),
    ("max_time_s", -1.0, "max_time_s must be a finite number > 0"),
    ("max_time_s", math.inf, "max_time_s must be a finite number > 0"),
    ("timeout_s", -3, "timeout_s must be > 0 seconds"),
    ("timeout_s", math.nan, "timeout_s must be > 0 seconds"),
    ("device_index", -1, "device_index must be a GPU index >= 0"),
    ("device_index", True, "device_index must be a GPU index >= 0"),
    ("device", "  ", "device must be a peak-table name"),
    ("steady", "yes", "steady must be True or False"),
    ("rounds", 0, "rounds must be a whole number"),
])
def test_a_bad_field_is_one_usage_error_naming_it(field, value, says):
    with pytest.raises(UsageError, match=says):
        Options(**{field: value})


def test_values_are_normalised_once():
    o = Options(methods=("kernel", "graph", "kernel"), timeout_s=0)
    assert o.methods == ("kernel", "graph") and o.timeout_s is None
    assert Options(methods="host").methods == ("host",)
    assert Options(timeout_s=math.inf).timeout_s is None and Options(timeout_s=5).timeout_s == 5.0
    assert Options(methods=("host", "events")).gpu_methods == ("events",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        Options().cache = "warm"  # type: ignore[misc]


def test_build_takes_what_was_given_over_a_base():
    base = Options(cache="warm", precision=0.02)
    o = Options.build(base, precision=None, max_time_s=0.1)
    assert (o.cache, o.precision, o.max_time_s) == ("warm", 0.02, 0.1)  # None is "not given"
    assert Options.build() == Options()
    with pytest.raises(UsageError, match="unknown option 'precison'"):
        Options.build(precison=0.1)


def test_the_stored_shape_round_trips_and_older_runs_read_back():
    o = Options(methods=("events",), cache="warm", steady=True, roofline=True, device="H200", timeout_s=None)
    assert Options.from_dict(o.to_dict()) == o
    # a sweep stored before timeout_s, roofline... existed: the missing fields take their defaults
    old = {"methods": ["host"], "cache": "cold", "precision": 0.5, "max_time_s": 0.02}
    # ... except rounds: a run stored before rounds existed was measured in one
    assert Options.from_dict(old) == Options(methods=("host",), precision=0.5, max_time_s=0.02, rounds=1)
    assert Options.from_dict({**old, "someday": 1}) == Options.from_dict(old)  # unknown keys of a newer run
    assert Options.from_dict(Options(rounds=None).to_dict()).rounds is None  # "the default" stays the default


def test_rounds_default_per_method_and_a_given_count_wins():
    from bench_kernel.options import DEFAULT_ROUNDS

    assert Options().rounds is None
    assert Options(methods=("host",)).rounds_for(gpu=False) == DEFAULT_ROUNDS["host"]
    assert Options().rounds_for(gpu=True) == max(DEFAULT_ROUNDS[m] for m in ("graph", "events", "kernel"))
    # without a GPU the GPU methods run as host, so host's default applies
    assert Options(methods=("graph",)).rounds_for(gpu=False) == DEFAULT_ROUNDS["host"]
    assert Options(methods=("graph", "host")).rounds_for(gpu=True) == max(DEFAULT_ROUNDS["graph"], DEFAULT_ROUNDS["host"])
    assert Options(rounds=7).rounds_for(gpu=True) == Options(rounds=7).rounds_for(gpu=False) == 7
    # steady, the mode for small regressions, times GPU methods in more rounds; the host keeps its own
    from bench_kernel.options import STEADY_GPU_ROUNDS

    assert Options(steady=True).rounds_for(gpu=True) == STEADY_GPU_ROUNDS > DEFAULT_ROUNDS["graph"]
    assert Options(steady=True).rounds_for(gpu=False) == DEFAULT_ROUNDS["host"]
    assert Options(steady=True, rounds=2).rounds_for(gpu=True) == 2
    for bad in (0, -1, 1.5, True, "3", 101):
        with pytest.raises(UsageError, match="rounds must be a whole number from 1 to 100"):
            Options(rounds=bad)


def test_every_field_is_settable_from_the_command_line_and_pytest():
    assert [f.name for f in OPTION_FIELDS] == [f.name for f in dataclasses.fields(Options)]
    methods = next(f for f in OPTION_FIELDS if f.name == "methods")
    assert methods.choices == METHODS and methods.default == Options().methods


def test_bench_takes_options_or_keywords_not_both():
    import bench_kernel

    with pytest.raises(UsageError, match="give either options= or cache, precision"):
        bench_kernel.bench(lambda: None, cache="warm", precision=0.5, options=Options())
    r = bench_kernel.bench(lambda: None, options=Options(methods=("host",), precision=0.5, max_time_s=0.02, rounds=1))
    assert list(r.measurements) == ["host"]


def test_counters_imply_the_roofline_and_are_checked_like_a_flag():
    assert Options(counters=True).roofline is True and Options().counters is False
    with pytest.raises(UsageError, match="counters must be True or False, got 'yes'"):
        Options(counters="yes")
    older = {k: v for k, v in Options().to_dict().items() if k != "counters"}  # a run stored before --counters
    assert Options.from_dict(older).counters is False
