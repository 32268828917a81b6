"""Every command's --json is versioned and documented: each is a record of
``bench_kernel.records.DOCUMENTS``, from which docs/json.md and the schemas are generated
(tests/test_json_schema.py), and these tests run every command on real inputs and fail when what it
prints is not exactly its record written out (a field added, renamed, retyped or gone).

A new command adds its document to ``DOCUMENTS`` and a line to ``CORPUS`` below.
"""

from __future__ import annotations

import importlib
import json
import textwrap
from pathlib import Path

import pytest

from _documents import drift, read_back
from _sweep_helpers import write_spec
from bench_kernel.cli import _COMMANDS as _ALL_COMMANDS
from bench_kernel.cli import cli
from bench_kernel.records import DOCUMENTS, version
from bench_kernel.trace import sample_trace

ROOT = Path(__file__).resolve().parent.parent
#: The commands that print a --json document (not `mcp`, a server, nor `skill`, a Markdown file).
_COMMANDS = {name: target for name, target in _ALL_COMMANDS.items()
             if any("--json" in getattr(p, "opts", ()) for p in cli.get_command(None, name).params)}  # type: ignore[arg-type]
TRACES = ROOT / "tests" / "data" / "trace"
SAMPLE = str(sample_trace())
FAST = ["-m", "host", "--precision", "0.5", "--max-time", "0.02", "--rounds", "1"]

TARGET = """
import torch
def cases():
    return [{"name": "add", "fn": torch.add, "make_inputs": lambda: (torch.ones(256), torch.ones(256)),
             "reference": torch.add, "flops": 256, "bytes": 3072, "params": {"n": 256, "dtype": "float32"}},
            {"name": "wrong", "fn": lambda x: x + 1, "make_inputs": lambda: (torch.ones(8),),
             "reference": lambda x: x + 2}]
"""
MODEL = """
import torch
def cases():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 16))
    return {"name": "mlp", "fn": model, "make_inputs": lambda: (torch.randn(4, 16),)}
"""
NAMES = ["nvjet_tst_144x144_64x3_1x2_h_bz_coopA_bias_TNT",
         "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
         "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
         "triton_poi_fused_add_mul_0", "some_kernel_nobody_knows"]

#: command -> the argument lists whose --json is checked ({tmp}, {db}: a folder and a results
#: database holding two sweeps and a run, made once per module).
CORPUS: dict[str, list[list[str]]] = {
    "run": [["run", "{tmp}/target.py:cases", *FAST, "--roofline", "--device", "H200"]],
    "sweep": [["sweep", "{tmp}/spec.py", "--db", "{tmp}/other.db", *FAST, "--best"]],
    "compare": [["compare", "1", "2", "--db", "{db}"]],
    "history": [["history", "--db", "{db}"], ["history", "--db", "{db}", "--name", "add"]],
    "roofline": [["roofline", "--flops", "1e12", "--bytes", "1e9", "--time-us", "1000", "--device", "H200",
                  "--dtype", "fp8", "--plot", "{tmp}/r.svg"],
                 ["roofline", "--flops", "1.37e11", "--bytes", "1e8", "--time-us", "200", "--device", "H200",
                  "--counters", str(ROOT / "tests" / "data" / "counters" / "ncu_details_h200_gemm4096.csv")]],
    "devices": [["devices"], ["devices", "H200"]],
    "decode": [["decode", *NAMES]],
    "inventory": [["inventory", SAMPLE, "--per-step", "--top", "5"],
                  ["inventory", str(TRACES / "eager.json"), "--by", "category"]],
    # ranks_nccl: every rank's timeline with its collectives (calls, groups), and the skew across ranks
    "timeline": [["timeline", SAMPLE], ["timeline", str(TRACES / "ranks_nccl"), "--workers", "1"]],
    "layers": [["layers", SAMPLE], ["layers", str(TRACES / "eager.json"), "--step", "decode"]],
    "phases": [["phases", str(TRACES / "eager.json")]],
    "ops": [["ops", SAMPLE, "--by", "shape", "--top", "3"]],
    "attribute": [["attribute", str(TRACES / "graph.json.gz"), "--capture", str(TRACES / "capture.json")]],
    "diff": [["diff", str(TRACES / "eager.json"), str(TRACES / "graph.json.gz")]],
    "source-trace": [["source-trace", "--trace", SAMPLE, "--module", "LlamaAttention", "--top", "2"]],
    "profile": [["profile", "{tmp}/model.py:cases", "--steps", "2", "-o", "{tmp}/p.json.gz"]],
    "report": [["report", "1", SAMPLE, "--db", "{db}", "-o", "{tmp}/r.html"]],
    "sample-trace": [["sample-trace"]],
    # against the scripted server (tests/serve_scripted.py): one point with a failure and a goodput target, a list
    "serve": [["serve", "--url", "{serve_url}", "--dataset-name", "jsonl", "--dataset-path", "{tmp}/prompts.jsonl",
               "--num-prompts", "3", "--goodput", "ttft:800"],
              ["serve", "--url", "{serve_url}", "--dataset-name", "jsonl", "--dataset-path", "{tmp}/prompts.jsonl",
               "--num-prompts", "3", "--max-concurrency", "1,2"]],
}
#: The corpus's exit codes other than 0: run's target and sweep's spec each hold a wrong result.
EXIT_CODES = {"run": 1, "sweep": 1}
#: Commands whose JSON only a GPU can produce: checked from their record here, and on a GPU by
#: tests/test_json_docs_gpu.py (with run and profile, whose GPU-only fields this corpus cannot reach).
GPU_ONLY = {"calibrate"}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory, run_cli_module) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("json_docs")
    (tmp / "target.py").write_text(textwrap.dedent(TARGET))
    (tmp / "model.py").write_text(textwrap.dedent(MODEL))
    write_spec(tmp)
    db = str(tmp / "results.db")
    for argv in (["sweep", str(tmp / "spec.py"), "--db", db, *FAST], ["sweep", str(tmp / "spec.py"), "--db", db, *FAST],
                 ["run", f"{tmp}/target.py:cases", *FAST, "--save", "--db", db]):
        # each has a case or point whose result differs from its reference: it exits 1 and is stored
        assert run_cli_module(*argv).exit_code == 1
    (tmp / "prompts.jsonl").write_text("\n".join(json.dumps({"prompt": f"{n} hi", "max_tokens": 8})
                                                for n in ("fast", "five", "reason")))
    return {"tmp": str(tmp), "db": db}


