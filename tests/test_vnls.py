"""VNLS on NetKet: the loss is the Rayleigh quotient of H, its Monte Carlo estimate is unbiased, and it solves."""

from __future__ import annotations

import netket as nk
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.linalg import hadamard

from qlsbench.errors import InputError
from qlsbench.problems import (
    LinearSystem,
    ising_inspired,
    reference_solution,
    state_fidelity,
)
from qlsbench.solvers import Status, registry
from qlsbench.solvers.vnls import training
from qlsbench.solvers.vnls.operator import (
    VNLSLoss,
    hamiltonian,
    index_to_states,
    netket_csr,
    padded_rows,
    states_to_index,
)
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


def _netket_matrix(H: np.ndarray) -> sp.csr_matrix:
    n = int(np.log2(H.shape[0]))
    return nk.operator.LocalOperator(nk.hilbert.Qubit(N=n), [H], [list(range(n))]).to_sparse()


def test_exact_matrix_is_netkets_own_array_for_array(rng):
    """NetKet's LocalOperator.to_sparse is the oracle: same dtype, indptr, indices and data, element by element,
    on loss matrices of physics-like systems (round-off entries near zero) and on random matrices whose entries
    span 1e-14..1 (around NetKet's cutoff), real and complex, with zero diagonals."""
    matrices = [
        hamiltonian(s.A, s.b / np.linalg.norm(s.b)).toarray()
        for s in [ising_inspired(n, kappa=10) for n in (1, 2, 3)] + [_random_system(4, rng, True)]
    ]
    for n in (1, 2, 3, 4):
        for complex_ in (False, True):
            H = rng.normal(size=(2**n, 2**n)) * 10.0 ** rng.integers(-14, 1, size=(2**n, 2**n))
            H = H + (1j * rng.normal(size=H.shape) * 10.0 ** rng.integers(-14, 1, size=H.shape) if complex_ else 0)
            H[rng.random(H.shape) < 0.3] = 0
            H = H + H.conj().T
            np.fill_diagonal(H[:2, :2], 0)
            matrices.append(H)
    for H in matrices:
        ours, theirs = netket_csr(H), _netket_matrix(H)
        assert ours.dtype == theirs.dtype
        for field in ("indptr", "indices", "data"):
            np.testing.assert_array_equal(getattr(ours, field), getattr(theirs, field), err_msg=field)


def test_exact_solve_is_the_one_trained_on_netkets_operator(monkeypatch, rng):
    """The exact loss's own matrix trains the very state NetKet's LocalOperator trains: same bits."""
    s = _random_system(3, rng)
    solver = registry.get("vnls", exact=True, n_iter=40)
    ours = solver.solve(s, seed=3)

    def netkets(system, hilbert, exact, c_samples, seed):
        H = hamiltonian(system.A, system.b / np.linalg.norm(system.b)).toarray()
        return nk.operator.LocalOperator(hilbert, [H], [list(range(hilbert.size))])

    monkeypatch.setattr(training, "loss_operator", netkets)
    theirs = solver.solve(s, seed=3)
    np.testing.assert_array_equal(ours.x, theirs.x)
    assert ours.history == theirs.history


def _rows_reversed(loss_operator):
    """``training.loss_operator`` with each row of the loss matrix stored in reverse: the same matrix, each
    product's terms added in another order. The control for comparing trajectories: the rounding a correct
    reimplementation may change, done to NetKet's own driver."""

    def reversed_rows(*args, **kwargs):
        op = loss_operator(*args, **kwargs)
        M = op._matrix.copy()
        for r in range(M.shape[0]):
            row = slice(M.indptr[r], M.indptr[r + 1])
            M.indices[row], M.data[row] = M.indices[row][::-1].copy(), M.data[row][::-1].copy()
        op._matrix = M
        return op

    return reversed_rows


