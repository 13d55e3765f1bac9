"""The LCU (Pauli) form of each system: exact export, Qiskit as the oracle, counts and 1-norms that are known."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import random_system
from qiskit.quantum_info import SparsePauliOp

from qlsbench.bench import lcu_table
from qlsbench.cli import main
from qlsbench.data import load_dataset, to_system, write_systems
from qlsbench.pauli import decompose, from_symplectic, lcu_summary
from qlsbench.problems import ising_inspired, pad_and_normalize


def _by_label(op: SparsePauliOp) -> dict[str, complex]:
    return dict(zip(op.paulis.to_labels(), op.coeffs))


@pytest.fixture
def mixed_dataset(tmp_path, rng):
    """Ising systems, a real non-symmetric and a complex system (padded), in one file."""
    systems = [ising_inspired(n, 10.0) for n in (2, 3)]
    systems += [pad_and_normalize(random_system(rng, 6)), pad_and_normalize(random_system(rng, 7, complex_=True))]
    return write_systems(systems, tmp_path / "mixed.parquet")


def test_exported_terms_rebuild_the_decomposition_exactly_and_match_qiskit(mixed_dataset, tmp_path):
    out = tmp_path / "lcu.parquet"
    lcu_table(mixed_dataset, out, terms=True, progress=False)
    table = pd.read_parquet(out)  # what a user reads back, not the in-memory frame
    systems = {s.system_id: s for s in (to_system(r) for _, r in load_dataset(mixed_dataset).iterrows())}
    assert len(table) == len(systems)
    for _, row in table.iterrows():
        A = systems[row["system_id"]].A.toarray()
        rebuilt = from_symplectic(row["pauli_x"], row["pauli_z"], row["coeff_re"], row["coeff_im"], row["n_qubits"])
        ours = decompose(systems[row["system_id"]].A).to_sparse_pauli_op()  # the same (sparse) input
        assert rebuilt.paulis.to_labels() == ours.paulis.to_labels()
        np.testing.assert_array_equal(rebuilt.coeffs, ours.coeffs)  # the export loses nothing
        # Qiskit's own decomposition: the same terms, the same coefficients; ours adds only rounding noise
        # (terms whose exact value is 0), which the 1e-6 count leaves out.
        oracle = _by_label(SparsePauliOp.from_operator(A, atol=0.0, rtol=0.0))
        mine = _by_label(rebuilt)
        top = max(abs(c) for c in oracle.values())
        significant = {k for k, c in oracle.items() if abs(c) > 1e-12 * top}
        assert significant == {k for k, c in mine.items() if abs(c) > 1e-12 * top}
        for label in significant:
            assert abs(mine[label] - oracle[label]) <= 1e-14 * top, label
        np.testing.assert_allclose(rebuilt.to_matrix(), A, atol=1e-14)
        assert row["terms_0"] == len(mine) and row["terms_1e-6"] == sum(abs(c) > 1e-6 * top for c in oracle.values())
        assert row["lcu_norm_0"] == pytest.approx(sum(abs(c) for c in mine.values()), rel=1e-12)


def test_counts_and_one_norms_at_each_tolerance_are_the_known_ones():
    """``A = 1/2 I + 1/4 XZ - 2^-13 YY + 2^-30 ZI``: dyadic coefficients, so the transform is exact."""
    coeffs = {"II": 0.5, "XZ": 0.25, "YY": -(2.0**-13), "ZI": 2.0**-30}
    A = SparsePauliOp.from_list(list(coeffs.items())).to_matrix()
    summary = lcu_summary(decompose(A))
    assert summary["max_coeff"] == 0.5
    # 2^-30 / 0.5 ~ 1.9e-9 falls under 1e-6; 2^-13 / 0.5 ~ 2.4e-4 falls under 1e-3 only.
    assert (summary["terms_0"], summary["terms_1e-6"], summary["terms_1e-3"]) == (4, 3, 2)
    assert summary["lcu_norm_0"] == sum(abs(c) for c in coeffs.values())
    assert summary["lcu_norm_1e-6"] == 0.5 + 0.25 + 2.0**-13
    assert summary["lcu_norm_1e-3"] == 0.75


def test_lcu_command_writes_counts_and_names_a_bad_input(mixed_dataset, tmp_path, capsys):
    out = tmp_path / "lcu.parquet"
    assert main(["lcu", str(mixed_dataset), "--out", str(out), "--quiet"]) == 0
    table = pd.read_parquet(out)
    assert "pauli_x" not in table.columns  # the terms only on request
    ising = table[table["family"] == "ising"]
    # The Ising-inspired matrix has n X terms, n - 1 ZZ terms and the identity; its 1-norm is (n + J(n-1) + eta)/zeta.
    assert list(ising["terms_1e-6"]) == [2 * n for n in ising["n_qubits"]]
    metas = {s.system_id: s.meta for s in (to_system(r) for _, r in load_dataset(mixed_dataset).iterrows())}
    for _, row in ising.iterrows():
        meta, n = metas[row["system_id"]], row["n_qubits"]
        assert row["lcu_norm_1e-6"] == pytest.approx((n + meta["J"] * (n - 1) + meta["eta"]) / meta["zeta"], rel=1e-12)
    bad = tmp_path / "missing.parquet"
    assert main(["lcu", str(bad), "--out", str(tmp_path / "x.parquet")]) == 2
    assert str(bad) in capsys.readouterr().err
    assert not (tmp_path / "x.parquet").exists()
