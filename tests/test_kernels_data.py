"""Every row of every data table in kernels/data/ parses and is validated on load."""

from __future__ import annotations

import pytest

from bench_kernel.errors import InputError
from bench_kernel.kernels._classify import default_rules
from bench_kernel.kernels._data import multiword_ops, package_text, read_tsv
from bench_kernel.kernels._tensile import tensile_keys


def _data_rows(name: str) -> int:
    return sum(1 for line in package_text(name).splitlines() if line.strip() and not line.startswith("#"))


def test_categories_every_row_parses():
    assert len(default_rules().rules) == _data_rows("categories.tsv") - 1  # minus the header


def test_tensile_keys_every_row_parses():
    keys = tensile_keys()
    assert len(keys) == _data_rows("tensile_keys.tsv") - 1
    assert keys["MT"][0] == "macro_tile" and keys["MI"][0] == "matrix_instruction"


def test_inductor_ops_every_row_parses():
    table = multiword_ops()
    total = sum(len(v) for v in table.values())
    assert total == _data_rows("inductor_ops.txt")
    assert "native_layer_norm" in table["native"] and "_to_copy" in table[""]
    # longest first, so "native_layer_norm_backward" wins over "native_layer_norm"
    natives = table["native"]
    assert natives.index("native_layer_norm_backward") < natives.index("native_layer_norm")


def test_read_tsv_names_the_bad_row():
    with pytest.raises(InputError, match=r"t\.tsv:3: dtype"):
        read_tsv("a\tb\nx\ty\nbad\t1 2\n", "t.tsv", ("a", "b"),
                 lambda row, where: (_ for _ in ()).throw(InputError(f"{where}: dtype")) if " " in row["b"] else None)
