"""Solvers in the simulation loop (qlsbench.bench.in_loop) and the controlled-error oracle.

The loop with an exact solver must give the plain stepper's trajectory to
round-off; the oracle must hit the fidelity or residual it is asked for; a
solver that fails ends the run with a status and keeps what was simulated; the
physics-error metrics are checked on cases made by hand.
"""

import dataclasses

import numpy as np
import pandas as pd
import pytest

from qlsbench.bench import Checkpoint, SolverSpec, run_key
from qlsbench.bench.in_loop import (
    InLoopOptions,
    LoopAborted,
    LoopSolver,
    add_seeds,
    divergence_step,
    read_in_loop,
    run_in_loop,
    success_bar,
    sweep,
    write_in_loop,
)
from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.physics import container_of
from qlsbench.problems import LinearSystem, ising_inspired, pad_and_normalize
from qlsbench.solvers import SolveResult, registry
from qlsbench.solvers.oracle import perturbed_to_fidelity

#: 8 spheres touch the container from step 72: 110 steps hold about 40 steps of contact.
SPHERES = InLoopOptions(family="dem_c", steps=110)


@pytest.mark.parametrize(
    "options",
    [
        SPHERES,
        dataclasses.replace(SPHERES, family="cd_lagrange", restitution=0.5),
        InLoopOptions(family="penalty", steps=15),
    ],
    ids=["dem_c", "cd_lagrange", "penalty"],
)
@pytest.mark.parametrize("name, solver_options", [("lu", {}), ("oracle", {"fidelity": 1.0})], ids=["lu", "oracle-1"])
def test_an_exact_solver_in_the_loop_follows_the_stepper_to_round_off(options, name, solver_options):
    steps, summary = run_in_loop(options, registry.get(name, **solver_options))
    assert summary["status"] == "completed" and summary["steps_run"] == options.steps
    assert summary["linear_solves"] > 10, "the run never reached a Newton system"
    assert summary["position_error_max"] < 1e-10 and summary["divergence_step"] is None
    # the reference's solves are counted as the loop counts the candidate's (b = 0 systems skipped alike)
    assert summary["linear_solves_ref"] == summary["linear_solves"] == steps["linear_solves_ref"].sum()
    assert summary["newton_iterations_ref"] == summary["newton_iterations"]
    assert abs(summary["projection_min"] - 1) < 1e-8 and abs(summary["projection_max"] - 1) < 1e-8
    assert (steps["newton_iterations"] > 0).sum() > 5


def test_a_worse_oracle_leaves_the_reference_further_under_a_newton_budget():
    capped = dataclasses.replace(SPHERES, newton_max_iter=2, fallbacks="off")
    errors = [
        run_in_loop(capped, registry.get("oracle", fidelity=f), seed=0)[1]["position_error_max"]
        for f in (0.999, 0.9, 0.5)
    ]
    assert 0 < errors[0] < errors[1] < errors[2]


def test_the_oracle_hits_the_fidelity_and_residual_it_is_asked_for():
    rng = np.random.default_rng(3)
    x, e = rng.standard_normal(40), rng.standard_normal(40)
    for target in (0.999, 0.9, 0.5, 0.0):
        y = perturbed_to_fidelity(x, e, target)
        assert abs(np.vdot(x, y) ** 2 / (np.vdot(x, x) * np.vdot(y, y)) - target) < 1e-12
        assert np.isclose(np.linalg.norm(y), np.linalg.norm(x))
    system = pad_and_normalize(ising_inspired(3, 10.0))
    exact = np.linalg.solve(system.A.toarray(), system.b)
    answer = registry.get("oracle", rel_residual=1e-3).solve(system, seed=1).x
    assert np.isclose(np.linalg.norm(system.A @ answer - system.b) / np.linalg.norm(system.b), 1e-3, rtol=1e-8)
    np.testing.assert_allclose(registry.get("oracle").solve(system).x, exact, rtol=1e-12, atol=1e-14)


def test_the_oracle_perturbs_only_the_systems_own_unknowns():
    small = pad_and_normalize(LinearSystem(np.diag([2.0, 3.0, 5.0]), np.ones(3), {}))
    answer = registry.get("oracle", fidelity=0.6).solve(small, seed=0).x
    assert small.dim == 4 and answer[3] == 0.0
    exact = np.linalg.solve(small.A.toarray(), small.b)
    assert abs(np.vdot(exact, answer) ** 2 / (np.vdot(exact, exact) * np.vdot(answer, answer)) - 0.6) < 1e-12


