"""Warm starts: a solve started from an earlier solve's state (Krylov x0, VQLS angles, VNLS weights).

Truths checked: a start at the solution costs (almost) nothing; a start that
does not fit the system is refused and the solve starts cold, saying why; a
solver without warm starts refuses a start; the sequence mode of ``solve``
walks a run's systems in the simulation's order and chains the states; the
loop's warm start reaches the same trajectory as a cold one.
"""

import json

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from qlsbench.bench import SolverSpec, add_repeats, read_results, run_solver
from qlsbench.bench.in_loop import InLoopOptions, run_in_loop
from qlsbench.data import load_dataset, write_systems
from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.problems import LinearSystem, pad_and_normalize
from qlsbench.solvers import registry
from qlsbench.solvers.base import can_start


def _spd(n: int, seed: int, shift: float = 0.0) -> LinearSystem:
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(n, n))
    A = 0.1 * M @ M.T + n * np.eye(n) + shift * np.diag(rng.normal(size=n))
    return pad_and_normalize(LinearSystem(sp.csr_matrix(A), rng.normal(size=n), {}), min_qubits=1)


@pytest.mark.parametrize("name", ["cg", "gmres", "bicgstab", "minres"])
def test_a_krylov_method_started_at_the_solution_has_nothing_left_to_do(name):
    system = _spd(16, 0)
    solver = registry.get(name, rtol=1e-8)
    cold = solver.solve(system)
    warm = solver.solve(system, start=cold.state)
    assert cold.status == warm.status == Status.CONVERGED
    assert warm.iterations <= 1 < cold.iterations
    assert warm.resources["started_from"] == "previous"
    np.testing.assert_allclose(system.A @ warm.x, system.b, atol=1e-7)


def test_a_start_that_does_not_fit_is_refused_and_the_solve_starts_cold():
    system = _spd(16, 0)
    result = registry.get("gmres").solve(system, start=np.ones(8))
    assert result.status == Status.CONVERGED
    assert result.resources["started_from"] == "cold" and "shape (8,)" in result.resources["start_refused"]


def test_a_solver_without_warm_starts_refuses_a_start():
    assert not can_start(registry.get("lu")) and can_start(registry.get("cg"))
    with pytest.raises(InputError, match="lu: takes no warm start"):
        registry.get("lu").solve(_spd(4, 0), start=np.zeros(4))


