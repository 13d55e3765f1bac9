"""VQLS: the three backends agree, the costs vanish only at the solution, and the solver finds it."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from qiskit.quantum_info import Statevector

from qlsbench.errors import InputError
from qlsbench.pauli import decompose
from qlsbench.problems import (
    LinearSystem,
    ising_inspired,
    reference_solution,
    state_fidelity,
)
from qlsbench.solvers import Status, registry
from qlsbench.solvers.vqls.ansatz import RealAnsatz, ansatz_circuit, initial_parameters
from qlsbench.solvers.vqls.backends import BACKENDS
from qlsbench.solvers.vqls.cost import cost_and_gradient
from qlsbench.solvers.vqls.problem import VQLSProblem


def _random_system(n: int, rng, complex_: bool) -> LinearSystem:
    N = 2**n
    R = rng.normal(size=(N, N)) + (1j * rng.normal(size=(N, N)) if complex_ else 0)
    A = R + R.conj().T + 3 * N * np.eye(N)
    b = rng.normal(size=N) + (1j * rng.normal(size=N) if complex_ else 0)
    return LinearSystem(sp.csr_matrix(A), b)


@pytest.mark.parametrize("n", [1, 3, 4])
@pytest.mark.parametrize("structure", ["brickwall", "ladder"])
def test_numpy_ansatz_equals_qiskit_statevector(n, structure):
    layers = 3
    a = initial_parameters(n, layers, seed=n)
    qc = ansatz_circuit(n, layers, structure)
    expected = Statevector(qc.assign_parameters({p: a[p.index] for p in qc.parameters})).data
    np.testing.assert_allclose(RealAnsatz(n, layers, structure).state(a), expected, atol=1e-14)


@pytest.mark.parametrize("system", ["ising-3", "ising-4", "random-real-2", "random-complex-2"])
@pytest.mark.parametrize("kind", ["global", "local"])
@pytest.mark.parametrize("normalized", [True, False])
def test_exact_and_circuit_backends_agree(system, kind, normalized):
    """Operator-level numpy costs against Aer-exact Hadamard tests, on random parameters."""
    family, *rest = system.split("-")
    n = int(rest[-1])
    rng = np.random.default_rng(n)
    s = ising_inspired(n, 10.0) if family == "ising" else _random_system(n, rng, rest[0] == "complex")
    problem = VQLSProblem.from_system(s)
    assert problem.preparation == ("hadamard" if family == "ising" else "householder")
    layers = 2
    exact = BACKENDS["exact"](problem, layers, kind, normalized)
    circuits = BACKENDS["circuits"](problem, layers, kind, normalized, decomposition=decompose(s.A))
    for seed in range(3):
        a = initial_parameters(n, layers, seed)
        assert circuits.cost(a) == pytest.approx(exact.cost(a), abs=1e-10)


@pytest.mark.parametrize("kind", ["global", "local"])
def test_ladder_ansatz_circuits_agree_with_its_exact_costs(kind):
    """The controlled ansatz of the gamma tests follows the structure too (global cost) - checked on the other one.

    A is six Pauli strings with random weights (X, Y and Z on every qubit, real): a dense random A has all 64, and
    the local cost's circuits grow with their square (26 s, not 1 s, for the same check)."""
    from qiskit.quantum_info import SparsePauliOp

    rng = np.random.default_rng(7)
    strings = ["III", "XZI", "ZYY", "IXX", "YIY", "ZZX"]  # an even number of Y: real matrices
    A = SparsePauliOp(strings, rng.normal(size=6) + np.array([4.0, 0, 0, 0, 0, 0])).to_matrix().real
    s = LinearSystem(sp.csr_matrix(A), rng.normal(size=8))
    assert len(decompose(s.A)) == 6
    problem = VQLSProblem.from_system(s)
    exact = BACKENDS["exact"](problem, 3, kind, True, ansatz="ladder")
    circuits = BACKENDS["circuits"](problem, 3, kind, True, decomposition=decompose(s.A), ansatz="ladder")
    a = initial_parameters(3, 3, 1)
    assert circuits.cost(a) == pytest.approx(exact.cost(a), abs=1e-10)