class _Bad:
    """A solver that fails in one of the ways the loop must survive."""

    name = "bad"
    options = {}

    def __init__(self, how: str):
        self.how = how

    def solve(self, system, *, seed=0):
        if self.how == "raise":
            raise RuntimeError("boom")
        if self.how == "none":
            return SolveResult(None, Status.ERROR, "diverged")
        x = np.full(system.dim, np.nan) if self.how == "nan" else np.ones(system.dim + 1)
        return SolveResult(x, Status.CONVERGED)


@pytest.mark.parametrize(
    "how, status", [("raise", "error"), ("none", "error"), ("nan", "nan"), ("wrong", "wrong_length")]
)
def test_a_failing_solver_ends_the_run_with_a_status_and_keeps_the_steps_before(how, status):
    steps, summary = run_in_loop(SPHERES, _Bad(how))
    assert summary["status"] == status and summary["steps_run"] == len(steps) > 50
    assert summary["message"].startswith(f"step {len(steps)}:")
    assert (steps["position_error"] == 0).all(), "steps before any contact follow the reference exactly"


def test_the_time_limit_ends_the_run():
    loop = LoopSolver(registry.get("lu"), time_limit=1e-12)
    with pytest.raises(LoopAborted, match="over the limit") as info:
        loop(np.eye(3) * 2.0, np.ones(3), {"newton_iter": 0})
    assert info.value.status == "time_limit"


def test_the_iteration_budget_ends_the_run_at_the_same_step_and_leaves_a_run_within_it_alone():
    """A budget under the run's solver iterations ends it past the budget (status budget), keeping the steps before
    exactly; a budget the run stays within changes nothing."""
    gmres = registry.get("gmres", rtol=1e-10)
    steps, full = run_in_loop(SPHERES, gmres)
    assert full["status"] == "completed" and full["solver_iterations"] > 20
    budget = full["solver_iterations"] // 2
    cut, summary = run_in_loop(dataclasses.replace(SPHERES, iteration_budget=budget), gmres)
    assert summary["status"] == "budget" and f"over its budget of {budget:,}" in summary["message"]
    assert budget < summary["solver_iterations"] <= full["solver_iterations"]
    assert 0 < len(cut) < len(steps)
    physics = ["position_error", "velocity_error", "kinetic_energy", "newton_iterations", "linear_solves"]
    pd.testing.assert_frame_equal(cut[physics], steps[physics].iloc[: len(cut)])
    same, within = run_in_loop(dataclasses.replace(SPHERES, iteration_budget=full["solver_iterations"]), gmres)
    assert within["status"] == "completed"
    pd.testing.assert_frame_equal(same[physics], steps[physics])
    with pytest.raises(InputError, match="iteration_budget"):
        InLoopOptions(family="dem_c", steps=5, iteration_budget=0)


def test_norm_and_sign_come_from_the_projection():
    A, b = np.diag([1.0, 2.0, 4.0]), np.array([1.0, 1.0, 1.0])

    class Direction:  # answers -3 times the normalised solution of the padded system
        name, options = "direction", {}

        def solve(self, system, *, seed=0):
            x = np.linalg.solve(system.A.toarray(), system.b)
            return SolveResult(-3.0 * x / np.linalg.norm(x), Status.CONVERGED)

    loop = LoopSolver(Direction())
    np.testing.assert_allclose(loop(A, b, {}), np.linalg.solve(A, b), rtol=1e-12)
    assert loop.projections[0] < 0
    np.testing.assert_array_equal(loop(A, np.zeros(3), {}), np.zeros(3))
    assert loop.solves == 1, "a zero right-hand side needs no solve"


def test_metrics_on_a_hand_made_run():
    steps = pd.DataFrame({"step": [0, 1, 2, 3], "position_error": [0.0, 5e-4, 2e-3, 1e-4]})
    assert divergence_step(steps, 1e-3) == 2 and divergence_step(steps, 1e-2) is None
    summaries = [
        {"fidelity": f, "stayed_within": ok}
        for f, ok in [(1.0, True), (1.0, True), (0.9, True), (0.9, True), (0.5, True), (0.5, False), (0.1, True)]
    ]
    assert success_bar(summaries) == 0.9, "the bar stops at the first level where a seed left"


