"""``bench-kernel decode``: table, --json, --tree, --rules, stdin, and one-line errors."""

from __future__ import annotations

import io
import json
import sys

import msgspec
import pytest

from bench_kernel.kernels import decode, decode_document
from bench_kernel.records import DecodeOutput

NVJET = "nvjet_tst_144x128_64x6_2x1_v_bz_bias_TNN"
SILU = "triton_poi_fused_mul_silu_0"


def test_table_shows_short_family_category_and_fields(run_cli):
    r = run_cli("decode", NVJET, SILU)
    assert r.exit_code == 0, r.stderr
    out = " ".join(r.stdout.split())
    for text in ("cublas", "gemm", "inductor", "activation", "kind=pointwise", "stages=6"):
        assert text in out, text


def test_json_is_always_a_list_with_the_contract_keys(run_cli):
    r = run_cli("decode", "--json", NVJET)
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert list(doc) == ["schema_version", "kernels"]
    data = doc["kernels"]
    assert isinstance(data, list) and len(data) == 1
    rec = data[0]
    assert {"name", "family", "short", "category", "fields"} <= set(rec)
    assert rec["fields"]["tile_m"] == 144 and rec["fields"]["bias"] is True
    assert "tile_m" in rec["inferred"]


def test_json_reads_back_as_its_record_and_is_the_api_document(run_cli):
    r = run_cli("decode", "--json", NVJET, SILU)
    assert r.exit_code == 0, r.stderr
    doc = msgspec.json.decode(r.stdout, type=DecodeOutput, strict=True)
    nvjet, silu = doc.kernels
    assert (nvjet.family, nvjet.category, nvjet.rule, nvjet.fields["stages"]) == ("cublas", "gemm", "cublas", 6)
    assert (silu.family, silu.category, silu.fields["ops"]) == ("inductor", "activation", ("mul", "silu"))
    # read back, a decode is the one decode() makes: the list in its fields held as a tuple again
    assert doc == decode_document([NVJET, SILU]) and silu == decode(SILU)


def test_names_from_stdin_skip_blank_lines(run_cli, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{NVJET}\n\n{SILU}\r\n"))
    r = run_cli("decode", "--json")
    assert r.exit_code == 0, r.stderr
    assert [d["name"] for d in json.loads(r.stdout)["kernels"]] == [NVJET, SILU]


def test_dash_mixes_stdin_with_arguments(run_cli, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{SILU}\n"))
    r = run_cli("decode", "--json", NVJET, "-")
    assert [d["name"] for d in json.loads(r.stdout)["kernels"]] == [NVJET, SILU]


def test_empty_stdin_is_a_usage_error(run_cli, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n\n"))
    r = run_cli("decode")
    assert r.exit_code == 2
    assert r.stderr.startswith("bench-kernel: error: no kernel names") and r.stderr.count("\n") == 1


def test_tree_prints_the_picture_unwrapped(run_cli):
    r = run_cli("decode", "--tree", "a8w8_blockscale_1x128x128_256x16x128x256_16x16_16x16_1x2_16x16x1_16x16x1_"
                                   "1x16x1x16_8_1x2_intrawave_v1")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("a8w8_blockscale_1x128x128_") and lines[0].endswith("intrawave_v1")
    assert lines[-1] == ("                └─ ScaleBlockM x ScaleBlockN x ScaleBlockK: scale_block_m=1, "
                         "scale_block_n=128, scale_block_k=128")
    assert "┏" not in r.stdout  # the tree replaces the table


def test_rules_file_overrides_category(run_cli, tmp_path):
    rules = tmp_path / "r.tsv"
    rules.write_text("id\tcategory\tfamily\ton\tpattern\nmine\tquant\tinductor\tops\tsilu\n")
    r = run_cli("decode", "--json", "--rules", str(rules), SILU)
    assert json.loads(r.stdout)["kernels"][0]["category"] == "quant"
    assert json.loads(r.stdout)["kernels"][0]["rule"] == "mine"


@pytest.mark.parametrize("content, fragment", [
    (None, "does not exist"),
    ("id\tcategory\tfamily\ton\tpattern\nx\tnope\t*\tkernel\ta\n", "r.tsv:2: category 'nope' is unknown"),
    ("not a rules file\n", "header is"),
])
def test_bad_rules_file_is_one_line_error(run_cli, tmp_path, content, fragment):
    rules = tmp_path / "r.tsv"
    if content is not None:
        rules.write_text(content)
    r = run_cli("decode", "--rules", str(rules), SILU)
    assert r.exit_code == 1
    assert r.stderr.startswith("bench-kernel: error: ") and fragment in r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def test_csv_has_raw_columns(run_cli):
    r = run_cli("decode", "--csv", SILU)
    assert r.stdout.splitlines()[0] == "short,family,category,fields"
    assert r.stdout.splitlines()[1].startswith("triton_poi_fused_mul_silu_0,inductor,activation,")