def _distance(run, reference) -> float:
    """Largest relative difference of the loss before any step, of any read-out and of the trained ``psi``."""
    pairs = [(np.asarray(run.history), np.asarray(reference.history))]
    pairs += [(a, b) for (_, a, _), (_, b, _) in zip(run.progress, reference.progress)]
    pairs += [(run.psi, reference.psi)] + (
        [(run.warm_psi, reference.warm_psi)] if reference.warm_psi is not None else []
    )
    return max(float(np.max(np.abs(a - b)) / np.max(np.abs(b))) for a, b in pairs)


def _assert_the_drivers_run(ours, theirs, control, floor: float = 1e-12):
    """``ours`` is the driver's run ``theirs`` to rounding: the same steps, marks and stop, and no farther from it
    than 10 times the control (the driver on the same matrix with its rows' sums reordered) strays; 1e-12
    where the control is bit-identical. Measured here (30 + 10 steps): 0 for real matrices (control 8e-7 to
    1.4e-6), 5e-8 to 3e-6 for complex ones (control 2e-6 to 3e-6): SR's CG amplifies rounding within a few
    steps, in NetKet's driver as in the loop."""
    assert ours.steps == theirs.steps == control.steps
    assert [k for k, *_ in ours.progress] == [k for k, *_ in theirs.progress]
    assert _distance(ours, theirs) <= 10 * _distance(control, theirs) + floor


@pytest.mark.parametrize(
    "model, complex_, sr_solver",
    [
        ("rbm", False, "cg"),
        ("crbm", False, "cg"),
        ("crbm", True, "cg"),
        ("arnn", True, "cg"),
        ("rbm", False, "cholesky"),
        ("crbm", True, "cholesky"),
        ("arnn", True, "cholesky"),
    ],
)
def test_the_compiled_exact_loop_takes_netkets_driver_steps(model, complex_, sr_solver, monkeypatch, rng):
    """NetKet's VMC driver with SR is the oracle: the loss before every step, the read-outs at every mark, the
    warm start's state and the trained state agree, for a real, a holomorphic and a non-holomorphic model, with
    SR's CG and with its dense Cholesky solve (the driver configured with the same one)."""
    from qlsbench.solvers.variational import progress_marks

    s = _random_system(3, rng, complex_)
    guess = np.linalg.solve(s.A.toarray(), s.b) + 0.3 * rng.normal(size=8)
    options = dict(model=model, exact=True, n_samples=16, learning_rate=0.1, n_iter=30, diag_shift=0.01, alpha=1)
    options.update(seed=2, marks=progress_marks(40), guess=guess, warm_steps=10, sr_solver=sr_solver)
    theirs, ours = (training.train(s, 3, driver=driver, **options) for driver in (True, False))
    assert len(ours.progress) == len(progress_marks(40)) and theirs.history[0] > 1.5 * theirs.history[-1]
    monkeypatch.setattr(training, "loss_operator", _rows_reversed(training.loss_operator))
    _assert_the_drivers_run(ours, theirs, training.train(s, 3, driver=True, **options))


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "sampled"])
def test_the_compiled_loops_stop_where_the_driver_stops(exact, monkeypatch):
    """An early stop asked every 10 steps ends both paths after the same step: of 200, after 50 in exact mode; in
    Monte Carlo mode, where the read-out's residual falls from 0.63 after 10 steps to 0.42 by 140, once it is 0.44.
    """
    from qlsbench.solvers.variational import least_squares_readout

    s = _far_system()
    sampled = (0.44, 256, _mc_rows_reversed, MC_FLOOR)
    bar, samples, control, floor = (0.3, 16, _rows_reversed, 1e-12) if exact else sampled

    def stop(psi):
        return np.linalg.norm(s.A @ least_squares_readout(s, psi) - s.b) <= bar * np.linalg.norm(s.b)

    options = dict(model="crbm", exact=exact, n_samples=samples, learning_rate=0.1, n_iter=200, diag_shift=0.01)
    options.update(alpha=1, seed=0, stop=stop, stop_every=10, marks=[1, 8, 32, 64, 128])
    theirs, ours = (training.train(s, 3, driver=driver, **options) for driver in (True, False))
    assert 10 <= theirs.steps < 200 and theirs.steps % 10 == 0
    monkeypatch.setattr(training, "loss_operator", control(training.loss_operator))
    _assert_the_drivers_run(ours, theirs, training.train(s, 3, driver=True, **options), floor)


