"""HHL on Aer: phase estimation reads known eigenvalues, fidelity grows with the clock, refinement reaches the
high-accuracy bar, the dilation solves non-Hermitian systems, shots sample what the statevector says."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from qlsbench import solvers
from qlsbench.errors import InputError
from qlsbench.pauli import decompose
from qlsbench.problems import LinearSystem, ising_inspired
from qlsbench.solvers.hhl import _run
from qlsbench.solvers.hhl import circuit as hhl_circuit


def _fidelity(system: LinearSystem, x: np.ndarray) -> float:
    exact = np.linalg.solve(system.A.toarray(), system.b)
    return float(abs(np.vdot(exact, x)) ** 2 / (np.vdot(exact, exact).real * np.vdot(x, x).real))


def _random_rhs(system: LinearSystem, seed: int = 1) -> LinearSystem:
    """The same matrix with a random right-hand side: Ising's b = |+>^n is close to an eigenvector."""
    return LinearSystem(system.A, np.random.default_rng(seed).normal(size=system.dim))


def test_the_clock_reads_representable_eigenvalues_exactly():
    """A 2x2 matrix whose eigenvalues sit on the clock grid: phase estimation puts all probability on their two
    clock states, in the proportions of b on the eigenvectors, and HHL then inverts exactly."""
    m = 4
    t = hhl_circuit.default_time(m)
    grid = hhl_circuit.clock_eigenvalues(m, t)
    # +7 and -3 clock units: the largest is 1 (7 units at the default time), so the solver's scaling to spectral
    # norm 1 keeps both on the grid
    lam = np.array([grid[7], grid[16 - 3]])
    angle = 0.3
    V = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    H = V @ np.diag(lam) @ V.T
    b = np.array([0.6, 0.8])
    qpe = hhl_circuit.PhaseEstimation.from_powers(hhl_circuit.exact_powers(H, t, m), 1)
    state = np.asarray(_run(hhl_circuit.phase_estimation(b, qpe), method="statevector").result().get_statevector())
    clock = (np.abs(state.reshape(2**m, 2)) ** 2).sum(axis=1)
    weights = (V.T @ b) ** 2
    np.testing.assert_allclose(clock[[7, 13]], weights, atol=1e-12)
    assert clock.sum() - clock[[7, 13]].sum() < 1e-12
    assert lam[0] == pytest.approx(1.0)
    solved = solvers.get("hhl", clock=m, inversion="grid").solve(LinearSystem(H, b))
    assert _fidelity(LinearSystem(H, b), solved.x) > 1 - 1e-12


def test_the_eigenbasis_form_is_the_controlled_power_circuit():
    """The fast form (V, one diagonal, V^dagger) and the textbook one (controlled dense powers) give one state."""
    rng = np.random.default_rng(3)
    n, m, t = 2, 4, 2.5
    G = rng.normal(size=(2**n, 2**n)) + 1j * rng.normal(size=(2**n, 2**n))
    H = (G + G.conj().T) / np.linalg.norm(G + G.conj().T, 2)
    b = rng.normal(size=2**n) + 1j * rng.normal(size=2**n)
    b /= np.linalg.norm(b)
    angles, _ = hhl_circuit.inversion_angles(m, t)
    w, V = np.linalg.eigh(H)
    forms = [
        hhl_circuit.PhaseEstimation.in_eigenbasis(w, V, t, m),
        hhl_circuit.PhaseEstimation.from_powers(hhl_circuit.exact_powers(H, t, m), n),
    ]
    states = [
        np.asarray(_run(hhl_circuit.build(b, qpe, angles), method="statevector").result().get_statevector())
        for qpe in forms
    ]
    np.testing.assert_allclose(states[0], states[1], atol=1e-12)
    assert np.linalg.norm(hhl_circuit.postselected(states[0], n, m)) > 1e-3  # a branch worth comparing