def test_vqls_from_its_own_converged_angles_stops_at_once_and_refuses_other_sizes():
    system = _spd(8, 1)
    solver = registry.get("vqls-local", layers=3, tol=1e-10)
    cold = solver.solve(system, seed=0)
    assert cold.status == Status.CONVERGED and cold.state["n_qubits"] == 3
    warm = solver.solve(system, seed=5, start=cold.state)  # another seed: the start, not the seed, decides
    assert warm.resources["started_from"] == "previous"
    assert warm.iterations <= max(2, cold.iterations // 4)  # it starts at the minimum: nothing much left to do
    assert warm.status == Status.CONVERGED
    other = solver.solve(_spd(4, 1), seed=0, start=cold.state)
    assert other.resources["started_from"] == "cold" and "3 qubits" in other.resources["start_refused"]


def test_vnls_stops_early_once_the_read_out_is_within_rtol_and_restarts_from_its_weights():
    system = _spd(4, 2)  # one shape throughout: NetKet compiles once
    solver = registry.get("vnls", exact=True, n_iter=1500, stop_every=10, rtol=1e-2)
    cold = solver.solve(system, seed=0)
    assert cold.status == Status.CONVERGED
    assert cold.iterations % 10 == 0 and cold.iterations < 1500
    assert cold.resources["cost_evaluations"] == cold.iterations == len(cold.history)
    warm = solver.solve(system, seed=0, start=cold.state)
    assert warm.resources["started_from"] == "previous"
    # It starts within rtol: the first look (10 steps) or one of the next few ends it, far before a cold start.
    assert warm.status == Status.CONVERGED and warm.iterations <= 30 and warm.iterations < cold.iterations
    # Without stop_every every one of the n_iter steps is taken.
    full = registry.get("vnls", exact=True, n_iter=25, rtol=1e-2).solve(system, seed=0)
    assert full.iterations == 25 == full.resources["cost_evaluations"] == len(full.history)


def _trajectory(tmp_path):
    """Six systems of one run, close to one another, written out of the simulation's order."""
    systems = []
    for step, it in [(2, 1), (1, 2), (1, 1), (3, 1), (2, 2), (3, 2)]:
        s = _spd(8, 0, shift=0.05 * (2 * step + it))
        meta = {**s.meta, "family": "test", "scene": "chain", "step": step, "newton_iter": it}
        systems.append(LinearSystem(s.A, s.b, meta, x_ref=np.linalg.solve(s.A.toarray(), s.b)))
    path = tmp_path / "chain.parquet"
    write_systems(systems, path)
    return path


def test_sequence_mode_solves_in_the_simulation_order_each_from_the_previous(tmp_path):
    dataset = _trajectory(tmp_path)
    spec = SolverSpec("gmres", {"rtol": 1e-10})
    seq = run_solver(spec, dataset, tmp_path / "seq.parquet", repeats=2, sequence=True, progress=False)
    plain = run_solver(spec, dataset, tmp_path / "plain.parquet", repeats=2, progress=False)
    assert len(seq) == len(plain) == 12
    where = load_dataset(dataset).set_index("system_id")[["step", "newton_iter"]]
    for _repeat, chain in seq.groupby("repeat", sort=True):
        order = [tuple(where.loc[i]) for i in chain["system_id"]]
        assert order == [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (3, 2)]
        started = [json.loads(r).get("started_from") for r in chain["resources"]]
        assert started == ["cold"] + ["previous"] * 5
    assert all("started_from" not in json.loads(r) for r in plain["resources"])
    assert (seq["status"] == "converged").all()
    merged = seq.merge(plain, on=["system_id", "repeat"], suffixes=("_seq", "_plain"))
    np.testing.assert_allclose(merged["rel_residual_seq"], 0, atol=1e-8)
    assert merged["iterations_seq"].sum() < merged["iterations_plain"].sum()


def test_sequence_mode_refuses_what_would_break_the_chain(tmp_path):
    dataset = _trajectory(tmp_path)
    out = tmp_path / "r.parquet"
    with pytest.raises(InputError, match="drop --shard"):
        run_solver(SolverSpec("gmres", {}), dataset, out, sequence=True, shard=(1, 2), progress=False)
    with pytest.raises(InputError, match="drop --time-limit"):
        run_solver(SolverSpec("gmres", {}), dataset, out, sequence=True, time_limit=10.0, progress=False)
    with pytest.raises(InputError, match="'lu' cannot start"):
        run_solver(SolverSpec("lu", {}), dataset, out, sequence=True, progress=False)
    assert not out.exists()


def test_the_loops_warm_start_keeps_the_trajectory_and_counts_its_starts():
    options = InLoopOptions(family="dem_c", steps=100)
    gmres = registry.get("gmres", rtol=1e-12)
    _, cold = run_in_loop(options, gmres)
    _, warm = run_in_loop(InLoopOptions(family="dem_c", steps=100, warm_start="on"), gmres)
    assert cold["warm_starts"] == 0 < warm["warm_starts"] <= warm["linear_solves"]
    assert warm["stayed_within"] and cold["stayed_within"]
    assert warm["position_error_max"] < 1e-6
    with pytest.raises(InputError, match="lu cannot start"):
        run_in_loop(InLoopOptions(family="dem_c", steps=5, warm_start="on"), registry.get("lu"))


@pytest.mark.parametrize("mode, starts", [("on", [None, 0, 1, 2, 3]), ("converged", [None, 0, 0, 0, 3])])
def test_the_converged_warm_start_hands_on_only_what_converged(mode, starts):
    """Solves 1 and 2 of 5 fail: "on" starts each solve from the one before, "converged" from the last that
    converged (solve 0 until solve 3 converges). Every answer is an exact solve, so only the handing on differs."""
    from qlsbench.bench.in_loop import LoopSolver
    from qlsbench.solvers import SolveResult

    class Scripted:  # solves exactly; reports the scripted status and its call index as its state
        name, options, start_from = "scripted", {}, "call index"

        def __init__(self):
            self.given = []

        def solve(self, system, *, seed=0, start=None):
            self.given.append(start)
            k = len(self.given) - 1
            x = np.linalg.solve(system.A.toarray(), system.b)
            status = Status.MAX_ITER if k in (1, 2) else "converged"  # a plug-in's plain string counts too
            return SolveResult(x, status, state=k, resources={"started_from": "cold" if start is None else "previous"})

    solver = Scripted()
    loop = LoopSolver(solver, warm=mode)
    A = np.diag([1.0, 2.0, 4.0])
    for k in range(5):
        np.testing.assert_allclose(
            loop(A, np.array([1.0, k + 1.0, 1.0]), {}), np.linalg.solve(A, [1.0, k + 1.0, 1.0]), rtol=1e-12
        )
    assert solver.given == starts
    assert loop.warm_starts == 4


def test_a_warm_start_mode_the_loop_does_not_know_is_named():
    with pytest.raises(InputError, match="warm_start"):
        InLoopOptions(family="dem_c", steps=5, warm_start="always")


def test_a_sequence_runs_repeats_are_raised_as_sequences(tmp_path):
    """2 sequence repeats raised to 3 equal a 3-repeat sequence run; a plain raise of it is refused."""
    dataset = _trajectory(tmp_path)
    spec = SolverSpec("gmres", {"rtol": 1e-10})
    run_solver(spec, dataset, tmp_path / "whole.parquet", repeats=3, sequence=True, progress=False)
    out = tmp_path / "grown.parquet"
    run_solver(spec, dataset, out, repeats=2, sequence=True, progress=False)
    with pytest.raises(InputError, match="a sequence run .* add to it with --sequence"):
        add_repeats(spec, dataset, out, repeats=3, progress=False)
    add_repeats(spec, dataset, out, repeats=3, sequence=True, progress=False)
    grown, whole = read_results(out), read_results(tmp_path / "whole.parquet")
    keys = ["repeat", "system_id"]
    mine, theirs = (f.sort_values(keys, kind="stable").reset_index(drop=True) for f in (grown, whole))
    pd.testing.assert_frame_equal(
        mine.drop(columns=["wall_time", "progress_seconds"]), theirs.drop(columns=["wall_time", "progress_seconds"])
    )
    new = mine[mine["repeat"] == 2]
    assert [json.loads(r)["started_from"] for r in new["resources"]].count("cold") == 1  # one chain, from cold