#: Where the sampled loop's control is bit-identical (a row of one or two terms sums the same either way), the
#: loop may still differ by the ``c`` term's mean, taken in JAX rather than numpy: a last-bit difference that SR
#: grows over a run's 40 steps (measured: at most 3.5e-11 of the largest value).
MC_FLOOR = 1e-9


def _mc_rows_reversed(loss_operator):
    """``training.loss_operator`` with each row of the Monte Carlo loss's tables (``A^dagger A`` and ``A``)
    stored in reverse: the same local energies and ``c`` term, each row's sum taken in another order. The
    sampled loop's control, as :func:`_rows_reversed` is the exact loop's."""

    def reversed_rows(*args, **kwargs):
        op = loss_operator(*args, **kwargs)
        op.aa_cols, op.aa_vals = op.aa_cols[:, ::-1], op.aa_vals[:, ::-1]
        op.a_cols, op.a_vals = op.a_cols[:, ::-1], op.a_vals[:, ::-1]
        return op

    return reversed_rows


@pytest.mark.parametrize("table", [True, False])
@pytest.mark.parametrize("model, complex_", [("rbm", False), ("crbm", False), ("crbm", True)])
def test_the_compiled_sampled_loop_takes_netkets_driver_steps(model, complex_, table, monkeypatch, rng):
    """Monte Carlo mode: NetKet's VMC driver with SR on an ``MCState`` is the oracle. The same sampler keys and
    the same draws of the ``c`` term give the same chains, so the loss before every step, the read-outs at
    every mark, the warm start's state and the trained state agree to rounding, whether the loop reads the
    amplitudes from a table over the basis or evaluates the model on each connected configuration."""
    from qlsbench.solvers.variational import progress_marks
    from qlsbench.solvers.vnls import sampled_loop

    if not table:
        monkeypatch.setattr(sampled_loop, "use_table", lambda *args: False)
    s = _random_system(3, rng, complex_)
    guess = np.linalg.solve(s.A.toarray(), s.b) + 0.3 * rng.normal(size=8)
    options = dict(model=model, exact=False, n_samples=64, learning_rate=0.05, n_iter=30, diag_shift=0.01, alpha=1)
    options.update(seed=2, marks=progress_marks(40), guess=guess, warm_steps=10)
    theirs, ours = (training.train(s, 3, driver=driver, **options) for driver in (True, False))
    assert len(ours.progress) == len(progress_marks(40)) and theirs.history[0] > 1.2 * np.mean(theirs.history[-5:])
    monkeypatch.setattr(training, "loss_operator", _mc_rows_reversed(training.loss_operator))
    _assert_the_drivers_run(ours, theirs, training.train(s, 3, driver=True, **options), MC_FLOOR)


def test_the_table_is_used_where_it_is_the_fewer_evaluations():
    from qlsbench.solvers.vnls.sampled_loop import use_table

    assert use_table(9, 1024, 46) and use_table(3, 16, 1)  # 512 <= 47,104; 8 <= 16
    assert not use_table(16, 1024, 46) and not use_table(5, 16, 1)  # 65,536 > 47,104; 32 > 16


def test_the_exact_default_solve_is_not_separated_from_cg_over_seeds():
    """Exact mode's default SR solve moved from NetKet's CG to its dense Cholesky solve (0.2.2). Over 5 seeds
    the outcomes of the two (the read-out's fidelity to the solution) must not be separated by the project's
    rule in either direction; and the rule has power here: a run with a tenth of the steps is separated."""
    from qlsbench.bench.spread import separation

    s = _far_system()
    x = reference_solution(s.A, s.b)

    def fidelities(n_iter, **options):
        solver = registry.get("vnls", exact=True, n_iter=n_iter, learning_rate=0.1, **options)
        return [state_fidelity(solver.solve(s, seed=seed).x, x) for seed in range(5)]

    auto = registry.get("vnls", exact=True)
    assert auto.resolved_sr_solver == "cholesky" and registry.get("vnls").resolved_sr_solver == "cg"
    new, old = fidelities(300), fidelities(300, sr_solver="cg")
    assert not separation(new, old, "cg").separated and not separation(old, new, "cholesky").separated
    assert separation(new, fidelities(30), "30 steps").separated  # the rule can tell runs apart


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