@pytest.mark.parametrize("kind", ["global", "local"])
def test_costs_vanish_exactly_at_the_solution_and_only_there(kind, rng):
    s = _random_system(3, rng, complex_=False)
    problem = VQLSProblem.from_system(s)
    x = np.linalg.solve(s.A.toarray(), s.b)
    # The cost is a difference of terms of size ||A||^2, so its rounding error scales with that and with the
    # BLAS kernel's summation order (1.1e-13 on a generic kernel, a few 1e-14 on AVX2): a few thousand ulps of
    # ||A||^2 is "exactly zero" here (8e-10 for this A), still over a thousand times below the 1e-6 elsewhere.
    zero = 1e-12 * max(1.0, np.linalg.norm(s.A.toarray(), 2) ** 2)
    for normalized in (True, False):
        at_solution, _ = cost_and_gradient(problem, x / np.linalg.norm(x), kind, normalized, False)
        assert abs(at_solution) <= zero
        for _ in range(5):
            v = rng.normal(size=8)
            assert cost_and_gradient(problem, v / np.linalg.norm(v), kind, normalized, False)[0] > 1e-6


def test_ising_local_cost_matches_its_definition():
    """C_L = <psi|U(I - 1/n sum_j |0_j><0_j| (x) I)U^dagger|psi>, built densely from the definition."""
    n = 3
    s = ising_inspired(n, 10.0)
    problem = VQLSProblem.from_system(s)
    v = RealAnsatz(n, 2).state(initial_parameters(n, 2, 5))
    psi = s.A @ v
    U = problem.u_matrix()
    proj = sum(np.kron(np.kron(np.eye(2 ** (n - 1 - j)), np.diag([1.0, 0.0])), np.eye(2**j)) for j in range(n))
    H = U @ (np.eye(2**n) - proj / n) @ U.conj().T
    expected = float(np.vdot(psi, H @ psi).real)
    assert cost_and_gradient(problem, v, "local", False, False)[0] == pytest.approx(expected, abs=1e-14)
    np.testing.assert_allclose(U[:, 0], s.b / np.linalg.norm(s.b), atol=1e-14)


@pytest.mark.parametrize("kind", ["global", "local"])
@pytest.mark.parametrize("structure", ["brickwall", "ladder"])
def test_adjoint_gradient_equals_finite_differences(kind, structure):
    n, layers = 3, 2
    s = ising_inspired(n, 10.0)
    backend = BACKENDS["exact"](VQLSProblem.from_system(s), layers, kind, True, ansatz=structure)
    a = initial_parameters(n, layers, 11)
    h = 1e-6
    fd = np.array([(backend.cost(a + h * e) - backend.cost(a - h * e)) / (2 * h) for e in np.eye(len(a))])
    np.testing.assert_allclose(backend.gradient(a), fd, atol=1e-8)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_local_vqls_solves_ising_kappa_10(n):
    s = ising_inspired(n, 10.0)
    result = registry.get("vqls-local", backend="exact", layers=4, maxiter=300).solve(s, seed=0)
    assert state_fidelity(result.x, reference_solution(s.A, s.b)) >= 0.99
    assert result.history[-1] < result.history[0]
    r = result.resources
    assert (r["n_qubits"], r["parameters"], r["pauli_terms"]) == (n, n * 5, 1 + n + (n - 1))
    assert r["circuits_per_evaluation"] == (2 * n) * (2 * n - 1) // 2 + n * (2 * n + (2 * n) * (2 * n - 1) // 2)