@pytest.fixture(scope="module")
def serve_url():
    pytest.importorskip("aiohttp")
    from serve_scripted import start

    srv = start({"scenarios": {"fast": {"ttft_ms": 20, "itl_ms": 5, "tokens": 6}, "five": {"status": 503},
                               "reason": {"tokens": 5, "reasoning": 2}}, "models": ["m1"]})
    yield srv.url
    srv.stop()


@pytest.fixture(scope="module")
def run_cli_module():
    """run_cli for module-scoped fixtures (capsys is function-scoped): output is discarded."""
    import contextlib
    import io

    from bench_kernel.cli import main

    def _run(*argv: str):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = main(list(argv))

        class R:
            exit_code = code
        return R()

    return _run


def test_every_command_is_documented_and_checked():
    assert set(DOCUMENTS) == set(_COMMANDS), "a command whose --json is no record (or the reverse)"
    assert set(CORPUS) | GPU_ONLY == set(_COMMANDS), "a command whose --json no test checks: add it to CORPUS"
    page = (ROOT / "docs" / "json.md").read_text()
    assert all(f"## `{c}`" in page for c in DOCUMENTS)


@pytest.mark.parametrize("command", sorted(_COMMANDS))
def test_each_command_has_one_schema_version_constant(command):
    module = importlib.import_module(_COMMANDS[command].split(":")[0])
    assert version(command) == module.SCHEMA_VERSION


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(CORPUS))
@pytest.mark.multiprocess
def test_each_commands_json_is_what_the_page_says(command, inputs, run_cli, request):
    names = dict(inputs)
    if command == "serve":  # a server only for this one
        names["serve_url"] = request.getfixturevalue("serve_url")
    for template in CORPUS[command]:
        argv = [a.format(**names) for a in template] + ["--json"]
        r = run_cli(*argv)
        assert r.exit_code == EXIT_CODES.get(command, 0), r.stderr
        data = json.loads(r.stdout)
        # first, but for serve's, whose first key "kind" tells report a serving run from other JSON
        first = list(data)[:2] if command == "serve" else list(data)[:1]
        assert first in (["schema_version"], ["kind", "schema_version"]), argv
        read_back(command, data)


def test_calibrate_json_is_its_record():
    from _hardware_helpers import make_calibration
    from bench_kernel.cli.calibrate import SCHEMA_VERSION

    # calibrate prints its Calibration record as it is (cli/calibrate.py); a real one, as the command would.
    data = json.loads(json.dumps(make_calibration().to_dict()))
    assert data["schema_version"] == version("calibrate") == SCHEMA_VERSION
    assert read_back("calibrate", data) == make_calibration()


def test_the_check_catches_drift():
    # The check itself, on a real document: a field added, one gone, one retyped, one renamed.
    data = json.loads(json.dumps(make_calibration_doc()))
    record = DOCUMENTS["calibrate"]
    assert drift(data, record) is None
    assert "extra ['surprise']" in drift({**data, "surprise": 1}, record)
    gone = next(k for k in data if k != "schema_version" and data[k] is not None)
    assert drift({k: v for k, v in data.items() if k != gone}, record) is not None
    assert "not a Calibration" in drift({**data, "device": 3}, record)
    assert drift({("device_name" if k == "device" else k): v for k, v in data.items()}, record) is not None
    with pytest.raises(AssertionError):
        read_back("calibrate", {**data, "schema_version": data["schema_version"] + 1})


def make_calibration_doc() -> dict:
    from _hardware_helpers import make_calibration

    return make_calibration().to_dict()
