"""Parquet datasets: exact round trips, reproducible bytes, clear errors, atomic writes."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import random_system

from qlsbench.data import (
    COLUMNS,
    SCHEMA_VERSION,
    dataset_hash,
    load_dataset,
    to_system,
    write_systems,
)
from qlsbench.data._schema import VERSION_KEY
from qlsbench.errors import DatasetError, InputError
from qlsbench.problems import LinearSystem, ising_inspired, pad_and_normalize

REPO = Path(__file__).resolve().parents[1]


def _systems(rng):
    systems = [ising_inspired(n, 10.0) for n in (1, 2, 3)]
    r = random_system(rng, 6)
    systems.append(
        pad_and_normalize(
            LinearSystem(
                r.A,
                r.b,
                {"family": "random", "step": 7, "newton_iter": 2, "seed": 5, "note": "hello", "vec": [1.5, 2.5]},
            )
        )
    )
    systems.append(random_system(rng, 4, complex_=True))
    return systems


def _assert_same(a: LinearSystem, b: LinearSystem):
    assert a.system_id == b.system_id
    assert (a.A != b.A).nnz == 0 and a.A.dtype == b.A.dtype
    np.testing.assert_array_equal(a.b, b.b)
    assert a.b.dtype == b.b.dtype


def test_round_trip_is_bit_exact(tmp_path, rng):
    systems = _systems(rng)
    path = write_systems(systems, tmp_path / "d.parquet")
    df = load_dataset(path)
    assert len(df) == len(systems)
    for original, (_, row) in zip(systems, df.iterrows()):
        back = to_system(row)
        _assert_same(original, back)
        # Reference solution: the direct solve, stored exactly.
        np.testing.assert_allclose(back.A @ back.x_ref, back.b, atol=1e-12)
        for key, value in original.meta.items():
            assert back.meta[key] == value, key
    assert df.loc[3, "step"] == 7 and df.loc[3, "n_orig"] == 6 and df.loc[3, "n_qubits"] == 3
    assert bool(df.loc[4, "is_complex"]) and not bool(df.loc[0, "is_complex"])


def test_same_input_writes_byte_identical_files(tmp_path):
    a = write_systems([ising_inspired(n, 100.0) for n in (2, 3, 4)], tmp_path / "a.parquet")
    b = write_systems([ising_inspired(n, 100.0) for n in (2, 3, 4)], tmp_path / "b.parquet")
    assert a.read_bytes() == b.read_bytes()
    assert dataset_hash(a) == dataset_hash(b)


def test_plain_pandas_reads_a_file_and_a_folder(ising_dataset):
    df = pd.read_parquet(ising_dataset)
    assert list(df.columns) == [name for name, _, _ in COLUMNS]
    folder = ising_dataset.parent
    write_systems([ising_inspired(5, 10.0)], folder / "part-0001.parquet")
    assert len(pd.read_parquet(folder)) == 4
    assert len(load_dataset(folder)) == 4
    assert sorted(load_dataset(folder)["dim"]) == [4, 8, 16, 32]


def test_stored_metadata_is_right(ising_dataset):
    df = load_dataset(ising_dataset)
    np.testing.assert_allclose(df["cond"], 10.0, rtol=1e-9)
    assert df["symmetric"].all() and (df["family"] == "ising").all()
    assert list(df["n_qubits"]) == [2, 3, 4] and list(df["nnz"]) == [4 + 4 * 2, 8 + 8 * 3, 16 + 16 * 4]
    meta = pq.read_metadata(ising_dataset).metadata
    assert meta[VERSION_KEY] == SCHEMA_VERSION.encode()


def test_the_pinned_set_loads_with_no_workflow_run(tmp_path):
    import json

    from qlsbench.data import PINNED, pinned
    from qlsbench.families import build

    manifest = json.loads((PINNED / "manifest.json").read_text())
    df = pinned()
    assert len(df) == len(manifest["systems"]) == 47
    assert df.groupby("group").size().to_dict() == {
        "ising": 14,
        "dem_c-mu0": 12,
        "dem_c-mu0.3": 9,
        "dem_c-mu0.3-v2": 8,
        "ising-random-b": 4,
    }
    assert set(df["pinned_name"]) == {e["name"] for e in manifest["systems"]}
    for _, row in df.iterrows():
        system = to_system(row)  # checks system_id against A and b
        if row["cond"] < 1e10:  # the reference solution is as good as kappa allows
            assert np.linalg.norm(system.A @ system.x_ref - system.b) <= 1e-13 * row["cond"]
    frictional = pinned("dem_c-mu0.3")
    assert len(frictional) == 9 and not frictional["symmetric"].any()
    v2 = pinned("dem_c-mu0.3-v2")  # the same run on the v2 chain: its systems record the phase that made them
    assert len(v2) == 8 and not v2["symmetric"].any() and v2["pinned_name"].str.contains("-v2-").all()
    with pytest.raises(DatasetError, match="no pinned group 'mu0'; the groups are ising, dem_c-mu0, dem_c-mu0.3"):
        pinned("mu0")
    # The `pinned` family puts a group beside the generated datasets, byte for byte.
    build("pinned", tmp_path / "ising", progress=False, group="ising")
    assert (tmp_path / "ising" / "part-0000.parquet").read_bytes() == (
        PINNED / "systems" / "ising.parquet"
    ).read_bytes()


# ---------------------------------------------------------------- bad files


def test_corrupt_parquet_names_the_file(tmp_path, ising_dataset):
    bad = tmp_path / "corrupt.parquet"
    data = ising_dataset.read_bytes()
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(DatasetError, match=rf"{re.escape(str(bad))}: not a readable Parquet file"):
        load_dataset(bad)


def test_other_schema_version_is_refused(tmp_path, ising_dataset):
    table = pq.read_table(ising_dataset)
    other = tmp_path / "v99.parquet"
    pq.write_table(table.replace_schema_metadata({VERSION_KEY: b"99"}), other)
    with pytest.raises(
        DatasetError, match=rf"{re.escape(str(other))}: schema version 99, this qlsbench reads version 1"
    ):
        load_dataset(other)


def test_foreign_parquet_is_refused(tmp_path):
    other = tmp_path / "foreign.parquet"
    pq.write_table(pa.table({"a": [1, 2]}), other)
    with pytest.raises(DatasetError, match="not a qlsbench dataset"):
        load_dataset(other)


@pytest.mark.parametrize("column", ["vals", "x_ref", "system_id", "cond"])
def test_missing_column_is_named(tmp_path, ising_dataset, column):
    table = pq.read_table(ising_dataset)
    path = tmp_path / f"no_{column}.parquet"
    pq.write_table(table.drop_columns([column]), path)
    with pytest.raises(DatasetError, match=rf"{re.escape(str(path))}: missing column '{column}'"):
        load_dataset(path)


def test_altered_row_is_detected(ising_dataset):
    df = load_dataset(ising_dataset)
    row = df.iloc[1].copy()
    vals = np.array(row["vals"])
    vals[0] += 1e-3
    row["vals"] = vals
    with pytest.raises(DatasetError, match="does not match its data"):
        to_system(row)


def test_missing_path_and_empty_folder(tmp_path):
    with pytest.raises(DatasetError, match="no such file or folder"):
        load_dataset(tmp_path / "nope")
    with pytest.raises(DatasetError, match="folder holds no .parquet files"):
        load_dataset(tmp_path)


def test_a_part_copied_twice_into_a_folder_is_refused_naming_both(tmp_path, ising_dataset):
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "part-0000.parquet").write_bytes(ising_dataset.read_bytes())
    (folder / "part-0001.parquet").write_bytes(ising_dataset.read_bytes())
    with pytest.raises(DatasetError, match=r"part-0001.parquet: a copy of .*part-0000.parquet \(the same bytes\)"):
        load_dataset(folder)
    (folder / "part-0001.parquet").unlink()
    assert len(load_dataset(folder)) == len(load_dataset(ising_dataset))


def test_failed_write_leaves_the_old_file_whole(tmp_path, ising_dataset):
    before = ising_dataset.read_bytes()
    with pytest.raises(InputError, match="expected a LinearSystem, got str"):
        write_systems([ising_inspired(2), "not a system"], ising_dataset)
    bad_meta = LinearSystem(np.eye(2), np.ones(2), {"obj": object()})
    with pytest.raises(InputError, match=r"meta\['obj'\] of type object cannot be stored"):
        write_systems([bad_meta], ising_dataset)
    assert ising_dataset.read_bytes() == before
    assert sorted(p.name for p in ising_dataset.parent.iterdir()) == ["part-0000.parquet"]


def test_interrupted_write_leaves_no_partial_file(tmp_path, monkeypatch):
    """An interrupt inside the Parquet writer leaves neither the target nor a temp file."""
    target = tmp_path / "out.parquet"

    def interrupted(*args, **kwargs):
        Path(args[1]).write_bytes(b"PAR1 half")
        raise KeyboardInterrupt

    monkeypatch.setattr(pq, "write_table", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_systems([ising_inspired(2)], target)
    assert list(tmp_path.iterdir()) == []


def test_singular_system_is_stored_with_nan_reference(tmp_path):
    singular = LinearSystem(np.array([[1.0, 2.0], [2.0, 4.0]]), np.ones(2))
    df = load_dataset(write_systems([singular], tmp_path / "s.parquet"))
    assert np.isnan(df.loc[0, "x_ref"]).all() and df.loc[0, "cond"] > 1e15


def test_written_files_get_the_usual_permissions(tmp_path):
    import os

    old = os.umask(0o022)
    try:
        path = write_systems([ising_inspired(2)], tmp_path / "p.parquet")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644
