"""The CLI's defaults are the Python API's (STYLE habit 4): a default changed on one side only fails here.

Each pair maps an API parameter to the CLI parameter that sets it; the test reads both defaults from
the code (``inspect.signature`` and the click command), so neither side is restated as a literal.
"""

from __future__ import annotations

import importlib
import inspect

import pytest

PAIRS = [
    # (api "module:function", cli "module", {api parameter: cli parameter})
    ("bench_kernel.trace:inventory", "bench_kernel.cli.inventory", {"by": "by", "top": "top", "per_step": "per_step"}),
    ("bench_kernel.trace:layers", "bench_kernel.cli.layers", {"anchor": "anchor", "step": "step"}),
    ("bench_kernel.trace:timeline", "bench_kernel.cli.timeline", {"launch_gap_max_us": "launch_gap_us"}),
    ("bench_kernel.trace:timeline_ranks", "bench_kernel.cli.timeline",
     {"workers": "workers", "shapes": "shapes", "launch_gap_max_us": "launch_gap_us"}),
    ("bench_kernel.trace:ops", "bench_kernel.cli.ops", {"by": "by", "device": "device_name", "context_len": "context_len",
                                                      "moe_intermediate": "moe_intermediate"}),
    ("bench_kernel.report_model:load_report", "bench_kernel.cli.report", {"threshold": "threshold", "top": "top"}),
    ("bench_kernel.results:compare", "bench_kernel.cli.compare", {"threshold": "threshold"}),
    ("bench_kernel.roofline:analyze", "bench_kernel.cli.roofline",
     {"dtype": "dtype", "name": "name", "timed_with": "timed_with", "device": "device"}),
    ("bench_kernel.serve:ServeOptions", "bench_kernel.cli.serve",
     {k: k for k in ("endpoint", "dataset_name", "num_prompts", "random_input_len", "random_output_len",
                     "random_range_ratio", "seed", "burstiness", "warmup", "sweep_points", "slo_ratio",
                     "request_timeout_s", "ready_timeout_s", "profile_requests", "profile_timeout_s", "ignore_eos")}),
]


def _api(target: str):
    module, name = target.split(":")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("api,cli,mapping", PAIRS, ids=[p[1].rsplit(".", 1)[1] for p in PAIRS])
def test_cli_defaults_are_the_api_defaults(api, cli, mapping):
    sig = inspect.signature(_api(api)).parameters
    command = importlib.import_module(cli).command
    # the values click passes when the user gives no option (flags included)
    opts = command.make_context(command.name, [], resilient_parsing=True).params
    assert {a: opts[c] for a, c in mapping.items()} == {a: sig[a].default for a in mapping}


def test_the_measuring_defaults_are_written_once_in_options():
    """bench(), run, sweep and the plugin take their measuring defaults from Options: the API's
    signature shows Options' values, and a command given no option passes nothing at all."""
    import dataclasses

    import bench_kernel
    from bench_kernel.options import OPTION_FIELDS, Options

    defaults = {f.name: f.default for f in dataclasses.fields(Options)}
    sig = inspect.signature(bench_kernel.bench).parameters
    assert {k: sig[k].default for k in defaults} == defaults
    assert {f.name for f in OPTION_FIELDS} == set(defaults)
    for cli in ("bench_kernel.cli.run", "bench_kernel.cli.sweep"):
        command = importlib.import_module(cli).command
        given = command.make_context(command.name, ["x"], resilient_parsing=True).params
        # click passes "not given" for every measuring option; Options.build() then fills the defaults
        assert all(given[f.name] in (None, (), False) for f in OPTION_FIELDS), cli
    assert Options.build() == Options()
