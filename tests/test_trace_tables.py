"""The trace data tables parse row by row, and a bad step-rules file fails with the field named."""

from __future__ import annotations

import ast
import json
from importlib import resources

import pytest

from bench_kernel.errors import InputError
from bench_kernel.trace import load_step_rules
from bench_kernel.trace._tables import LAUNCH_KINDS, arg_fields, launch_kinds, parse_step_rules

_DATA = resources.files("bench_kernel.trace").joinpath("data")


def _rows(name: str) -> list[list[str]]:
    """The table's rows as written, header left out."""
    return [line.split("\t") for line in _DATA.joinpath(name).read_text().splitlines()
            if line.strip() and not line.startswith("#")][1:]


def test_every_launch_api_row_parses_to_its_kind():
    table = launch_kinds()
    rows = _rows("launch_apis.tsv")
    assert len(table) == len(rows)
    for name, kind, vendor in rows:
        assert table[name] == kind and kind in LAUNCH_KINDS and vendor in ("cuda", "hip")


@pytest.mark.parametrize("name,kind", [
    ("cudaLaunchKernel", "kernel"), ("cudaLaunchKernelExC", "kernel"), ("cuLaunchKernel", "kernel"),
    ("cuLaunchKernelEx", "kernel"), ("hipLaunchKernel", "kernel"), ("hipExtLaunchKernel", "kernel"),
    ("hipModuleLaunchKernel", "kernel"), ("hipExtModuleLaunchKernel", "kernel"), ("cudaGraphLaunch", "graph"),
    ("hipGraphLaunch", "graph"), ("cudaMemcpyAsync", "memcpy"), ("hipMemsetAsync", "memset"),
    ("cudaStreamSynchronize", "sync"), ("hipStreamBeginCapture", "capture_begin"),
    ("cudaStreamEndCapture", "capture_end"),
])
def test_launch_apis_seen_in_real_traces(name, kind):
    assert launch_kinds()[name] == kind


def _string_literals(source: str) -> list[str]:
    """String constants of a module that are not documentation (docstrings, field docstrings)."""
    tree = ast.parse(source)
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docs]


def test_launch_api_names_live_in_one_table_only():
    # STYLE habit 6: no launch-API name is a string in the package's code; only launch_apis.tsv has them.
    names = set(launch_kinds())
    pkg = resources.files("bench_kernel")
    offenders = []
    for sub in ("trace", "cli"):
        for p in pkg.joinpath(sub).iterdir():
            if p.name.endswith(".py"):
                offenders += [(p.name, lit) for lit in _string_literals(p.read_text()) if any(n in lit for n in names)]
    assert offenders == []


def test_every_kineto_arg_row_parses():
    fields = arg_fields()
    rows = _rows("kineto_args.tsv")
    assert [(f.key, f.field, f.type, f.group) for f in fields] == [tuple(r) for r in rows]
    assert {f.key: f.field for f in fields}["External id"] == "external_id"


def test_packaged_step_rules_parse_and_match_real_annotations():
    rules = load_step_rules()
    by = {r.name: r for r in rules.rules}
    assert [r.name for r in rules.rules][:4] == ["sglang", "atom", "vllm", "profiler_step"]
    cases = [("sglang", "step[DECODE bs=32]", "decode"), ("sglang", "step[EXTEND bs=15 toks=15360]", "prefill"),
             ("atom", "prefill[bs=4 tok=512 ctx=128]", "prefill"), ("atom", "decode[bs=117/128 tok=117 d=117]", "decode"),
             ("vllm", "execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086)", "decode"),
             ("vllm", "execute_15360_context_15(sq15360)_generation_0(sq0)", "prefill"),
             ("vllm", "execute_8192_context_9(sq8155)_generation_37(sq37)", "mixed"),
             ("vllm", "execute_context_1(888_788544)_generation_0(0)", "prefill"),
             ("profiler_step", "ProfilerStep#15", None)]
    for rule, text, phase in cases:
        m = by[rule].pattern.search(text)
        assert m, (rule, text)
        assert by[rule].phase_of(m.groupdict()) == phase, (rule, text)
    assert by["atom"].pattern.search("dummy_decode[bs=4]") is None
    # token counts the annotations state: ATOM's tok=, the vLLM CPU build's (P) and (D)
    from bench_kernel.trace import Step, annotated_tokens

    def tokens(rule, text):
        g = {k: v for k, v in by[rule].pattern.search(text).groupdict().items() if v is not None}
        return annotated_tokens(Step(0, text, 0.0, 1.0, None, rule, g))

    assert tokens("atom", "prefill[bs=4 tok=512 ctx=128]") == 512
    assert tokens("atom", "decode[bs=117/128 tok=117 d=117]") == 117
    assert tokens("atom", "eager_decode[bs=3]") is None
    assert tokens("vllm", "execute_context_1(29)_generation_0(0)") == 29
    assert tokens("vllm", "execute_context_3(87)_generation_1(1)") == 88
    assert tokens("vllm", "execute_15360_context_15(sq15360)_generation_0(sq0)") == 15360
    assert tokens("vllm", "execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086)") == 32
    assert tokens("sglang", "step[EXTEND bs=15 toks=15360]") == 15360
    assert rules.gemm_ops["aten::addmm"] == 1


@pytest.mark.parametrize("doc,fragment", [
    ({"version": 2, "rules": []}, "version"),
    ({"version": 1}, "'rules' list"),
    ({"version": 1, "rules": [{"name": "x", "kind": "nope"}]}, "'kind' is 'nope'"),
    ({"version": 1, "rules": [{"name": "x", "kind": "annotation"}]}, "needs a 'pattern'"),
    ({"version": 1, "rules": [{"name": "x", "kind": "annotation", "pattern": "("}]}, "not a valid regular expression"),
    ({"version": 1, "rules": [{"name": "x", "kind": "annotation", "pattern": "a", "phase_group": "g"}]},
     "not a named group"),
    ({"version": 1, "rules": [{"name": "x", "kind": "annotation", "pattern": "(?P<g>a)", "phase_group": "g",
                               "phase_map": {"a": "warmup"}}]}, "phase_map values"),
    ({"version": 1, "rules": [{"name": "x", "kind": "module"}, {"name": "x", "kind": "module"}]}, "unique"),
    ({"version": 1, "rules": [], "gemm_ops": ["aten::mm"]}, "gemm_ops"),
])
def test_bad_step_rules_name_the_field(doc, fragment):
    with pytest.raises(InputError, match=fragment):
        parse_step_rules(doc, "my_steps.json")


def test_user_step_rules_file(tmp_path):
    p = tmp_path / "steps.json"
    p.write_text(json.dumps({"version": 1, "rules": [{"name": "mine", "kind": "annotation", "pattern": "^iter"}]}))
    assert [r.name for r in load_step_rules(p).rules] == ["mine"]
    p.write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        load_step_rules(tmp_path / "steps.json")
    with pytest.raises(InputError, match=r"step rules '.*missing\.json' does not exist"):
        load_step_rules(tmp_path / "missing.json")