def test_shot_cost_is_within_four_sigma_of_the_exact_value():
    n, layers = 3, 2
    s = ising_inspired(n, 10.0)
    problem = VQLSProblem.from_system(s)
    a = initial_parameters(n, layers, 2)
    exact = BACKENDS["exact"](problem, layers, "global", True).cost(a)
    shots = BACKENDS["shots"](
        problem, layers, "global", True, decomposition=decompose(s.A, atol=1e-12), shots=1000, seed=0
    )
    samples = np.array([shots.cost(a) for _ in range(12)])  # each evaluation draws new shots
    sigma = samples.std(ddof=1)
    assert 0 < sigma < 0.1
    assert abs(samples[0] - exact) <= 4 * sigma
    assert abs(samples.mean() - exact) <= 4 * sigma / np.sqrt(len(samples))
    assert shots.resources()["circuit_executions"] == 12 * len(shots.templates)


def test_circuit_budget_is_refused_with_the_count():
    s = ising_inspired(4, 10.0)
    result = registry.get("vqls-local", backend="circuits", max_circuits=50).solve(s)
    assert result.status is Status.SKIPPED and result.x is None
    assert "Pauli terms need" in result.message and "backend='exact'" in result.message
    assert result.resources["circuits_per_evaluation"] > 50


def test_spsa_family_runs_deterministically():
    s = ising_inspired(3, 10.0)
    runs = [
        registry.get("vqls-global", backend="exact", optimizer=opt, maxiter=15, layers=2).solve(s, seed=3)
        for opt in ("spsa", "qnspsa", "qnspsa")
    ]
    assert all(len(r.history) == 15 for r in runs)
    np.testing.assert_array_equal(runs[1].x, runs[2].x)
    assert runs[0].status is Status.MAX_ITER


def test_circuit_backend_solves_a_small_system_with_cobyla():
    s = ising_inspired(2, 10.0)
    result = registry.get("vqls-local", backend="circuits", layers=3, maxiter=150).solve(s)
    assert state_fidelity(result.x, reference_solution(s.A, s.b)) >= 0.99
    assert (
        result.resources["circuit_executions"]
        == result.resources["cost_evaluations"] * result.resources["circuits_per_evaluation"]
    )


@pytest.mark.parametrize(
    "options, match",
    [
        ({"backend": "gpu"}, "unknown backend 'gpu'"),
        ({"optimizer": "adam"}, "unknown optimizer 'adam'"),
        ({"backend": "shots", "optimizer": "lbfgsb"}, "needs exact gradients"),
        ({"layers": -1}, "layers must be an integer"),
        ({"shots": 0}, "shots must be an integer"),
    ],
)
def test_bad_options_are_refused(options, match):
    with pytest.raises(InputError, match=match):
        registry.get("vqls-local", **options)


def test_non_power_of_two_and_zero_b_are_refused():
    with pytest.raises(InputError, match="power-of-two"):
        registry.get("vqls-global").solve(LinearSystem(sp.eye(3, format="csr"), np.ones(3)))
    with pytest.raises(InputError, match="b != 0"):
        registry.get("vqls-global").solve(LinearSystem(sp.eye(4, format="csr"), np.zeros(4)))


def test_savitzky_golay_smoothing_and_missing_histories(tmp_path):
    import pandas as pd

    from qlsbench.report import plot_loss_curves, smooth

    t = np.arange(300)
    clean = -t / 100.0  # log10 of an exponentially decaying loss
    noisy = clean + np.random.default_rng(0).normal(scale=0.2, size=t.size)
    assert np.abs(smooth(noisy) - clean).std() < 0.5 * np.abs(noisy - clean).std()
    assert len(smooth(noisy[:4])) == 4 and np.array_equal(smooth(noisy[:3]), noisy[:3])  # too short to filter
    rows = pd.DataFrame(
        {"solver": ["lu"], "history": [[1.0]], "n_qubits": [2], "repeat": [0], "cond": [10.0], "fidelity": [1.0]}
    )
    with pytest.raises(InputError, match="no loss histories for solver"):
        plot_loss_curves(rows, tmp_path / "f.png", solvers=["lu"])


