"""LinearSystem validation, padding/normalisation and the Ising generator against independent truth."""

from __future__ import annotations

from functools import reduce

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from conftest import random_system
from hypothesis import given, settings
from hypothesis import strategies as st
from qiskit.quantum_info import SparsePauliOp

from qlsbench.errors import InputError
from qlsbench.problems import (
    LinearSystem,
    ising_inspired,
    next_power_of_two,
    pad_and_normalize,
    pad_to_power_of_two,
    recover_solution,
)

# ---------------------------------------------------------------- LinearSystem input checks


@pytest.mark.parametrize(
    "A, b, culprit",
    [
        (np.array([[1.0, np.nan], [0.0, 1.0]]), np.ones(2), "A contains 1 NaN"),
        (np.array([[1.0, np.inf], [0.0, 1.0]]), np.ones(2), "A contains 1 NaN or infinite"),
        (np.eye(2), np.array([1.0, np.nan]), "b contains 1 NaN"),
        (np.eye(2), np.array([np.inf, 1.0]), "b contains 1 NaN or infinite"),
        (np.ones((2, 3)), np.ones(2), "A must be square, got shape 2x3"),
        (np.eye(3), np.ones(2), "A and b sizes differ"),
        (np.eye(2), np.ones((2, 1)), "b must be a vector"),
        (np.ones(3), np.ones(3), "A must be a 2-D matrix"),
    ],
)
def test_bad_systems_are_refused_naming_the_culprit(A, b, culprit):
    with pytest.raises(InputError, match=culprit):
        LinearSystem(A, b)


def test_system_id_is_a_content_hash():
    A = sp.csr_matrix(np.array([[2.0, 1.0], [0.0, 3.0]]))
    s1 = LinearSystem(A, [1.0, 2.0])
    s2 = LinearSystem(A.toarray(), np.array([1.0, 2.0]), {"family": "other"})
    s3 = LinearSystem(A, [1.0, 2.0 + 1e-15])
    assert s1.system_id == s2.system_id  # same content, any input form or metadata
    assert s1.system_id != s3.system_id  # one ulp of difference is another system


# ---------------------------------------------------------------- padding and normalisation


def test_next_power_of_two():
    assert [next_power_of_two(n) for n in (1, 2, 3, 4, 5, 8, 9, 1000)] == [1, 2, 4, 4, 8, 8, 16, 1024]


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), seed=st.integers(0, 2**31 - 1))
def test_padding_leaves_the_solution_unchanged(n, seed):
    system = random_system(np.random.default_rng(seed), n)
    x = np.linalg.solve(system.A.toarray(), system.b)
    padded = pad_to_power_of_two(system)
    N = padded.dim
    assert N == next_power_of_two(n) and padded.meta["n_qubits"] == N.bit_length() - 1
    xp = np.linalg.solve(padded.A.toarray(), padded.b)
    np.testing.assert_allclose(xp[:n], x, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(xp[n:], 0.0)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), seed=st.integers(0, 2**31 - 1), scale=st.sampled_from([1e-6, 1.0, 1e6]))
def test_normalisation_gives_unit_norms_and_recoverable_solution(n, seed, scale):
    system = random_system(np.random.default_rng(seed), n)
    system = LinearSystem(system.A * scale, system.b * 3.0)
    out = pad_and_normalize(system)
    assert np.linalg.norm(out.A.toarray(), 2) == pytest.approx(1.0, abs=1e-12)
    assert np.linalg.norm(out.b) == pytest.approx(1.0, abs=1e-12)
    # The padded identity must not change the condition number (normalise before padding).
    assert np.linalg.cond(out.A.toarray()) == pytest.approx(np.linalg.cond(system.A.toarray()), rel=1e-8)
    x_norm = np.linalg.solve(out.A.toarray(), out.b)
    x = np.linalg.solve(system.A.toarray(), system.b)
    np.testing.assert_allclose(recover_solution(out, x_norm), x, rtol=1e-8, atol=1e-14 * np.abs(x).max())