def test_penetration_and_energy_are_measured_on_a_made_scene():
    from qlsbench.bench.in_loop import world

    simulation = world(dataclasses.replace(SPHERES, n_spheres=2))
    build, measure = simulation.build, simulation.measure
    state = build()
    scene = state["scene"]
    centre = np.array(container_of(scene)["container_center"])
    scene.positions[0] = centre
    scene.positions[1] = centre + np.array([0.0, 0.0, 2 * scene.radii[0] - 1e-3])  # overlap 1 mm, clear of the wall
    scene.velocities[:] = 0.0
    scene.velocities[0] = [0.0, 0.0, 2.0]
    report = type("R", (), {"residual": 0.0, "newton_iterations": 0, "solver": "minmap", "status": "converged"})
    measured = measure(state, report)
    assert np.isclose(measured["penetration_max"], 1e-3, rtol=1e-6)
    assert np.isclose(measured["kinetic_energy"], 0.5 * scene.masses[0] * 4.0)


def test_results_file_round_trips_and_bad_options_are_named(tmp_path):
    options = dataclasses.replace(SPHERES, steps=80)
    steps, summaries = sweep(options, SolverSpec("oracle", {}), seeds=2, fidelities=[1.0, 0.9])
    assert sorted({(s["fidelity"], s["seed"]) for s in summaries}) == [(0.9, 0), (0.9, 1), (1.0, 0), (1.0, 1)]
    write_in_loop(tmp_path / "loop.parquet", steps, summaries, options)
    back, meta = read_in_loop(tmp_path / "loop.parquet")
    assert len(back) == len(steps) and meta["options"]["steps"] == 80 and len(meta["runs"]) == 4
    with pytest.raises(InputError, match="sweep the oracle"):
        sweep(options, SolverSpec("lu", {}), fidelities=[0.9])
    with pytest.raises(InputError, match="--param: not an option of the dem_c loop"):
        InLoopOptions(family="dem_c", params={"n": 3})
    with pytest.raises(InputError, match="fidelity"):
        registry.get("oracle", fidelity=1.5)


def test_adding_seeds_equals_running_them_all_and_other_runs_are_refused(tmp_path):
    options = dataclasses.replace(SPHERES, steps=40)
    oracle, levels = SolverSpec("oracle", {}), [0.9]
    path = tmp_path / "loop.parquet"
    steps, summaries = sweep(options, oracle, seeds=1, fidelities=levels)
    write_in_loop(path, steps, summaries, options)
    raised, raised_runs = add_seeds(path, options, oracle, seeds=3, fidelities=levels)
    whole, whole_runs = sweep(options, oracle, seeds=3, fidelities=levels)
    timing = ["seconds"]
    pd.testing.assert_frame_equal(raised.drop(columns=timing), whole.drop(columns=timing))
    back, meta = read_in_loop(path)
    pd.testing.assert_frame_equal(back.drop(columns=timing), whole.drop(columns=timing))
    physics = ["seed", "fidelity", "status", "steps_run", "position_error_max", "linear_solves"]
    assert [[r[k] for k in physics] for r in meta["runs"]] == [[r[k] for k in physics] for r in whole_runs]
    assert add_seeds(path, options, oracle, seeds=3, fidelities=levels)[0].shape == back.shape  # nothing to add
    with pytest.raises(InputError, match="other in-loop options \\(steps\\)"):
        add_seeds(path, dataclasses.replace(options, steps=41), oracle, seeds=4, fidelities=levels)
    with pytest.raises(InputError, match="solver 'oracle' .* not 'lu'"):
        add_seeds(path, options, SolverSpec("lu", {}), seeds=4)
    with pytest.raises(InputError, match="fidelity levels"):
        add_seeds(path, options, oracle, seeds=4, fidelities=[0.5])
    with pytest.raises(InputError, match="fidelity levels"):
        add_seeds(path, options, oracle, seeds=4, fidelities=[0.9, 0.5])
    with pytest.raises(InputError, match="no finished in-loop run"):
        add_seeds(tmp_path / "none.parquet", options, oracle, seeds=2, fidelities=levels)
    assert read_in_loop(path)[0].shape == back.shape  # refusals wrote nothing


