"""The kernel study (issue 64): each solve runs under the BLAS kernel and thread count it names, and says so."""

import json

import pytest

from qlsbench.bench import kernel_study
from qlsbench.data import write_systems
from qlsbench.errors import InputError
from qlsbench.problems import ising_inspired, pad_and_normalize


def test_each_solve_runs_under_the_kernel_it_records(tmp_path):
    dataset = tmp_path / "ising.parquet"
    write_systems([pad_and_normalize(ising_inspired(2, 10.0))], dataset)
    records = kernel_study.run(
        dataset, 2, [0], "cg", "{}", tmp_path / "out", kernels=(None, "Sandybridge"), threads=(1,)
    )
    assert [r["kernel"] for r in records] == ["native", "Sandybridge"]
    assert "Sandybridge, 1 threads" in records[1]["blas"] and "OPENBLAS_CORETYPE=Sandybridge" in records[1]["blas"]
    assert "OPENBLAS_CORETYPE" not in records[0]["blas"]
    assert json.loads((tmp_path / "out" / kernel_study.RUNS).read_text()) == records
    assert all((tmp_path / "out" / r["file"]).exists() for r in records)
    again = kernel_study.run(dataset, 2, [0], "cg", "{}", tmp_path / "out", kernels=(None, "Sandybridge"), threads=(1,))
    assert again == records  # resumed: nothing solved twice
    with pytest.raises(InputError, match="no system of 5 qubits"):
        kernel_study.run(dataset, 5, [0], "cg", "{}", tmp_path / "other")


def test_a_study_with_nothing_to_run_writes_its_systems_and_refuses_a_size_it_lacks(tmp_path):
    dataset = tmp_path / "ising.parquet"
    write_systems([pad_and_normalize(ising_inspired(2, 10.0))], dataset)
    assert kernel_study.run(dataset, 2, [0], "cg", "{}", tmp_path / "out", kernels=()) == []
    assert (tmp_path / "out" / "systems-q2.parquet").exists()
    with pytest.raises(InputError, match="no system of 3 qubits"):
        kernel_study.run(dataset, 3, [0], "cg", "{}", tmp_path / "out", kernels=())