@pytest.mark.parametrize("n", [4, 6])
def test_ising_kappa_10_with_uniform_b(n):
    s = ising_inspired(n, 10.0)
    result = registry.get("vnls", model="rbm", n_iter=300).solve(s, seed=0)
    assert state_fidelity(result.x, reference_solution(s.A, s.b)) >= 0.999
    assert result.status is Status.CONVERGED and result.history[-1] < result.history[0]
    assert result.resources["mc_samples"] == 1024 * 300
    assert result.resources["readout_residual"] == pytest.approx(
        np.linalg.norm(s.A @ result.x - s.b) / np.linalg.norm(s.b), rel=1e-9
    )


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
    assert result.resources["overlap_lowest_singular"] >= 0.5
    assert f"{result.resources['overlap_lowest_singular']:.0%} of psi" in result.message
    assert "budget of 200 cost evaluations" in result.message
    assert result.resources["final_loss"] == pytest.approx(0.01, rel=0.05)


def _trap_case():
    """Sigma_min = 0.1 on the uniform vector, b orthogonal to it: the solution has no share on it."""
    N = 16
    Q = hadamard(N) / 4.0
    A = Q @ np.diag(np.linspace(0.1, 1.0, N)) @ Q.T
    return LinearSystem(sp.csr_matrix(A), Q[:, 5] + 0.5 * Q[:, 9]), Q


def test_trap_is_judged_by_the_state_not_the_loss():
    from qlsbench.solvers.vnls import _message, trap_diagnostics

    s, Q = _trap_case()
    x = reference_solution(s.A, s.b)
    residual = 0.05  # above rtol in every case below: only the state decides
    on_trap = trap_diagnostics(s, Q[:, 0] + 0.1 * Q[:, 5], loss=0.011)
    near_solution = trap_diagnostics(s, x + 0.02 * Q[:, 3], loss=0.011)  # the same small loss
    assert on_trap["overlap_lowest_singular"] > 0.95 and on_trap["solution_overlap_lowest_singular"] < 1e-20
    assert near_solution["overlap_lowest_singular"] < 1e-20
    assert on_trap["sigma_min"] == pytest.approx(0.1) and on_trap["loss_over_sigma_min2"] == pytest.approx(1.1)
    trapped = _message({"final_loss": 0.011, **on_trap}, residual, 1e-2)
    assert "trapped" in trapped and f"{on_trap['overlap_lowest_singular']:.0%} of psi lies on" in trapped
    assert on_trap["trap_tested"] and near_solution["trap_tested"]
    assert "trapped" not in _message({"final_loss": 0.011, **near_solution}, residual, 1e-2)
    assert "trapped" not in _message({"final_loss": 0.011, **on_trap}, 1e-3, 1e-2)  # solved: never trapped
    # b along the lowest left singular vector: the solution itself is on v, so psi there is no trap.
    solved_on_v = LinearSystem(s.A, Q[:, 0].copy())
    diag = trap_diagnostics(solved_on_v, Q[:, 0] + 0.3 * Q[:, 4], loss=0.01)
    assert diag["solution_overlap_lowest_singular"] == pytest.approx(1.0)
    assert "trapped" not in _message({"final_loss": 0.01, **diag}, residual, 1e-2)


def test_the_trap_is_not_tested_beyond_a_cheap_svd():
    """Above DIAGNOSTICS_MAX_DIM no SVD is taken, and the message says the trap was not tested."""
    from qlsbench.solvers.vnls import DIAGNOSTICS_MAX_DIM, _message, trap_diagnostics

    N = 2 * DIAGNOSTICS_MAX_DIM
    big = LinearSystem(sp.identity(N, format="csr"), np.ones(N))
    diag = trap_diagnostics(big, np.ones(N), loss=0.0)
    assert diag == {"trap_tested": False}
    message = _message({"final_loss": 0.5, "cost_evaluations": 10, **diag}, 0.5, 1e-2)
    assert "trap not tested" in message and "trapped" not in message and "budget of 10" in message