class _Killed:
    """GMRES under its own name and options, killed (KeyboardInterrupt) at its ``at``-th solve."""

    def __init__(self, at: int):
        self.inner, self.at, self.calls = registry.get("gmres", rtol=1e-10), at, 0
        self.name, self.options, self.start_from = self.inner.name, self.inner.options, self.inner.start_from

    def solve(self, system, **kwargs):
        self.calls += 1
        if self.calls == self.at:
            raise KeyboardInterrupt
        return self.inner.solve(system, **kwargs)


def test_a_killed_run_resumes_from_its_checkpoint_to_the_rows_it_would_have_given(tmp_path):
    """Killed mid-run and run again, a warm-started run gives the uninterrupted run's rows and counts; its finished
    checkpoint answers at once; another run's checkpoint is refused by name."""
    options = dataclasses.replace(SPHERES, warm_start="on")
    whole, summary = run_in_loop(options, registry.get("gmres", rtol=1e-10))
    path = tmp_path / "run.checkpoint"
    with pytest.raises(KeyboardInterrupt):
        run_in_loop(options, _Killed(at=30), checkpoint=Checkpoint(path, every=0))
    saved = Checkpoint(path).load(run_key(dataclasses.asdict(options), "gmres", _Killed(0).options, 0))
    assert 0 < saved["next_step"] < options.steps and saved["summary"] is None
    assert saved["loop"]["solves"] == 29 and saved["loop"]["_state"] is not None
    resumed, again = run_in_loop(options, registry.get("gmres", rtol=1e-10), checkpoint=Checkpoint(path, every=0))
    physics = [c for c in resumed.columns if c != "seconds"]
    pd.testing.assert_frame_equal(resumed[physics], whole[physics])
    for key in ("status", "steps_run", "linear_solves", "solver_iterations", "warm_starts", "position_error_max"):
        assert again[key] == summary[key], key
    finished, _ = run_in_loop(options, _Killed(at=1), checkpoint=Checkpoint(path))  # no solve: the saved result
    pd.testing.assert_frame_equal(finished[physics], whole[physics])
    with pytest.raises(InputError, match="run.checkpoint: the checkpoint of another run"):
        run_in_loop(options, registry.get("gmres", rtol=1e-10), seed=1, checkpoint=Checkpoint(path))


def test_a_window_starts_from_the_references_state_after_its_first_steps(tmp_path, monkeypatch):
    """``start_step = 80``: both runs start where the plain stepper is after 80 steps, so the reference's rows of a
    window of 30 are the whole 110-step run's last 30, to the bit; a bad solver leaves it from the window's first
    step on (the oracle at fidelity 0.5 under a capped Newton). The start is kept beside the results for the next
    seed, which takes no step before the window."""
    import qlsbench.bench.in_loop.run as run_module

    capped = dataclasses.replace(SPHERES, newton_max_iter=2, fallbacks="off")
    whole, _ = run_in_loop(capped, registry.get("lu"))
    window = dataclasses.replace(capped, start_step=80, steps=30)
    spec = SolverSpec("oracle", {"fidelity": 0.5})
    steps, summaries = sweep(window, spec, seeds=1, out=tmp_path / "loop.parquet")
    assert list(steps["step"]) == list(range(80, 110)) and summaries[0]["steps_run"] == 30
    reference = ["time", "kinetic_energy_ref", "newton_iterations_ref", "linear_solves_ref"]
    tail = whole[whole["step"] >= 80].reset_index(drop=True)
    pd.testing.assert_frame_equal(steps[reference].reset_index(drop=True), tail[reference])
    assert steps["position_error"].max() > 1e-6  # the candidate is a run of its own, not the reference
    (start,) = tmp_path.glob(".start-*.checkpoint")
    taken = []
    monkeypatch.setattr(run_module, "tqdm", lambda iterable, **kw: taken.append(kw.get("desc")) or iterable)
    again, _ = sweep(window, spec, seeds=2, first_seed=1, out=tmp_path / "loop.parquet")
    assert "steps before the solver" not in taken and list(again["step"]) == list(range(80, 110))


