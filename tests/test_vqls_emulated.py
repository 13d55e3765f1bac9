"""The shots-emulated backend draws what Aer draws: per Hadamard test, for the cost and for QN-SPSA's fidelity.

Oracles: Aer's shot-free circuits for the exact expectation values, Aer's sampled circuits for the
distribution (means within 5 sigma of the exact value, variances inside a two-sided 1e-6 chi-square interval
around the binomial variance, and the two samples' means within 5 combined sigma of each other). About 200
such checks run: at 4 sigma and 1e-4 one of them would fail by chance every few dozen seeds; a biased
emulator (a wrong sign, part or variance) misses these bounds by far more.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import chi2

from qlsbench.errors import InputError
from qlsbench.pauli import decompose
from qlsbench.problems import LinearSystem, ising_inspired
from qlsbench.solvers import Status, registry
from qlsbench.solvers.vqls.ansatz import initial_parameters
from qlsbench.solvers.vqls.backends import BACKENDS
from qlsbench.solvers.vqls.problem import VQLSProblem

SHOTS, DRAWS = 100, 200


def _system(name: str) -> LinearSystem:
    """``ising-n`` (|b> uniform: U = H^n) or ``random-n`` / ``complex-n`` (Householder U)."""
    family, n = name.split("-")
    n = int(n)
    if family == "ising":
        return ising_inspired(n, 10.0)
    rng = np.random.default_rng(n)
    N = 2**n
    imag = 1j if family == "complex" else 0
    R = rng.normal(size=(N, N)) + imag * rng.normal(size=(N, N))
    return LinearSystem(
        sp.csr_matrix(R + R.conj().T + 3 * N * np.eye(N)), rng.normal(size=N) + imag * rng.normal(size=N)
    )


def _backends(name: str, kind: str, layers: int = 2):
    s = _system(name)
    problem, terms = VQLSProblem.from_system(s), decompose(s.A, atol=1e-12)
    kwargs = {"decomposition": terms, "seed": 3}
    return (
        BACKENDS["circuits"](problem, layers, kind, True, **kwargs),
        BACKENDS["shots"](problem, layers, kind, True, shots=SHOTS, **kwargs),
        BACKENDS["shots-emulated"](problem, layers, kind, True, shots=SHOTS, **kwargs),
    )


@pytest.mark.parametrize("name", ["ising-3", "random-2", "complex-2"])
@pytest.mark.parametrize("kind", ["global", "local"])
def test_exact_hadamard_test_values_equal_aer(name, kind):
    circuits, _, emulated = _backends(name, kind)
    a = initial_parameters(circuits.problem.n_qubits, 2, 7)
    aer, ours = circuits.parts(a), emulated.exact_parts(a)
    assert aer.keys() == ours.keys()
    assert max(abs(aer[t] - ours[t]) for t in aer) <= 1e-10


def _aer_draws(backend, alpha, indices) -> np.ndarray:
    """``DRAWS`` shot estimates of the chosen circuits: one Aer run of SHOTS * DRAWS shots each, cut in blocks."""
    bound = backend._bind(alpha)
    run = backend.simulator.run([bound[i] for i in indices], shots=SHOTS * DRAWS, memory=True, seed_simulator=11)
    out = []
    for k in range(len(indices)):
        bits = np.array([m[-1] == "0" for m in run.result().get_memory(k)]).reshape(DRAWS, SHOTS)
        out.append(2.0 * bits.sum(axis=1) / SHOTS - 1.0)
    return np.array(out).T  # (DRAWS, circuits)


def _check_distribution(samples: np.ndarray, exact: float) -> None:
    """Mean within 5 sigma of ``exact``; variance within the chi-square interval of Binomial(SHOTS, p)."""
    variance = (1.0 - exact**2) / SHOTS
    if variance < 1e-12:  # a certain outcome: every draw is exact
        np.testing.assert_allclose(samples, exact, atol=1e-12)
        return
    assert abs(samples.mean() - exact) <= 5 * np.sqrt(variance / len(samples))
    ratio = (len(samples) - 1) * samples.var(ddof=1) / variance
    df = len(samples) - 1
    assert chi2.ppf(5e-7, df) <= ratio <= chi2.ppf(1 - 5e-7, df)


@pytest.mark.parametrize(
    "name, kind",
    [
        ("ising-2", "global"),
        ("ising-2", "local"),
        ("ising-3", "local"),
        ("ising-4", "global"),
        ("ising-5", "local"),
        ("random-2", "local"),
        ("complex-2", "global"),
    ],
)
def test_each_hadamard_test_has_aers_distribution(name, kind):
    circuits, shots, emulated = _backends(name, kind)
    alpha = initial_parameters(circuits.problem.n_qubits, 2, 5)
    exact = circuits.parts(alpha)
    terms = list(exact)
    rng = np.random.default_rng(0)
    indices = sorted(rng.choice(len(terms), size=min(6, len(terms)), replace=False))
    aer = _aer_draws(shots, alpha, indices)
    ours = np.array([[emulated.parts(alpha)[terms[i]] for i in indices] for _ in range(DRAWS)])
    for k, i in enumerate(indices):
        z = exact[terms[i]]
        _check_distribution(ours[:, k], z)
        _check_distribution(aer[:, k], z)
        sigma = np.sqrt((1.0 - z**2) / SHOTS * 2 / DRAWS)
        assert abs(ours[:, k].mean() - aer[:, k].mean()) <= 5 * sigma + 1e-12


@pytest.mark.parametrize("n", [2, 4])
def test_qnspsa_fidelity_has_aers_distribution(n):
    _, shots, emulated = _backends(f"ising-{n}", "global")
    x, y = initial_parameters(n, 2, 1), initial_parameters(n, 2, 1) + 0.3
    exact = float(emulated.ansatz.state(x) @ emulated.ansatz.state(y)) ** 2
    batch_x, batch_y = np.tile(x, (DRAWS, 1)), np.tile(y, (DRAWS, 1))
    for draws in (emulated.fidelity(batch_x, batch_y), shots.fidelity(batch_x, batch_y)):
        # A frequency of Binomial(SHOTS, p): reuse the Hadamard-test check on 2 f - 1, whose p is the same.
        _check_distribution(2 * draws - 1, 2 * exact - 1)


def test_emulated_cost_is_unbiased_and_the_solve_is_deterministic():
    s = ising_inspired(3, 10.0)
    problem = VQLSProblem.from_system(s)
    exact = BACKENDS["exact"](problem, 2, "local", True)
    emulated = BACKENDS["shots-emulated"](
        problem, 2, "local", True, decomposition=decompose(s.A, atol=1e-12), shots=1000
    )
    a = initial_parameters(3, 2, 2)
    samples = np.array([emulated.cost(a) for _ in range(400)])
    assert abs(samples.mean() - exact.cost(a)) <= 5 * samples.std(ddof=1) / np.sqrt(len(samples))
    runs = [
        registry.get("vqls-local", backend="shots-emulated", optimizer="qnspsa", maxiter=10, layers=2).solve(
            ising_inspired(2, 10.0), seed=4
        )
        for _ in range(2)
    ]
    np.testing.assert_array_equal(runs[0].x, runs[1].x)
    r = runs[0].resources
    assert r["emulated"] is True and r["shots"] == 1000 and r["circuit_executions"] > 0
    assert runs[0].status in (Status.CONVERGED, Status.MAX_ITER, Status.STALLED)


def test_noise_is_refused_on_the_emulated_backend():
    with pytest.raises(InputError, match="depolarizing applies to backend 'shots' only, not backend='shots-emulated'"):
        registry.get("vqls-local", backend="shots-emulated", depolarizing=1e-3)


def test_aer_seeds_of_different_evaluations_and_solve_seeds_never_share_a_circuits_stream():
    """Aer seeds experiment i of a batch with seed_simulator + i: the batches of 200 evaluations of 5 solve
    seeds, each 100 circuits wide, must not overlap (seed + evaluation made circuit i + 1 of one evaluation
    replay circuit i of the next, and seed r + 1 replay seed r), on both streams."""
    from qlsbench.solvers.vqls.backends import COST, OVERLAP, aer_seed

    width = 100
    starts = sorted(
        aer_seed(seed, stream, evaluation)
        for seed in range(5)
        for stream in (COST, OVERLAP)
        for evaluation in range(200)
    )
    assert len(set(starts)) == len(starts)
    assert min(b - a for a, b in zip(starts, starts[1:])) >= width
    assert all(0 <= s < 2**32 for s in starts)


@pytest.mark.parametrize("backend", ["shots", "device"])
def test_each_overlap_estimate_draws_new_shots(backend):
    """QN-SPSA estimates its metric several times between two cost evaluations: each estimate is a new
    1000-shot sample (its spread over 60 calls is the binomial one), not the same shots again (it was: the
    seed followed the cost evaluations only, so the metric's noise was frozen)."""
    from qlsbench.pauli import decompose
    from qlsbench.problems import ising_inspired
    from qlsbench.solvers.vqls.ansatz import initial_parameters
    from qlsbench.solvers.vqls.backends import BACKENDS
    from qlsbench.solvers.vqls.problem import VQLSProblem

    system = ising_inspired(2, 10.0)
    problem = VQLSProblem.from_system(system)
    sampled = BACKENDS[backend](
        problem,
        2,
        "global",
        True,
        decomposition=decompose(system.A),
        shots=1000,
        seed=0,
        **({"noise_scale": 0.0} if backend == "device" else {}),
    )
    exact = BACKENDS["exact"](problem, 2, "global", True)
    a = initial_parameters(2, 2, 0)
    b = a + 0.3
    p = float(exact.fidelity(a, b)[0])
    draws = np.array([sampled.fidelity(a, b)[0] for _ in range(60)])
    binomial = np.sqrt(p * (1 - p) / 1000)
    assert 0.5 * binomial < draws.std() < 2.0 * binomial
    assert abs(draws.mean() - p) < 4 * binomial / np.sqrt(60)
