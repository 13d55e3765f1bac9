"""Validation of dataset rows on load: what makes a system passes, anything else is named by file and system."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import scipy.sparse as sp
from bad_input.data import corrupt

from qlsbench.data import load_dataset, write_systems
from qlsbench.errors import DatasetError
from qlsbench.problems import LinearSystem

REPO = Path(__file__).resolve().parents[1]


def _singular(tmp_path) -> Path:
    """A dataset whose one system has a singular A: the writer stores x_ref as all NaN, cond inf."""
    A = sp.csr_matrix(np.diag([1.0, 0.0, 2.0, 3.0]))
    return write_systems(
        [LinearSystem(A, np.array([1.0, 0.0, 1.0, 1.0]), {"family": "test", "scene": "s"})],
        tmp_path / "singular.parquet",
    )


def test_a_singular_system_with_no_reference_solution_loads(tmp_path):
    df = load_dataset(_singular(tmp_path))
    assert not np.isfinite(df["cond"].iloc[0]) and np.isnan(df["x_ref"].iloc[0]).all()


def test_a_partly_missing_reference_solution_is_refused_even_when_singular(tmp_path):
    path = corrupt("x_ref", lambda v: [1.0] + v[1:], "partial", row=0)(tmp_path, _singular(tmp_path))
    system_id = pq.read_table(path).column("system_id")[0].as_py()
    with pytest.raises(DatasetError, match=rf"partial.parquet: system {system_id} \(row 0\): column 'x_ref' holds 3"):
        load_dataset(path)


@pytest.mark.parametrize(
    "column, change, message",
    [
        ("x_ref", lambda v: v[:2] + [math.nan] + v[3:], "column 'x_ref' holds 1 non-finite value"),
        ("b_imag", lambda v: [0.0] * 3, "column 'b_imag' holds 3 values, expected 8"),
        ("rows", lambda v: [v[0] + 100] + v[1:], "column 'rows' holds index"),
        ("nnz", lambda v: v + 1, "holds"),
        ("meta_json", lambda v: v[:-1], "column 'meta_json' is not valid JSON"),  # lost its closing brace
        ("meta_json", lambda v: "[1, 2]", "column 'meta_json' must hold a JSON object, got list"),
        ("scale_A", lambda v: -1.0, "column 'scale_A' is -1.0, expected a positive finite factor"),
    ],
)
def test_each_corruption_names_the_file_the_system_and_the_column(column, change, message, ising_dataset, tmp_path):
    path = corrupt(column, change, "bad")(tmp_path, ising_dataset)
    system_id = pq.read_table(path).column("system_id")[1].as_py()
    with pytest.raises(DatasetError) as error:
        load_dataset(path)
    text = str(error.value)
    assert str(path) in text and system_id in text and message in text and "\n" not in text


def test_shipped_datasets_load_with_their_recorded_ids():
    """The checks add nothing a writer does not already guarantee: the pinned set loads, ids unchanged."""
    manifest = json.loads((REPO / "qlsbench" / "pinned" / "manifest.json").read_text())
    recorded = {s["system_id"] for s in manifest["systems"]}
    loaded = set(load_dataset(REPO / "qlsbench" / "pinned" / "systems")["system_id"])
    assert recorded == loaded
    assert len(load_dataset(REPO / "benchmarks" / "data" / "dem_c_large.parquet")) >= 1


def test_info_refuses_what_solve_refuses(ising_dataset, tmp_path, capsys):
    """One reader: `qlsbench info` and `qlsbench solve` stop at the same damaged row with the same line."""
    from qlsbench.cli import main

    path = corrupt("meta_json", lambda v: v[:-1], "torn")(tmp_path, ising_dataset)
    lines = []
    for argv in (
        ["info", str(path)],
        ["solve", "--solver", "lu", "--dataset", str(path), "--out", str(tmp_path / "r.parquet"), "--quiet"],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "meta_json" in err[0], err
        lines.append(err[0].split("error: ", 1)[1])
    assert lines[0] == lines[1]


def test_a_stored_condition_number_is_checked_against_the_matrix_where_it_is_used(ising_dataset, tmp_path, capsys):
    """`qlsbench resources` builds every estimate on kappa: an edited `cond` (10 -> 1 made the estimate 11x
    smaller) is refused naming file, row and column; a good file's kappa is recomputed, and said so."""
    from qlsbench.cli import main

    edited = corrupt("cond", lambda v: 1.0, "edited")(tmp_path, ising_dataset)
    assert main(["resources", str(edited), "--out", str(tmp_path / "r.parquet"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert str(edited) in err and "(row 1)" in err and "column 'cond' holds 1 but the matrix's condition number" in err
    assert not (tmp_path / "r.parquet").exists()
    assert main(["resources", str(ising_dataset), "--out", str(tmp_path / "good.parquet"), "--quiet"]) == 0
    assert "every kappa recomputed from its matrix" in capsys.readouterr().out
    assert pd.read_parquet(tmp_path / "good.parquet")["kappa_checked"].all()


def test_a_padded_unknown_with_a_right_hand_side_is_refused(tmp_path):
    """Padding promises b = 0 on the added unknowns (n_orig on): a file that breaks it is named by row."""
    from qlsbench.problems import pad_and_normalize

    A = sp.csr_matrix(np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]]))
    system = pad_and_normalize(LinearSystem(A, np.array([1.0, 2.0, 3.0]), {"family": "test", "scene": "s"}))
    path = write_systems([system], tmp_path / "padded.parquet")
    load_dataset(path)  # as written: fine
    bad = corrupt("b", lambda v: v[:3] + [0.5], "bad_padding", row=0)(tmp_path, path)
    with pytest.raises(DatasetError, match=r"row 0\): column 'b' holds 0.5 at padded unknown 3 \(n_orig 3\)"):
        load_dataset(bad)