def test_a_run_asked_to_stop_once_decided_ends_where_it_can_no_longer_carry():
    """A random vector for every Newton direction leaves the 8-sphere pile's contact steps to the fallback (from step
    77): asked to stop once decided, the run ends at the step where its fallback steps first pass 5 % of its 38
    steps, with the rows the whole run has there."""
    options = dataclasses.replace(SPHERES, newton_max_iter=3, start_step=72, steps=38)
    whole, summary = run_in_loop(options, registry.get("null-random"))
    assert summary["status"] == "completed" and whole["fallback"].sum() > 2
    cut, decided = run_in_loop(dataclasses.replace(options, stop_when_decided="on"), registry.get("null-random"))
    second = int(np.flatnonzero(whole["fallback"].to_numpy())[1])  # 2 of 38 steps is past 5 %
    assert decided["status"] == "decided" and len(cut) == second + 1
    assert "the fallback finished 2 of its 38 steps" in decided["message"]
    physics = [c for c in cut.columns if c != "seconds"]
    pd.testing.assert_frame_equal(cut[physics], whole[physics].iloc[: second + 1])


def test_the_results_file_takes_over_from_the_checkpoints(tmp_path):
    """A sweep with ``out`` leaves a finished checkpoint per run until the results file is written; then none."""
    out = tmp_path / "loop.parquet"
    spec = SolverSpec("gmres", {"rtol": 1e-10})
    steps, summaries = sweep(dataclasses.replace(SPHERES, steps=80), spec, seeds=2, out=out)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert len(left) == 2 and all(name.startswith(".loop.parquet.gmres") for name in left)
    assert [name.rsplit(".", 2)[1] for name in left] == ["seed-0", "seed-1"]
    write_in_loop(out, steps, summaries, dataclasses.replace(SPHERES, steps=80))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["loop.parquet"]


def _edited(path, change) -> None:
    """Edit the pickle in checkpoint ``path`` with ``change`` as a hand would: its other bytes kept as they were."""
    import pickle

    data = path.read_bytes()
    start = data.index(b"\x80")  # the pickle's first opcode (PROTO); a checksum line before it is text
    saved = pickle.loads(data[start:])
    change(saved)
    path.write_bytes(data[:start] + pickle.dumps(saved, protocol=pickle.HIGHEST_PROTOCOL))


@pytest.mark.parametrize("damage", ["edited", "cut short"])
def test_a_damaged_checkpoint_is_named_in_one_line_and_redone_never_taken(tmp_path, capsys, damage):
    """A finished checkpoint edited to rows of 0.5 m (its summary still saying the run never left 1e-3 m), or cut
    short: the sweep run again names it in one line and runs afresh, to the undamaged run's rows."""
    options, spec = dataclasses.replace(SPHERES, steps=76), SolverSpec("lu", {})
    whole, whole_runs = sweep(options, spec, out=tmp_path / "loop.parquet")
    (path,) = tmp_path.glob(".loop.parquet.lu.seed-0.checkpoint")
    if damage == "edited":
        _edited(path, lambda saved: [row.update(position_error=0.5) for row in saved["rows"]])
    else:
        path.write_bytes(path.read_bytes()[:-100])
    capsys.readouterr()
    again, again_runs = sweep(options, spec, out=tmp_path / "loop.parquet")
    said = capsys.readouterr().err.strip()
    assert said.count("\n") == 0 and str(path) in said and "starts again from its first step" in said, said
    physics = [c for c in whole.columns if c != "seconds"]
    pd.testing.assert_frame_equal(again[physics], whole[physics])
    assert again_runs[0]["position_error_max"] == whole_runs[0]["position_error_max"] < 1e-3
    sweep(options, spec, out=tmp_path / "loop.parquet")  # the redone run's checkpoint is whole again: no word
    assert capsys.readouterr().err == ""


def _worker_line(_):
    """The progress-bar line of the worker process this runs in."""
    import os

    from qlsbench.bench.in_loop import workers

    return os.getpid(), workers._LINE