def test_no_trap_message_on_a_good_run_that_misses_rtol():
    """Fidelity >= 0.9 with a read-out residual just above a tight rtol: the message says budget, not trap."""
    s = ising_inspired(3, 10.0)
    result = registry.get("vnls", model="crbm", exact=True, n_iter=100, rtol=1e-4).solve(s, seed=0)
    assert state_fidelity(result.x, reference_solution(s.A, s.b)) >= 0.9
    assert result.status is Status.MAX_ITER and "trapped" not in result.message
    assert "budget of 100 cost evaluations" in result.message
    assert result.resources["overlap_lowest_singular"] < 0.5


def test_progress_follows_the_marks_and_ends_at_the_answer():
    """A well-conditioned system far from the uniform start: the read-outs at the marks go down to the answer."""
    from qlsbench.solvers.variational import progress_marks

    s = ising_inspired(3, 2.0)
    s = LinearSystem(s.A, np.random.default_rng(0).normal(size=8))  # far from the uniform start
    result = registry.get("vnls", model="crbm", exact=True, n_iter=150, learning_rate=0.2).solve(s, seed=1)
    assert [k for k, *_ in result.progress] == progress_marks(150)
    np.testing.assert_allclose(result.progress[-1][1], result.x, atol=1e-12)
    residuals = [np.linalg.norm(s.A @ x - s.b) / np.linalg.norm(s.b) for _, x, _ in result.progress]
    assert residuals[0] > 0.3 and residuals[-1] < 1e-2 * residuals[0]  # about 0.8 -> 1e-6 here
    # A good run: converged, and no trap named.
    assert result.status is Status.CONVERGED and "trapped" not in result.message
    assert state_fidelity(result.x, reference_solution(s.A, s.b)) >= 0.99


def _far_system() -> LinearSystem:
    s = ising_inspired(3, 10.0)
    return LinearSystem(s.A, np.random.default_rng(0).normal(size=8))


def test_warm_start_pre_training_beats_the_same_steps_from_random():
    """GMRES with dim iterations is exact: 100 SR steps towards it leave a far better read-out than 100 steps
    on the real loss from the same random start (about 1e-6 against 0.2 here), and count in the budget."""
    from qlsbench.solvers.variational import progress_marks

    s = _far_system()
    options = dict(model="crbm", exact=True, learning_rate=0.1)
    warm = registry.get(
        "vnls", n_iter=20, warm_start="gmres", warm_start_iters=8, warm_start_steps=100, **options
    ).solve(s, seed=0)
    cold = registry.get("vnls", n_iter=100, **options).solve(s, seed=0)
    r = warm.resources
    assert r["warm_start_used"] and r["warm_start_residual"] < 1e-10
    assert r["cost_evaluations"] == 120 and r["iterations"] == 20 and len(warm.history) == 20
    assert [k for k, *_ in warm.progress] == progress_marks(120)
    assert r["warm_start_guess_overlap"] > 0.99
    assert cold.resources["readout_residual"] > 0.05  # the comparison has power
    assert r["warm_start_readout_residual"] < min(1e-2, 0.1 * cold.resources["readout_residual"])
    assert r["readout_residual"] < 1e-2  # the main run stays near the solution


def test_bad_input_and_options():
    with pytest.raises(InputError, match="power-of-two"):
        registry.get("vnls").solve(LinearSystem(sp.eye(6, format="csr"), np.ones(6)))
    with pytest.raises(InputError, match="unknown warm_start 'lu'; use one of none, gmres"):
        registry.get("vnls", warm_start="lu")
    with pytest.raises(InputError, match="warm_start_steps must be an integer"):
        registry.get("vnls", warm_start_steps=0)
    with pytest.raises(InputError, match="warm_start_iters must be an integer"):
        registry.get("vnls", warm_start_iters=0)
    with pytest.raises(InputError, match="unknown model 'mlp'"):
        registry.get("vnls", model="mlp")
    with pytest.raises(InputError, match="n_samples must be an integer"):
        registry.get("vnls", n_samples=0)
    with pytest.raises(InputError, match="learning_rate must be a finite number in \\(0, 10\\]"):
        registry.get("vnls", learning_rate=-1.0)