@pytest.mark.parametrize("n", [2, 3, 4])
def test_fidelity_rises_with_the_clock_and_reaches_099(n):
    system = _random_rhs(ising_inspired(n, 10.0))
    fidelities = [_fidelity(system, solvers.get("hhl", clock=m).solve(system).x) for m in (3, 5, 8)]
    assert fidelities[0] < fidelities[-1] and fidelities[-1] >= 0.99, fidelities


def test_refinement_takes_the_residual_to_the_high_accuracy_bar():
    system = _random_rhs(ising_inspired(3, 10.0))
    result = solvers.get("hhl", clock=5, refine=8).solve(system)
    history = result.history
    assert 1e-3 < history[0] < 1e-1  # plain HHL at 5 clock qubits
    assert history[-1] <= 1e-8 and len(history) <= 9
    assert all(b < a for a, b in zip(history, history[1:]))
    assert result.status == "converged" and result.resources["refine_rounds"] == 8


def test_the_dilation_solves_a_non_hermitian_system():
    rng = np.random.default_rng(2)
    A = np.eye(4) + 0.4 * rng.normal(size=(4, 4))
    system = LinearSystem(A, rng.normal(size=4))
    result = solvers.get("hhl", clock=8).solve(system)
    assert result.resources["dilation"] and result.resources["total_qubits"] == 3 + 8 + 1
    np.testing.assert_allclose(
        result.x, np.linalg.solve(A, system.b), rtol=0, atol=2e-3 * np.linalg.norm(np.linalg.solve(A, system.b))
    )
    assert result.resources["two_qubit_gates"] > 0 and result.resources["circuit_depth"] > 0


def test_trotter_powers_match_qiskits_own_pauli_evolution():
    """The Trotter product built from qlsbench's decomposition is Qiskit's Lie-Trotter Pauli evolution (e^{+iHt}:
    Qiskit's gate evolves by e^{-iHt}, so it gets -t)."""
    from qiskit.circuit.library import PauliEvolutionGate
    from qiskit.quantum_info import Operator
    from qiskit.synthesis import LieTrotter

    H = ising_inspired(3, 10.0).A.toarray()
    terms = decompose(H)
    unit = hhl_circuit.trotter_powers(terms, 0.7, 1, 3)[0]
    gate = PauliEvolutionGate(terms.to_sparse_pauli_op(), time=-0.7, synthesis=LieTrotter(reps=3))
    np.testing.assert_allclose(unit, Operator(gate.definition).data, atol=1e-12)  # the synthesised circuit
    assert np.linalg.norm(unit - hhl_circuit.exact_powers(H, 0.7, 1)[0]) > 1e-6  # a real Trotter error
    system = _random_rhs(ising_inspired(3, 10.0))
    trotter = solvers.get("hhl", clock=8, evolution="trotter", trotter_steps=4).solve(system)
    assert _fidelity(system, trotter.x) > 0.999 and trotter.resources["pauli_terms"] > 0


@pytest.mark.parametrize("backend", ["shots", "shots-emulated"])
def test_shots_sample_the_postselected_distribution(backend):
    system = _random_rhs(ising_inspired(2, 10.0))
    exact = solvers.get("hhl", clock=6, inversion="grid").solve(system)
    sampled = solvers.get("hhl", clock=6, inversion="grid", backend=backend, shots=20_000).solve(system)
    p = exact.resources["postselection_probability"]
    sigma = np.sqrt(p * (1 - p) / 20_000)
    assert abs(sampled.resources["postselection_probability"] - p) <= 5 * sigma
    assert _fidelity(system, sampled.x) > 0.98 and "from shots" in sampled.message


def test_bad_hhl_options_are_refused():
    for bad, match in [
        (dict(clock=1), "clock"),
        (dict(backend="gpu"), "backend"),
        (dict(time=4.0), "time"),
        (dict(evolution="exact-ish"), "evolution"),
        (dict(refine=-1), "refine"),
        (dict(inversion="magic"), "inversion"),
    ]:
        with pytest.raises(InputError, match=match):
            solvers.get("hhl", **bad)