def test_normalisation_carries_the_reference_solution():
    system = random_system(np.random.default_rng(1), 5)
    x = np.linalg.solve(system.A.toarray(), system.b)
    out = pad_and_normalize(system.with_reference(x))
    np.testing.assert_allclose(out.A @ out.x_ref, out.b, atol=1e-12)


def test_zero_rhs_cannot_be_normalised():
    with pytest.raises(InputError, match="b is the zero vector"):
        pad_and_normalize(LinearSystem(np.eye(3), np.zeros(3)))


# ---------------------------------------------------------------- Ising-inspired problem

_PAULI = {
    "I": np.eye(2),
    "X": np.array([[0.0, 1.0], [1.0, 0.0]]),
    "Z": np.diag([1.0, -1.0]),
}


def dense_ising_bracket(n: int, J: float) -> np.ndarray:
    """Sum_j X_j + J Sum_j Z_j Z_{j+1}, from explicit Kronecker products of 2x2 Pauli matrices."""

    def string(ops):
        return reduce(np.kron, [_PAULI[o] for o in ops])

    H = sum(string(["X" if k == j else "I" for k in range(n)]) for j in range(n))
    for j in range(n - 1):
        H = H + J * string(["Z" if k in (j, j + 1) else "I" for k in range(n)])
    return H


@pytest.mark.parametrize("n", range(2, 9))
@pytest.mark.parametrize("kappa", [10.0, 100.0])
def test_ising_has_the_exact_condition_number(n, kappa):
    system = ising_inspired(n, kappa=kappa)
    eig = np.linalg.eigvalsh(system.A.toarray())
    assert eig[-1] == pytest.approx(1.0, abs=1e-9)
    assert eig[0] == pytest.approx(1.0 / kappa, abs=1e-9)
    assert eig[-1] / eig[0] == pytest.approx(kappa, abs=1e-9 * kappa)
    assert np.linalg.cond(system.A.toarray()) == pytest.approx(kappa, rel=1e-9)


@pytest.mark.parametrize("n", range(2, 9))
def test_ising_matches_dense_pauli_construction(n):
    J, kappa = 0.1, 10.0
    system = ising_inspired(n, kappa=kappa, J=J)
    zeta, eta = system.meta["zeta"], system.meta["eta"]
    expected = (dense_ising_bracket(n, J) + eta * np.eye(2**n)) / zeta
    np.testing.assert_allclose(system.A.toarray(), expected, atol=1e-14)
    np.testing.assert_allclose(system.b, np.full(2**n, 2.0 ** (-n / 2)), atol=1e-15)


def test_ising_pauli_terms_agree_with_qiskit():
    """Qiskit's own decomposition recovers exactly the terms of the definition."""
    n, J = 5, 0.1
    system = ising_inspired(n, kappa=10.0, J=J)
    zeta, eta = system.meta["zeta"], system.meta["eta"]
    op = SparsePauliOp.from_operator(system.A.toarray(), atol=1e-12, rtol=0)
    coeffs = dict(zip(op.paulis.to_labels(), op.coeffs.real))
    assert coeffs.pop("I" * n) == pytest.approx(eta / zeta, rel=1e-12)
    x_terms = {"I" * (n - 1 - j) + "X" + "I" * j for j in range(n)}
    zz_terms = {"I" * (n - 2 - j) + "ZZ" + "I" * j for j in range(n - 1)}
    assert set(coeffs) == x_terms | zz_terms
    for label in x_terms:
        assert coeffs[label] == pytest.approx(1.0 / zeta, rel=1e-12)
    for label in zz_terms:
        assert coeffs[label] == pytest.approx(J / zeta, rel=1e-12)


def test_the_bound_shortcut_would_miss_kappa():
    """Why exact eigenvalues: eta, zeta from the +-n bound (the common shortcut) give kappa ~ 10.1."""
    n, J, kappa = 6, 0.1, 10.0
    H = dense_ising_bracket(n, J)
    lo, hi = -float(n), float(n)  # |sum X| + J|sum ZZ| bounded loosely by the number of X terms
    zeta = (hi - lo) / (1 - 1 / kappa)
    eta = (hi / kappa - lo) / (1 - 1 / kappa)
    shortcut = np.linalg.cond((H + eta * np.eye(2**n)) / zeta)
    exact = np.linalg.cond(ising_inspired(n, kappa, J).A.toarray())
    assert abs(shortcut - kappa) > 1e-3 and abs(exact - kappa) < 1e-9


