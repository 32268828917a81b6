"""``bench-kernel devices``: the table, one device with sources, bad names."""

from __future__ import annotations

import csv
import io
import json

import msgspec

from bench_kernel.hardware import devices_document, get_device, list_devices
from bench_kernel.records import DevicesOutput


def test_lists_every_device(run_cli):
    assert run_cli("devices").exit_code == 0
    r = run_cli("devices", "--md")  # Markdown: no terminal-width folding of the names
    assert r.exit_code == 0, r.stderr
    for spec in list_devices():
        assert f"| {spec.name} |" in r.stdout
    assert "| H200 | 4.80 | 989.4 | 1978.9 | - | 494.7 | 66.9 | 66.9 | 1978.9 | 60 MiB | - | 132 | 1,980 |" in r.stdout
    assert "DENSE" in r.stdout


def test_json_is_every_row_with_sources(run_cli):
    r = run_cli("devices", "--json")
    data = json.loads(r.stdout)["devices"]
    assert [d["name"] for d in data] == [s.name for s in list_devices()]
    h200 = next(d for d in data if d["name"] == "H200")
    assert h200["peak_tflops"]["bf16"] == 989.4 and h200["memory_tbps"] == 4.8
    assert h200["sources"]["bf16"].startswith("nv-h200-page:")
    assert "NVIDIA H200" in h200["aliases"]


def test_json_reads_back_as_its_record_and_is_the_api_document(run_cli):
    r = run_cli("devices", "H200", "MI300X", "--json")
    assert r.exit_code == 0, r.stderr
    doc = msgspec.json.decode(r.stdout, type=DevicesOutput, strict=True)
    assert doc.schema_version == 1 and [d.name for d in doc.devices] == ["H200", "MI300X"]
    h200, mi300 = doc.devices
    assert (h200.vendor, h200.sm_count, h200.l2_bytes, h200.peak_tflops["fp8"]) == ("NVIDIA", 132, 60 * 2**20, 1978.9)
    assert mi300.vendor == "AMD" and mi300.llc_bytes == 256 * 2**20
    # what a Python caller gets is what was printed, figure for figure
    assert doc == devices_document(["H200", "MI300X"]) and doc.devices[0] == get_device("H200")


def test_csv_keeps_raw_values(run_cli):
    rows = list(csv.DictReader(io.StringIO(run_cli("devices", "--csv").stdout)))
    mi300x = next(r for r in rows if r["name"] == "MI300X")
    assert float(mi300x["memory_tbps"]) == 5.3 and int(mi300x["llc_bytes"]) == 256 * 2**20


def test_named_device_shows_each_figure_and_its_source(run_cli):
    r = run_cli("devices", "NVIDIA H100 80GB HBM3", "--json")
    assert r.exit_code == 0
    (spec,) = json.loads(r.stdout)["devices"]
    assert spec["name"] == "H100 SXM" and spec["sm_count"] == 132
    md = run_cli("devices", "H100 SXM", "--md").stdout
    assert "| bf16 | 989.4 | TFLOP/s | nv-hopper-wp: Table 3" in md


def test_unknown_device_is_one_line_with_close_names(run_cli):
    r = run_cli("devices", "NVIDIA H100")
    assert r.exit_code == 1
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("bench-kernel: error: unknown device")
    assert "H100 SXM" in r.stderr and "H100 PCIe" in r.stderr
