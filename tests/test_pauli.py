"""Pauli decomposition against Qiskit's, Parseval, reconstruction and known term counts."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from qiskit.quantum_info import SparsePauliOp

from qlsbench.errors import InputError
from qlsbench.pauli import count_terms, decompose, max_terms
from qlsbench.problems import ising_inspired


def _matrix(kind: str, n: int, rng) -> np.ndarray:
    N = 2**n
    R = rng.normal(size=(N, N))
    return {
        "real": R,
        "complex": R + 1j * rng.normal(size=(N, N)),
        "symmetric": R + R.T,
        "hermitian": (R + 1j * rng.normal(size=(N, N))) + (R + 1j * rng.normal(size=(N, N))).conj().T,
        "sparse-real": sp.random(N, N, density=min(1.0, 4 / N), random_state=rng).toarray(),
        # few entries per XOR pattern: the support path, folded (symmetric) and complex
        "sparse-symmetric": _plus_transpose(sp.random(N, N, density=min(1.0, 3 / N), random_state=rng).toarray()),
        "sparse-complex": (
            sp.random(N, N, density=min(1.0, 4 / N), random_state=rng)
            + 1j * sp.random(N, N, density=min(1.0, 4 / N), random_state=rng)
        ).toarray(),
    }[kind]


def _plus_transpose(R):
    return R + R.T


def _as_dict(labels, coeffs):
    return dict(zip(labels, np.asarray(coeffs, dtype=complex)))


def _qiskit(A) -> dict:
    op = SparsePauliOp.from_operator(A, atol=0, rtol=0)  # the default atol drops |c| <= 1e-5 silently
    return _as_dict(op.paulis.to_labels(), op.coeffs)


@pytest.mark.parametrize("n", range(1, 9))
@pytest.mark.parametrize(
    "kind", ["real", "complex", "symmetric", "hermitian", "sparse-real", "sparse-symmetric", "sparse-complex"]
)
@pytest.mark.parametrize("method", ["dense", "sparse"])
def test_equals_qiskit(n, kind, method):
    A = _matrix(kind, n, np.random.default_rng(100 * n + len(kind)))
    ours = decompose(sp.csr_matrix(A) if method == "sparse" else A, method=method)
    mine, ref = _as_dict(ours.labels(), ours.coeffs), _qiskit(A)
    for label in set(mine) | set(ref):
        assert abs(mine.get(label, 0) - ref.get(label, 0)) <= 1e-12, label


@pytest.mark.parametrize("kind", ["real", "complex", "symmetric"])
def test_parseval_and_reconstruction(kind, rng):
    A = _matrix(kind, 6, rng)
    d = decompose(A)
    assert 2**6 * np.sum(np.abs(d.coeffs) ** 2) == pytest.approx(np.linalg.norm(A, "fro") ** 2, rel=1e-12)
    np.testing.assert_allclose(d.to_matrix(), A, atol=1e-12)
    np.testing.assert_allclose(d.to_sparse_pauli_op().to_matrix(), A, atol=1e-12)


def test_support_path_covers_the_patterns_of_real_dem_c_structure(rng):
    """A banded symmetric matrix with a scattered coupling: most patterns have a handful of entries."""
    from qlsbench.pauli._kernels import SUPPORT_MAX

    N = 256
    A = sp.diags([rng.normal(size=N - 3), 4 + rng.random(N), rng.normal(size=N - 3)], [-3, 0, 3]).tolil()
    for i, j in rng.integers(0, N, size=(40, 2)):
        A[i, j] = A[j, i] = rng.normal()
    A = A.tocsr()
    rows, cols = A.nonzero()
    per_pattern = np.bincount(rows ^ cols)
    assert np.count_nonzero((per_pattern > 0) & (per_pattern <= SUPPORT_MAX)) > 20  # the support path is used
    d = decompose(A)
    mine, ref = _as_dict(d.labels(), d.coeffs), _qiskit(A.toarray())
    assert max(abs(mine.get(k, 0) - ref.get(k, 0)) for k in set(mine) | set(ref)) <= 1e-12
    counts = count_terms(A, (0.0, 1e-3), relative=True)
    scale = np.abs(d.coeffs).max()
    assert counts == {0.0: len(d), 1e-3: int(np.sum(np.abs(d.coeffs) > 1e-3 * scale))}


def test_dense_and_sparse_methods_agree(rng):
    A = sp.random(128, 128, density=0.02, random_state=rng, format="csr")
    dense, sparse = decompose(A, method="dense"), decompose(A, method="sparse")
    assert dense.labels() == sparse.labels()
    np.testing.assert_allclose(dense.coeffs, sparse.coeffs, atol=1e-14)
    assert sparse.info["patterns"] < dense.info["patterns"] == 128


def test_odd_y_strings_of_real_symmetric_matrices_are_exactly_zero(rng):
    A = _matrix("symmetric", 5, rng)
    d = decompose(A)
    assert d.info["skipped_odd_y"]
    assert all(label.count("Y") % 2 == 0 for label in d.labels())
    ref = _qiskit(A)
    assert max((abs(c) for label, c in ref.items() if label.count("Y") % 2), default=0.0) <= 1e-15
    assert len(d) == len([c for c in ref.values() if abs(c) > 0]) <= max_terms(5, True)
    assert np.isrealobj(d.coeffs)


@pytest.mark.parametrize("relative", [False, True])
def test_counts_match_explicit_decompositions(relative, rng):
    A = sp.csr_matrix(_matrix("sparse-real", 7, rng) + np.diag(rng.normal(size=128)))
    tols = (0.0, 1e-6, 1e-3, 1e-2)
    counts = count_terms(A, tols, relative=relative)
    coeffs = np.abs(decompose(A).coeffs)
    scale = coeffs.max() if relative else 1.0
    assert counts == {t: int(np.sum(coeffs > t * scale)) for t in tols}
    assert counts[0.0] == len(decompose(A))


def test_two_dimensional_laplacian_has_2a_plus_2b_minus_1_terms():
    def lap(m):
        return sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(2**m, 2**m))

    for a, b in [(2, 3), (3, 3), (4, 5)]:
        A = sp.kronsum(lap(a), lap(b), format="csr")
        assert count_terms(A, (0.0,))[0.0] == 2**a + 2**b - 1
        assert decompose(A).info["method"] == "sparse"


def test_ising_terms_are_the_definition():
    n = 6
    system = ising_inspired(n, kappa=10.0)
    d = decompose(system.A, atol=1e-12)
    assert len(d) == 1 + n + (n - 1)
    zeta = system.meta["zeta"]
    coeffs = dict(zip(d.labels(), d.coeffs))
    assert coeffs["I" * n] == pytest.approx(system.meta["eta"] / zeta, rel=1e-12)
    assert coeffs["I" * (n - 1) + "X"] == pytest.approx(1 / zeta, rel=1e-12)


@pytest.mark.parametrize("shape", [(4, 8), (6, 6), (3, 3)])
def test_bad_shapes_say_to_pad_first(shape):
    with pytest.raises(InputError, match="pad it first"):
        decompose(np.ones(shape))
    with pytest.raises(InputError, match="pad it first"):
        count_terms(sp.csr_matrix(np.ones(shape)))


def test_bad_options_are_refused():
    with pytest.raises(InputError, match="unknown method 'fast'"):
        decompose(np.eye(4), method="fast")
    with pytest.raises(InputError, match="atol must be >= 0"):
        decompose(np.eye(4), atol=-1)


# ---------------------------------------------------------------- truncation and reordering studies

from qlsbench.pauli._truncation import (  # noqa: E402
    _permute,
    orderings,
    reordering_study,
    truncation_study,
    xor_patterns,
)
from qlsbench.problems import LinearSystem  # noqa: E402


def test_truncating_the_ising_couplings_is_measured_exactly():
    """Relative tolerance between J/zeta and 1/zeta (of max |c| = eta/zeta) drops exactly the ZZ terms."""
    n, J = 5, 0.1
    system = ising_inspired(n, kappa=10.0, J=J)
    eta, zeta = system.meta["eta"], system.meta["zeta"]
    tol = 0.5 * (J + 1.0) / eta  # between the ZZ and the X coefficients, relative to the identity's
    row = next(r for r in truncation_study(system, (tol,)) if r["mode"] == "relative")
    # At tol 0 rounding noise (~1e-17) counts as non-zero; above it the definition's terms remain.
    assert count_terms(system.A, (1e-14,))[1e-14] == 1 + n + (n - 1) and row["terms_kept"] == 1 + n
    zz = sum(_pauli_string(n, {j: "Z", j + 1: "Z"}) for j in range(n - 1)) * J / zeta
    assert row["matrix_error"] == pytest.approx(np.linalg.norm(zz, 2), rel=1e-10)
    A = system.A.toarray()
    x, x_tol = np.linalg.solve(A, system.b), np.linalg.solve(A - zz, system.b)
    assert row["solution_error"] == pytest.approx(np.linalg.norm(x_tol - x) / np.linalg.norm(x), rel=1e-10)
    assert row["terms_max"] == max_terms(n, True) == (4**n + 2**n) // 2


def _pauli_string(n, ops):
    mats = {"I": np.eye(2), "Z": np.diag([1.0, -1.0])}
    out = np.ones((1, 1))
    for q in reversed(range(n)):  # qubit 0 is the least significant bit
        out = np.kron(out, mats[ops.get(q, "I")])
    return out


def test_truncation_with_nothing_to_drop_changes_nothing(rng):
    A = np.eye(8) * 2 + 0.1 * rng.normal(size=(8, 8))
    rows = truncation_study(LinearSystem(A, rng.normal(size=8)), (0.0,))
    for row in rows:
        assert row["terms_kept"] == row["terms_total"] and row["matrix_error"] == 0.0
        assert row["solution_error"] == 0.0 and row["fidelity"] == pytest.approx(1.0)


def test_reordering_recovers_a_scrambled_band_and_solutions_map_back(rng):
    N = 64
    path = sp.diags([1.0, 3.0, 1.0], [-1, 0, 1], shape=(N, N), format="csr")
    scramble = rng.permutation(N)
    A = _permute(path, scramble)
    b = rng.normal(size=N)
    system = LinearSystem(A, b)
    rows = {r["ordering"]: r for r in reordering_study(system, (0.0,))}
    assert rows["identity"]["terms_tol_0"] > 10 * N
    assert rows["rcm"]["patterns"] == 7 and rows["rcm"]["terms_tol_0"] == count_terms(path, (0.0,))[0.0]
    assert rows["greedy"]["patterns"] <= min(r["patterns"] for r in rows.values())
    for perm in orderings(A).values():
        B = _permute(A, perm)
        y = np.linalg.solve(B.toarray(), b[np.argsort(perm)])  # (P A P^T) y = P b
        np.testing.assert_allclose(y[perm], np.linalg.solve(A.toarray(), b), atol=1e-12)
    assert xor_patterns(A) == rows["identity"]["patterns"]


def test_pauli_command_and_figure(ising_dataset, tmp_path, capsys):
    import pandas as pd

    from qlsbench.cli import main
    from qlsbench.data import iter_systems

    out = tmp_path / "pauli.parquet"
    assert main(["pauli", str(ising_dataset), "--tol", "0", "1e-3", "--reorder", "--out", str(out), "--quiet"]) == 0
    df = pd.read_parquet(out)
    systems = list(iter_systems(ising_dataset))
    ident = df[(df["ordering"] == "identity") & (df["mode"] == "absolute")]
    assert len(ident) == 2 * len(systems)
    for s in systems:
        for tol in (0.0, 1e-3):
            row = ident[(ident["system_id"] == s.system_id) & (ident["tol"] == tol)].iloc[0]
            assert row["terms_kept"] == count_terms(s.A, (tol,))[tol]
    assert set(df["ordering"]) == {"identity", "rcm", "rcm-gray", "greedy"}
    png = tmp_path / "fig.png"
    assert main(["figure", "pauli-terms", str(out), "--out", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["pauli", str(tmp_path / "missing"), "--out", str(out)]) == 2
    assert "no such file or folder" in capsys.readouterr().err


@pytest.mark.parametrize("n", [1, 3, 6])
@pytest.mark.parametrize("kind", ["real", "complex", "symmetric"])
def test_coefficient_table_equals_qiskit(n, kind):
    from qlsbench.pauli import coefficient_table

    A = _matrix(kind, n, np.random.default_rng(n))
    table = coefficient_table(A)
    op = SparsePauliOp.from_operator(A, atol=0, rtol=0)
    weights = 1 << np.arange(n)
    expected = np.zeros((2**n, 2**n), dtype=complex)
    expected[(op.paulis.x * weights).sum(1), (op.paulis.z * weights).sum(1)] = op.coeffs
    np.testing.assert_allclose(table, expected, atol=1e-12)


@pytest.mark.parametrize("kind", ["real", "complex", "symmetric", "sparse-real"])
@pytest.mark.parametrize("method", ["dense", "sparse"])
def test_patterns_in_many_chunks_equal_qiskit(kind, method, monkeypatch):
    """Chunks of a few patterns (as for 14-16 qubits) give the same terms and counts as one chunk."""
    from qlsbench.pauli import _decomposition as decomposition

    A = _matrix(kind, 5, np.random.default_rng(7))
    whole_counts = count_terms(A, (0.0, 0.1), method=method)
    monkeypatch.setattr(decomposition, "CHUNK_ENTRIES", 40)  # 2 or 3 patterns per chunk at n = 5
    ours = decompose(sp.csr_matrix(A) if method == "sparse" else A, method=method)
    mine, ref = _as_dict(ours.labels(), ours.coeffs), _qiskit(A)
    assert max(abs(mine.get(k, 0) - ref.get(k, 0)) for k in set(mine) | set(ref)) <= 1e-12
    assert count_terms(A, (0.0, 0.1), method=method) == whole_counts


def test_auto_treats_mostly_zero_arrays_as_sparse(rng):
    A = sp.random(128, 128, density=0.01, random_state=rng).toarray()
    d = decompose(A)
    assert d.info["method"] == "sparse"
    assert d.info["patterns"] == xor_patterns(sp.csr_matrix(A)) < 128
    assert d.labels() == decompose(A, method="dense").labels()
    assert decompose(rng.normal(size=(16, 16))).info["method"] == "dense"


def test_duplicates_and_explicit_zeros_in_sparse_input(rng):
    """Duplicates are summed (without touching the caller's matrix); explicit zeros add no pattern."""
    cols = np.array([1, 1, 0, 2, 0, 3])  # rows 0, 0, 1, 2, 3, 3
    vals = np.array([0.5, 0.5, 1.0, 0.0, 2.0, 0.0])  # (0, 1) twice, explicit zeros on the diagonal
    B = sp.csr_matrix((vals, cols, np.array([0, 2, 3, 4, 6])), shape=(4, 4))
    assert not B.has_canonical_format
    before = (B.data.copy(), B.indices.copy())
    d = decompose(B)
    np.testing.assert_allclose(d.to_matrix(), B.toarray(), atol=1e-15)
    mine, ref = _as_dict(d.labels(), d.coeffs), _qiskit(B.toarray())
    assert max(abs(mine.get(k, 0) - ref.get(k, 0)) for k in set(mine) | set(ref)) <= 1e-15
    np.testing.assert_array_equal(B.data, before[0])
    np.testing.assert_array_equal(B.indices, before[1])
    assert d.info["patterns"] == xor_patterns(B) == 2  # x = 1 (the (0,1), (1,0) pair) and x = 3 (entry (3, 0))
    assert not d.info["skipped_odd_y"]  # A[3, 0] has no mirror: not symmetric


def test_coefficient_table_refuses_what_would_not_fit(monkeypatch):
    from qlsbench.pauli import _decomposition as decomposition
    from qlsbench.pauli import coefficient_table

    monkeypatch.setattr(decomposition, "TABLE_QUBITS", 2)
    with pytest.raises(InputError, match="use decompose"):
        coefficient_table(np.eye(8))