def test_workers_draw_their_progress_bars_on_as_many_lines_as_there_are_jobs():
    """Six runs on two workers: each worker keeps one line (0 or 1) for every run it does, never line 5."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    from qlsbench.bench.in_loop import workers

    context = mp.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=2,
        mp_context=context,
        initializer=workers._worker_threads,
        initargs=(1, workers.progress_lines(context, 2)),
    ) as pool:
        seen = list(pool.map(_worker_line, range(6)))
    by_worker = {}
    for pid, line in seen:
        by_worker.setdefault(pid, set()).add(line)
    assert all(len(held) == 1 for held in by_worker.values())
    assert sorted(line for held in by_worker.values() for line in held) == list(range(len(by_worker)))


def test_runs_side_by_side_give_the_rows_of_runs_one_after_another(tmp_path):
    """``jobs=2`` runs seeds in two worker processes: the same rows, in the same order, as the serial sweep, and
    a raise by ``add_seeds`` with two jobs writes the file a serial raise writes."""
    options = dataclasses.replace(SPHERES, steps=80)
    oracle, levels = SolverSpec("oracle", {}), [0.9]
    timing = ["seconds"]
    serial, serial_runs = sweep(options, oracle, seeds=3, fidelities=levels)
    side, side_runs = sweep(options, oracle, seeds=3, fidelities=levels, jobs=2)
    pd.testing.assert_frame_equal(side.drop(columns=timing), serial.drop(columns=timing))
    physics = ["seed", "fidelity", "status", "position_error_max", "linear_solves"]
    assert [[r[k] for k in physics] for r in side_runs] == [[r[k] for k in physics] for r in serial_runs]
    assert len({r["position_error_max"] for r in serial_runs}) > 1  # the seeds differ, so their order is tested
    path = tmp_path / "loop.parquet"
    first, first_runs = sweep(options, oracle, seeds=1, fidelities=levels)
    write_in_loop(path, first, first_runs, options)
    raised, _ = add_seeds(path, options, oracle, seeds=3, fidelities=levels, jobs=2)
    pd.testing.assert_frame_equal(
        read_in_loop(path)[0].drop(columns=timing),
        serial.sort_values(["seed", "fidelity", "step"], kind="stable").reset_index(drop=True).drop(columns=timing),
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["loop.parquet"]  # the checkpoints went with the write


def test_a_file_written_before_an_option_existed_takes_more_seeds_under_its_default(tmp_path):
    """The shipped results predate ``newton_start`` (and the reference's solve count): adding seeds to such a
    file reads the missing option as its default, and a run from zero is refused there."""
    import json

    import pyarrow.parquet as pq

    from qlsbench.bench.in_loop import IN_LOOP_META_KEY

    options, spec = dataclasses.replace(SPHERES, steps=5), SolverSpec("lu", {})
    path = tmp_path / "old.parquet"
    steps, runs = sweep(options, spec)
    write_in_loop(path, steps.drop(columns="linear_solves_ref"), runs, options)
    table = pq.read_table(path)
    meta = json.loads(table.schema.metadata[IN_LOOP_META_KEY])
    del meta["options"]["newton_start"]
    pq.write_table(table.replace_schema_metadata({IN_LOOP_META_KEY: json.dumps(meta)}), path)
    assert len(add_seeds(path, options, spec, seeds=2)[1]) == 2
    with pytest.raises(InputError, match="other in-loop options \\(newton_start\\)"):
        add_seeds(path, dataclasses.replace(options, newton_start="zero"), spec, seeds=3)


def test_newton_from_zero_takes_more_iterations_than_from_the_last_step_on_the_same_trajectory():
    """``newton_start="zero"`` (the paper's runs) drops the stepper's warm start: the same physics to round-off,
    more Newton iterations; a penalty scene, whose Newton starts from zero anyway, refuses the option."""
    friction = dataclasses.replace(SPHERES, mu=0.3, steps=90)  # frictionless one-unknown steps take one iteration
    warm = run_in_loop(friction, registry.get("lu"))[0]
    cold = run_in_loop(dataclasses.replace(friction, newton_start="zero"), registry.get("lu"))[0]
    assert cold["newton_iterations_ref"].sum() > warm["newton_iterations_ref"].sum()
    assert cold["position_error"].max() < 1e-10
    with pytest.raises(InputError, match="--newton-start: not an option of the penalty loop"):
        InLoopOptions(family="penalty", newton_start="zero")