def test_depolarizing_noise_is_applied_to_shot_circuits():
    """Noise shrinks every Hadamard-test signal towards 0, which moves the global cost far beyond shot noise."""
    n, layers = 2, 1
    s = ising_inspired(n, 10.0)
    problem = VQLSProblem.from_system(s)
    terms = decompose(s.A, atol=1e-12)
    a = initial_parameters(n, layers, 4)

    def costs(p):
        backend = BACKENDS["shots"](
            problem, layers, "global", True, decomposition=terms, shots=4000, seed=1, depolarizing=p
        )
        return np.array([backend.cost(a) for _ in range(6)])

    clean, noisy = costs(0.0), costs(0.3)
    exact = BACKENDS["exact"](problem, layers, "global", True).cost(a)
    sigma = max(clean.std(ddof=1), noisy.std(ddof=1))
    assert abs(clean.mean() - exact) <= 4 * sigma
    assert abs(noisy.mean() - exact) > 8 * sigma


class _Quadratic:
    """A backend stand-in with cost |a - 1|^2 + 1/2 and its gradient: the optimisers' stops, without circuits."""

    name = "exact"

    def cost(self, a):
        return float(np.sum((np.asarray(a) - 1.0) ** 2)) + 0.5

    def gradient(self, a):
        return 2.0 * (np.asarray(a) - 1.0)


@pytest.mark.parametrize(
    ("optimizer", "maxiter", "tol", "says"),
    [
        ("lbfgsb", 200, 0.6, "lbfgsb: the cost reached tol 0.6 after "),
        ("lbfgsb", 200, 0.0, "lbfgsb: the gradient vanished (below 1e-12) after "),
        ("cobyla", 3, 1e-12, "cobyla: it used its budget of 3 cost evaluations"),
        ("cobyla", 500, 1e-4, "cobyla: its step shrank to tol 0.0001"),
    ],
)
def test_optimisers_say_why_they_stopped_in_plain_words(optimizer, maxiter, tol, says):
    """L-BFGS-B stopped at tol by our callback once read "`callback` raised `StopIteration`"."""
    from qlsbench.solvers.vqls.optimizers import OPTIMIZERS

    result = OPTIMIZERS[optimizer](_Quadratic(), np.zeros(3), maxiter, tol, 0)
    assert result.message.startswith(says), result.message
    assert not any(word in result.message for word in ("StopIteration", "callback", "CONVERGENCE", "Return from"))


def test_a_vqls_solve_stopped_at_tol_says_so_in_its_message():
    system = ising_inspired(2, 10.0)
    result = registry.get("vqls-local", optimizer="lbfgsb", layers=2, tol=1e-3).solve(system, seed=0)
    assert "lbfgsb: the cost reached tol 0.001 after" in result.message, result.message
    assert "StopIteration" not in result.message


@pytest.mark.parametrize(
    "backend, keywords, bad",
    [
        ("exact", {"ansatz": "ladder", "shot": 100}, "shot"),  # a misspelt keyword
        ("exact", {"shots": 100}, "shots"),  # a keyword of another backend
        ("circuits", {"shots": 100}, "shots"),  # the shot-free backend takes no shots
        ("shots-emulated", {"shots": 100, "mitigation": "readout"}, "mitigation"),  # a device backend's keyword
    ],
)
def test_a_backend_refuses_a_keyword_it_does_not_take_naming_it(backend, keywords, bad):
    """No backend swallows keywords (``**_``): one it does not take raises, naming it, instead of being dropped."""
    s = ising_inspired(2, 10.0)
    problem = VQLSProblem.from_system(s)
    if backend != "exact":
        keywords = {**keywords, "decomposition": decompose(s.A)}
    with pytest.raises(TypeError, match=f"'{bad}'"):
        BACKENDS[backend](problem, 1, "global", True, **keywords)


def test_every_backend_solves_through_the_solver_with_only_its_own_keywords():
    """The solver passes each backend exactly what it takes: each runs one short solve."""
    s = ising_inspired(2, 10.0)
    for backend in ("exact", "circuits", "shots", "shots-emulated"):
        solver = registry.get("vqls-local", backend=backend, layers=1, maxiter=8, optimizer="cobyla")
        assert solver.solve(s, seed=0).x is not None, backend