def test_the_board_calls_hhl_quantum_and_refinement_passes_the_exact_track(tmp_path):
    """Through the runner and the ranking: HHL rows are of kind ``quantum``; with refinement they meet the exact
    track's bar (converged, residual 1e-6), without it only the variational track's."""
    from qlsbench.bench import SolverSpec, load_results, run_solver
    from qlsbench.bench.ranking import track_table, tracks
    from qlsbench.data import write_systems

    data = tmp_path / "ising" / "part-0000.parquet"
    write_systems([ising_inspired(n, 10.0) for n in (2, 3)], data)
    run_solver(
        SolverSpec("hhl", {"clock": 5, "refine": 8}, "hhl-refined"), data, tmp_path / "r" / "a.parquet", progress=False
    )
    run_solver(SolverSpec("hhl", {"clock": 5}, "hhl-plain"), data, tmp_path / "r" / "b.parquet", progress=False)
    run_solver(SolverSpec("lu"), data, tmp_path / "r" / "c.parquet", progress=False)
    results = load_results([tmp_path / "r"])
    exact, variational = (track_table(results, t).set_index("solver") for t in tracks())
    assert exact.loc["hhl-refined", "kind"] == "quantum" and exact.loc["lu", "kind"] == "classical"
    assert exact.loc["hhl-refined", "success_rate"] == 1.0 and exact.loc["hhl-plain", "success_rate"] == 0.0
    assert variational.loc["hhl-plain", "success_rate"] == 1.0


def test_a_right_hand_side_qiskits_state_preparation_cannot_build_is_prepared_and_solved():
    """A penalty Newton system (24 unknowns, padded to 32) whose dilated |b> Qiskit 2.6's StatePreparation
    fails on ("Input matrix is not unitary"): the Householder fallback prepares it exactly and HHL with
    refinement solves the system (it ended an in-loop run at step 25 before)."""
    from qiskit.quantum_info import Operator

    from qlsbench.solvers.hhl.circuit import _state_preparation

    data = np.load(Path(__file__).parent / "data" / "hhl_state_preparation_failure.npz")
    A, b = data["A"], data["b"]
    v = np.concatenate([b, np.zeros_like(b)]).astype(complex)
    v /= np.linalg.norm(v)
    np.testing.assert_allclose(Operator(_state_preparation(v)).data[:, 0], v, atol=1e-12)
    system = LinearSystem(sp.csr_matrix(A), b, {"n_qubits": 5})
    result = solvers.get("hhl", refine=10).solve(system)
    assert result.status == solvers.Status.CONVERGED
    assert np.linalg.norm(A @ result.x - b) <= 1e-6 * np.linalg.norm(b)


def test_refinement_is_capped_and_stops_when_the_residual_stalls():
    """``refine`` has an upper bound, and rounds that no longer lower the residual are not run on and on."""
    from qlsbench.errors import InputError
    from qlsbench.problems import ising_inspired
    from qlsbench.solvers import registry
    from qlsbench.solvers.hhl import MAX_REFINE, STALL, _stagnated

    with pytest.raises(InputError, match="hhl: refine"):
        registry.get("hhl", refine=MAX_REFINE + 1)
    assert not _stagnated([1.0, 0.5]) and not _stagnated([1.0, 0.5, 0.2])
    assert _stagnated([1.0, 0.99, 0.98]) and _stagnated([1e-3, 2e-3, 1e-3])
    # Two clock qubits cannot resolve the spectrum: the residual stalls and the rounds stop well before 50.
    result = registry.get("hhl", clock=2, refine=50).solve(ising_inspired(2, 10.0), seed=0)
    rounds = result.resources["refine_rounds"]
    assert rounds < 50 and "stopped" in result.message
    assert result.history[-1] >= STALL * result.history[-3]
