"""VNLS on NetKet: the loss is the Rayleigh quotient of H, its Monte Carlo estimate is unbiased, and it solves."""

from __future__ import annotations

import netket as nk
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.linalg import hadamard

from qlsbench.errors import InputError
from qlsbench.problems import LinearSystem, ising_inspired, reference_solution, state_fidelity
from qlsbench.solvers import registry
from qlsbench.solvers.base import Status
from qlsbench.solvers.vnls.operator import VNLSLoss, index_to_states, padded_rows, states_to_index
from qlsbench.solvers.vnls.training import loss_operator, variational_state


def _dense_h(A, b) -> np.ndarray:
    """H = A^dagger (I - |b><b|) A from its definition, densely."""
    A = A.toarray() if sp.issparse(A) else A
    b = b / np.linalg.norm(b)
    return A.conj().T @ (np.eye(len(b)) - np.outer(b, b.conj())) @ A


def _random_system(n, rng, complex_=False) -> LinearSystem:
    N = 2**n
    A = sp.random(N, N, density=0.3, random_state=rng) + 2 * sp.eye(N)
    if complex_:
        A = A + 1j * sp.random(N, N, density=0.2, random_state=rng)
    b = rng.normal(size=N) + (1j * rng.normal(size=N) if complex_ else 0)
    return LinearSystem(sp.csr_matrix(A), b)


def test_padded_rows_and_basis_order(rng):
    M = sp.random(16, 16, density=0.3, random_state=rng, format="csr")
    cols, vals = padded_rows(M)
    dense = np.zeros((16, 16))
    np.add.at(dense, (np.repeat(np.arange(16), cols.shape[1]), cols.ravel()), vals.ravel())
    np.testing.assert_allclose(dense, M.toarray())
    hi = nk.hilbert.Qubit(N=4)
    states = hi.all_states()
    np.testing.assert_array_equal(np.asarray(states_to_index(states, 4)), hi.states_to_numbers(states))
    np.testing.assert_array_equal(np.asarray(index_to_states(np.arange(16), 4)), states)


@pytest.mark.parametrize("model", ["rbm", "crbm"])
def test_exact_loss_is_the_dense_rayleigh_quotient(model, rng):
    s = _random_system(3, rng)
    hi = nk.hilbert.Qubit(N=3)
    state = variational_state(hi, model, 1, True, 16, seed=1)
    psi = np.asarray(state.to_array(normalize=False))
    H = _dense_h(s.A, s.b)
    expected = np.vdot(psi, H @ psi).real / np.vdot(psi, psi).real
    assert state.expect(loss_operator(s, hi, True, 16, 0)).mean.real == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("model, complex_", [("rbm", False), ("crbm", True), ("arnn", False)])
def test_monte_carlo_estimate_is_unbiased(model, complex_, rng):
    s = _random_system(4, rng, complex_)
    hi = nk.hilbert.Qubit(N=4)
    state = variational_state(hi, model, 1, False, 8192, seed=2)
    psi = np.asarray(state.to_array(normalize=False))
    H = _dense_h(s.A, s.b)
    exact = np.vdot(psi, H @ psi).real / np.vdot(psi, psi).real
    stats = state.expect(VNLSLoss(hi, s.A, s.b, c_samples=8192, seed=3))
    assert abs(stats.mean.real - exact) <= 4 * stats.error_of_mean
    assert stats.error_of_mean < 0.2 * abs(exact)  # the test has power


@pytest.mark.parametrize("n", [4, 5, 6])
def test_ising_kappa_10_with_uniform_b(n):
    s = ising_inspired(n, 10.0)
    result = registry.get("vnls", model="rbm", n_iter=300).solve(s, seed=0)
    assert state_fidelity(result.x, reference_solution(s.A, s.b)) >= 0.999
    assert result.status is Status.CONVERGED and result.history[-1] < result.history[0]
    assert result.resources["mc_samples"] == 1024 * 300
    assert result.resources["readout_residual"] == pytest.approx(
        np.linalg.norm(s.A @ result.x - s.b) / np.linalg.norm(s.b), rel=1e-9)


def test_random_b_in_exact_mode():
    s = ising_inspired(5, 10.0)
    s = LinearSystem(s.A, np.random.default_rng(0).normal(size=32))
    result = registry.get("vnls", model="crbm", exact=True, n_iter=500).solve(s, seed=0)
    assert state_fidelity(result.x, reference_solution(s.A, s.b)) >= 0.95


def test_the_lowest_singular_vector_trap_is_named():
    """A positive lowest singular vector orthogonal to b: small loss, zero fidelity - and the message says why."""
    N = 16
    Q = hadamard(N) / 4.0
    A = Q @ np.diag(np.linspace(0.1, 1.0, N)) @ Q.T  # sigma_min = 0.1 on the uniform vector
    s = LinearSystem(sp.csr_matrix(A), Q[:, 5] + 0.5 * Q[:, 9])
    result = registry.get("vnls", model="rbm", exact=True, n_iter=200).solve(s, seed=0)
    assert state_fidelity(result.x, reference_solution(s.A, s.b)) < 0.01
    assert result.status is Status.MAX_ITER
    assert "trapped" in result.message and "sigma_min(A)^2 = 0.01" in result.message
    assert result.resources["final_loss"] == pytest.approx(0.01, rel=0.05)


def test_bad_input_and_options():
    with pytest.raises(InputError, match="power-of-two"):
        registry.get("vnls").solve(LinearSystem(sp.eye(6, format="csr"), np.ones(6)))
    with pytest.raises(InputError, match="unknown model 'mlp'"):
        registry.get("vnls", model="mlp")
    with pytest.raises(InputError, match="n_samples must be an integer"):
        registry.get("vnls", n_samples=0)
    with pytest.raises(InputError, match="learning_rate must be a positive number"):
        registry.get("vnls", learning_rate=-1.0)