@pytest.mark.parametrize(
    "kwargs, culprit",
    [
        ({"n_qubits": 0}, "n_qubits must be an integer from 1 to 20"),
        ({"n_qubits": -2}, "n_qubits must be an integer from 1 to 20"),
        ({"n_qubits": 2.5}, "n_qubits must be an integer from 1 to 20"),
        ({"n_qubits": 40}, "n_qubits must be an integer from 1 to 20, got 40"),
        ({"n_qubits": 3, "kappa": 1.0}, "kappa must be a finite number > 1"),
        ({"n_qubits": 3, "kappa": 0.5}, "kappa must be a finite number > 1"),
        ({"n_qubits": 3, "kappa": float("nan")}, "kappa must be a finite number > 1"),
        ({"n_qubits": 3, "J": float("inf")}, "J must be finite"),
    ],
)
def test_ising_refuses_bad_parameters(kwargs, culprit):
    with pytest.raises(InputError, match=culprit):
        ising_inspired(**kwargs)


# ---------------------------------------------------------------- spectral quantities


def test_sparse_spectral_path_agrees_with_dense(monkeypatch, rng):
    """Above DENSE_LIMIT, norms and condition numbers come from ARPACK; check them against LAPACK."""
    from qlsbench.problems import _spectra as spectra

    systems = [random_system(rng, 40), ising_inspired(6, 100.0)]
    monkeypatch.setattr(spectra, "DENSE_LIMIT", 8)
    for system in systems:
        dense = system.A.toarray()
        assert spectra.spectral_norm(system.A) == pytest.approx(np.linalg.norm(dense, 2), rel=1e-8)
        assert spectra.condition_number(system.A) == pytest.approx(np.linalg.cond(dense), rel=1e-6)
    singular = sp.csr_matrix(sp.block_diag([sp.csr_matrix(np.ones((2, 2))), sp.identity(30)]))
    assert spectra.condition_number(singular) == float("inf")


def test_hermitian_defect():
    from qlsbench.problems import hermitian_defect

    assert hermitian_defect(sp.csr_matrix(np.array([[2.0, 1j], [-1j, 3.0]]))) == 0.0
    assert hermitian_defect(sp.csr_matrix(np.array([[2.0, 1j], [1j, 3.0]]))) > 0.1
    assert hermitian_defect(sp.csr_matrix((3, 3))) == 0.0


_SPECTRA_SCRIPT = """
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from qlsbench.problems import condition_number, spectral_norm
A = sp.random(700, 700, density=0.01, random_state=1) + sp.eye(700)
print(repr(spectral_norm(A)), repr(condition_number(A)))
"""


def test_dense_spectra_are_bit_identical_for_any_blas_thread_count():
    """Datasets divide A by ||A||_2: a threaded BLAS changed its last bits with the core count (dim 700)."""
    import os
    import subprocess
    import sys

    outputs = set()
    for threads in ("1", "2"):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads)
        run = subprocess.run(
            [sys.executable, "-c", _SPECTRA_SCRIPT], env=env, capture_output=True, text=True, check=True
        )
        outputs.add(run.stdout)
    assert len(outputs) == 1, outputs


def test_iterative_spectra_do_not_depend_on_earlier_calls(monkeypatch):
    """ARPACK's default start vector is random and moves with every call; ours is fixed."""
    from qlsbench.problems import _spectra as spectra

    monkeypatch.setattr(spectra, "DENSE_LIMIT", 16)
    A = sp.random(200, 200, density=0.05, random_state=3) + 2 * sp.eye(200)
    first = (spectra.spectral_norm(A), spectra.condition_number(A))
    spla.svds(sp.random(50, 50, density=0.2, random_state=4), k=1)  # advances ARPACK's own seed
    assert (spectra.spectral_norm(A), spectra.condition_number(A)) == first
    assert first[0] == pytest.approx(np.linalg.norm(A.toarray(), 2), rel=1e-10)
