"""The peak table: every row parses and is sourced, figures are dense, names resolve safely."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from bench_kernel.dtypes import peak_class
from bench_kernel.errors import DeviceError, InputError, UsageError
from bench_kernel.hardware import get_device, list_devices, parse_peak_table, peak_table

RAW = json.loads(resources.files("bench_kernel.hardware").joinpath("data", "peaks.json").read_bytes())
REQUIRED = ["A100 SXM", "H100 SXM", "H100 PCIe", "H200", "H20", "B200", "GB200", "L40S",
            "MI250X", "MI300X", "MI325X", "MI355X"]


def _table_with(mutate) -> bytes:
    raw = json.loads(json.dumps(RAW))
    mutate(raw)
    return json.dumps(raw).encode()


def _row(raw: dict, name: str) -> dict:
    return next(d for d in raw["devices"] if d["name"] == name)


def test_required_devices_are_in_the_table():
    names = [d.name for d in list_devices()]
    assert set(REQUIRED) <= set(names)
    assert len(names) == len(RAW["devices"])


@pytest.mark.parametrize("row", RAW["devices"], ids=[d["name"] for d in RAW["devices"]])
def test_every_row_parses_and_every_figure_has_a_source(row):
    spec = get_device(row["name"])
    assert spec.memory_tbps == row["memory_tbps"] > 0
    assert spec.sm_count == row["sm_count"] > 0
    figures = {k: row.get(k) for k in ("memory_tbps", "l2_tbps", "l1_tbps", "l2_mib", "llc_mib", "sm_count",
                                        "boost_clock_mhz")}
    figures.update(row["peak_tflops"])
    present = {k for k, v in figures.items() if v is not None}
    assert set(row["sources"]) == present
    for fig, text in row["sources"].items():
        ref = text.split(":", 1)[0]
        assert ref == "derived" or ref in RAW["refs"], (fig, text)
    assert dict(spec.peak_tflops) == {k: v for k, v in row["peak_tflops"].items() if v is not None}
    assert spec.l2_bytes == (None if row["l2_mib"] is None else int(row["l2_mib"] * 2**20))
    assert (spec.l2_tbps, spec.l1_tbps) == (row.get("l2_tbps"), row.get("l1_tbps"))
    for alias in row["aliases"]:
        assert get_device(alias) is spec


def test_the_file_says_figures_are_dense():
    assert any("DENSE" in line and "HALVED" in line for line in RAW["about"])


@pytest.mark.parametrize("spec", list_devices(), ids=lambda s: s.name)
def test_dense_figures_keep_the_tensor_core_ratios(spec):
    # Mixing one sparse figure into a dense row breaks these 2x steps (within the datasheets' rounding).
    p = spec.peak_tflops
    assert p["fp16"] == p["bf16"]
    if "fp8" in p:
        assert p["fp8"] / p["bf16"] == pytest.approx(2.0, rel=0.03)
    if "tf32" in p:
        assert p["bf16"] / p["tf32"] == pytest.approx(2.0, rel=0.03)
    if "fp8" in p and "int8" in p:
        assert p["int8"] == p["fp8"]
    if "fp4" in p:
        assert p["fp4"] / p["fp8"] == pytest.approx(2.0, rel=0.03)


def test_hopper_figures_are_the_dense_half_of_the_datasheet():
    # H100/H200 datasheets print 1,979 TFLOPS BF16 and 3,958 FP8 "with sparsity".
    for name in ("H100 SXM", "H200"):
        assert get_device(name).peak("bf16") == pytest.approx(1979 / 2, rel=1e-3)
        assert get_device(name).peak("fp8") == pytest.approx(3958 / 2, rel=1e-3)


@pytest.mark.parametrize("name, expected", [
    ("NVIDIA H100 80GB HBM3", "H100 SXM"), ("NVIDIA H100 PCIe", "H100 PCIe"), ("h100-sxm", "H100 SXM"),
    ("NVIDIA H200", "H200"), ("NVIDIA H20", "H20"), ("NVIDIA A100-SXM4-80GB", "A100 SXM"),
    ("NVIDIA A100-SXM4-40GB", "A100 SXM 40GB"), ("AMD Instinct MI300X", "MI300X"), ("mi355x", "MI355X"),
    ("AMD Instinct MI250X/MI250", "MI250X"), ("NVIDIA B200", "B200"), ("NVIDIA GB200", "GB200"),
])
def test_names_resolve_ignoring_case_spacing_and_vendor(name, expected):
    assert get_device(name).name == expected


@pytest.mark.parametrize("name, close", [
    ("NVIDIA H100", ["H100 SXM", "H100 PCIe"]),  # ambiguous: never guessed
    ("NVIDIA H200 NVL", ["H200"]),  # another SKU: not silently the SXM row
    ("MI300", ["MI300X"]),
])
def test_ambiguous_or_unknown_names_list_close_matches(name, close):
    with pytest.raises(DeviceError) as e:
        get_device(name)
    msg = str(e.value)
    assert repr(name) in msg and "--device" in msg
    for c in close:
        assert c in msg


def test_unrelated_name_lists_every_device():
    with pytest.raises(DeviceError, match="known devices: A100 SXM.*MI355X"):
        get_device("TPU v5e")


def test_missing_dtype_peak_is_a_device_error_naming_the_choices():
    with pytest.raises(DeviceError) as e:
        get_device("MI355X").peak("tf32")
    assert "MI355X" in str(e.value) and "tf32" in str(e.value) and "bf16" in str(e.value)
    assert get_device("MI355X").peak("bfloat16") == 2516.6


@pytest.mark.parametrize("alias, canon", [("bf16", "bf16"), ("BFloat16", "bf16"), ("torch.float16", "fp16"),
                                          ("half", "fp16"), ("float8_e4m3fn", "fp8"), ("double", "fp64"),
                                          ("float", "fp32"), ("nvfp4", "fp4"), ("int8", "int8")])
def test_dtype_aliases_map_to_peak_columns(alias, canon):
    assert peak_class(alias) == canon


def test_torch_dtype_objects_are_accepted():
    torch = pytest.importorskip("torch")
    assert peak_class(torch.bfloat16) == "bf16"
    assert peak_class(torch.float8_e4m3fn) == "fp8"


def test_unknown_dtype_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown dtype 'fp12'.*bf16"):
        peak_class("fp12")


@pytest.mark.parametrize("mutate, message", [
    (lambda r: _row(r, "H200")["sources"].pop("fp8"), "'H200'.*without a source.*fp8"),
    (lambda r: _row(r, "H200").update(memory_tbps=-4.8), "'H200'.memory_tbps.*> 0"),
    (lambda r: _row(r, "H200")["sources"].pop("l1_tbps"), "'H200'.*without a source.*l1_tbps"),
    (lambda r: _row(r, "H200").update(l2_tbps=0), "'H200'.l2_tbps.*> 0"),
    (lambda r: _row(r, "B200")["sources"].update(l2_mib="nv-gb200-page: x"), "'B200'.*null or unknown.*l2_mib"),
    (lambda r: _row(r, "L40S")["sources"].update(fp32="datasheet: 91.6"), "'L40S'.sources.fp32.*ref id"),
    (lambda r: _row(r, "H20")["aliases"].append("NVIDIA H200"), "already names 'H200'"),
    (lambda r: _row(r, "MI300X")["peak_tflops"].pop("fp4"), "'MI300X'.*keys"),
    (lambda r: _row(r, "MI300X").update(sm_count="304"), r"Expected `int`.*sm_count"),
    (lambda r: r["dtypes"].append("fp17"), "dtypes.*peak classes of bench_kernel/data/dtypes.tsv"),
])
def test_validation_rejects_broken_rows(mutate, message):
    with pytest.raises(InputError, match=message):
        parse_peak_table(_table_with(mutate), origin="peaks.json")


def test_the_packaged_table_is_the_validated_one():
    assert peak_table().devices == parse_peak_table(json.dumps(RAW)).devices
