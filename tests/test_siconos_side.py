"""The asv suite's hand-over to Siconos (benchmarks/siconos_side.py): the local form is the step's problem, and
Siconos, handed it, finds the stepper's answer where both solve the same problem (no friction)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from qlsbench.physics import StepOptions, build_scene, simulate, step

SIDE = Path(__file__).resolve().parents[1] / "benchmarks" / "siconos_side.py"


def _side():
    spec = importlib.util.spec_from_file_location("siconos_side", SIDE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _step(mu: float):
    """Step 120 of a 12-sphere pile (its contacts loaded): the contact problem and the step's solution."""
    scene = build_scene("sedimentation", n_spheres=12, seed=0)
    simulate(scene, 120, StepOptions(mu=mu))
    kept = {}

    def sink(k, problem):
        kept["problem"] = problem
        return lambda solution: kept.update(solution=solution)

    step(scene, StepOptions(mu=mu), problems=sink)
    return kept["problem"], kept["solution"]


@pytest.mark.parametrize("mu", [0.0, 0.3])
def test_the_local_form_gives_the_velocities_the_impulses_give(mu):
    """``u = W r + q`` is ``H^T v + w`` with ``v = v_known + M^-1 H r``, for any impulses ``r``."""
    problem, _ = _step(mu)
    y = np.random.default_rng(0).random(problem.size)
    form = _side().local_form(problem, y)
    W = sp.csc_matrix((form["data"], form["indices"], form["indptr"]), shape=(int(form["m"]),) * 2)
    _, u, r = problem.global_solution(y)
    assert problem.nc > 5 and np.array_equal(r, form["r0"]) and np.all(form["mu"] == mu)
    assert np.abs(W @ r + form["q"] - u).max() <= 1e-12 * (1 + np.abs(u).max())


def test_siconos_handed_a_frictionless_step_finds_the_stepper_velocities():
    side = _side()
    why = side.unavailable()
    if why:
        pytest.skip(why)
    problem, solution = _step(0.0)
    form = side.local_form(problem, np.zeros(problem.size))
    with side.Siconos() as siconos:
        answer = siconos.solve(form, "NSGS", 1e-12, 10_000, answer=True)
    assert answer["info"] == 0 and answer["iterations"] > 0 and answer["seconds"] > 0
    M, H, f, _, _ = problem.global_form()
    velocities = (f + H @ np.array(answer["r"])) / M.diagonal()
    stepper = problem.global_solution(solution.y)[0]
    change = np.abs(stepper - f / M.diagonal()).max()
    assert change > 0 and np.abs(velocities - stepper).max() <= 1e-6 * change