def test_solves_of_one_size_share_the_compiled_parameter_update():
    """NetKet jits its parameter update with the optimizer as a static argument: a fresh optimizer per solve
    compiled and kept one more executable per solve, and a long in-loop run grew by gigabytes. Solving three
    systems of one size must leave the update's compilation cache, and the compiled exact and sampled loops',
    as the first solve left them (a fresh sampler per state once compiled the sampled loop again per solve)."""
    from netket._src.driver.abstract_optimization_driver import apply_gradient

    from qlsbench.problems import LinearSystem
    from qlsbench.solvers import registry
    from qlsbench.solvers.vnls import sampled_loop
    from qlsbench.solvers.vnls.exact_loop import _steps

    rng = np.random.default_rng(0)
    exact, sampled = registry.get("vnls", exact=True, n_iter=5), registry.get("vnls", n_iter=5, n_samples=64)
    sizes = []
    for seed in range(3):
        M = rng.normal(size=(4, 4))
        A = M @ M.T + 4 * np.eye(4)
        b = rng.normal(size=4)
        for solver in (exact, sampled):
            solver.solve(LinearSystem(A, b, x_ref=np.linalg.solve(A, b)), seed=seed)
        sizes.append((apply_gradient._cache_size(), _steps._cache_size(), sampled_loop._steps._cache_size()))
    assert min(sizes[0][1:]) >= 1 and sizes[1] == sizes[0] and sizes[2] == sizes[0]


def test_the_cache_folder_is_per_jax_version_and_cpu_and_can_be_moved_or_turned_off(monkeypatch, tmp_path):
    import jax

    from qlsbench.solvers.vnls.compile_cache import ENV, cache_folder, cpu_tag

    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = cache_folder()
    assert folder.parent == tmp_path / "qlsbench" and jax.__version__ in folder.name and cpu_tag() in folder.name
    monkeypatch.setenv(ENV, "off")
    assert cache_folder() is None
    monkeypatch.setenv(ENV, str(tmp_path / "elsewhere"))
    assert cache_folder() == tmp_path / "elsewhere"


#: A process with the cache in use: one small program, its answer on the last line.
_CACHED_PROGRAM = """
import jax, jax.numpy as jnp
from qlsbench.solvers.vnls.compile_cache import use_compile_cache
use_compile_cache()
print(float(jax.jit(lambda x: jnp.sin(x) * 2 + x ** 2)(jnp.float32(0.5))))
"""


def test_a_damaged_cache_entry_is_replaced_once_with_one_line(tmp_path):
    """An entry cut short (its compressed data fails its checksum): the next process says so in one line, gets the
    same answer, and stores the program again, so the one after says nothing (JAX alone warned on every run)."""
    import os
    import subprocess
    import sys

    folder = tmp_path / "jax"

    def run() -> tuple[str, str]:
        done = subprocess.run(
            [sys.executable, "-c", _CACHED_PROGRAM],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "QLSBENCH_JAX_CACHE": str(folder)},
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip().splitlines()[-1], done.stderr

    first, quiet = run()
    entry = next(folder.glob("jit__lambda-*-cache"))
    whole = entry.read_bytes()
    entry.write_bytes(whole[: len(whole) // 2])  # a write cut short, a disk that lost the tail
    second, said = run()
    assert second == first and quiet == ""
    assert said.splitlines() == [said.strip()] and entry.name.removesuffix("-cache") in said, said
    assert entry.read_bytes() != whole[: len(whole) // 2]  # stored again, whole
    third, nothing = run()
    assert third == first and nothing == ""
