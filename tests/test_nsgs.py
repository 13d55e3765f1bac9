"""Nonsmooth Gauss-Seidel on the contact LCP, and the v2 chain of the sphere stepper built on it.

Truth comes from Lemke's method (exact on small LCPs), min-map Newton (frictionless), the LCP's own natural
residual and the geometry of the friction polygon.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from contact_problems import assert_lemkes_velocities, sedimentation_problem, target

from qlsbench.errors import InputError
from qlsbench.physics import (
    NewtonOptions,
    StepOptions,
    SubsystemRecorder,
    build_scene,
    detect_contacts,
    minmap_newton,
    simulate,
)
from qlsbench.physics.spheres import SweepBudget
from qlsbench.physics.spheres.nsgs import NSGSOptions, _polygon_point, nsgs

FRICTIONAL = StepOptions(mu=0.3, newton=NewtonOptions(regularization=1e-8), friction_solver="nsgs", friction_tol=None)


_problem, _target = sedimentation_problem, target


@pytest.mark.parametrize("radius", [0.0, 1e-3, 2.0])
def test_the_polygon_point_is_the_nearest_point_of_the_polygon(radius):
    """Projection onto a convex set: the point is inside, and every vertex lies on the far side of the plane
    through it normal to the displacement ((q - p) . (x - p) <= 0); weights sit on the point's two sector edges."""
    s = 8
    angles = 2 * np.pi * np.arange(s) / s
    cos, sin = np.cos(angles), np.sin(angles)
    rng = np.random.default_rng(0)
    for q in rng.normal(scale=1e-3, size=(500, 2)):
        sector, b0, b1 = _polygon_point(q[0], q[1], radius, s, cos, sin) if radius > 0 else (0, 0.0, 0.0)
        nxt = (sector + 1) % s
        p = b0 * np.array([cos[sector], sin[sector]]) + b1 * np.array([cos[nxt], sin[nxt]])
        assert b0 >= 0 and b1 >= 0 and b0 + b1 <= radius * (1 + 1e-12)
        vertices = radius * np.column_stack([cos, sin])
        assert np.all((vertices - p) @ (q - p) <= 1e-15)


@pytest.mark.parametrize("mu", [0.0, 0.3, 1.0])
def test_nsgs_solves_the_lcp_and_agrees_with_lemke_on_velocities(mu):
    """Small piles: NSGS meets the tolerance; impulses need not be unique, the velocities they give are."""
    problem = _problem(6, 250, mu)
    assert_lemkes_velocities(problem, nsgs(problem, tol=1e-12), 1e-12)


@pytest.mark.parametrize("mu", [0.0, 0.3])
def test_the_residual_without_q_is_the_lcps_and_nsgs_never_builds_q(mu):
    """``ContactLCP.natural_residual`` reads ``Q y + r`` off the velocities: the assembled LCP's residual to
    rounding, at random points and at the solution; NSGS (no repair needed here) leaves ``Q`` unassembled."""
    problem = _problem(12, 250, mu)
    result = nsgs(problem, tol=1e-12)
    assert result.status == "converged" and result.info["repairs"] == 0
    assert "lcp" not in vars(problem)  # the cached matrix was never built
    rng = np.random.default_rng(1)
    for y in [result.y, *np.abs(rng.normal(scale=1e-2, size=(5, problem.size)))]:
        expected = problem.lcp.natural_residual(y)
        assert problem.natural_residual(y) == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_frictionless_nsgs_finds_newtons_solution():
    """Frictionless LCPs of a pile have a unique solution when Q is nonsingular: both methods find it."""
    problem = _problem(30, 300, 0.0)
    newton = minmap_newton(problem.lcp)
    result = nsgs(problem)
    assert newton.status == "converged" and result.status == "converged"
    np.testing.assert_allclose(result.y, newton.y, rtol=0, atol=1e-7 * np.abs(newton.y).max())


def test_each_contact_update_satisfies_its_own_rows():
    """One sweep over a single contact solves it exactly (the local problem has a closed form)."""
    problem = _problem(1, 600, 0.3)
    assert problem.nc == 1
    result = nsgs(problem, tol=1e-14, max_sweeps=1)
    assert result.residual <= 1e-15 * (1 + np.linalg.norm(problem.lcp.r))


def test_a_sweep_budget_that_runs_out_says_so():
    problem = _problem(30, 300, 0.3)
    result = nsgs(problem, tol=1e-14, max_sweeps=2, repairs=0)
    assert result.status == "max_iter" and result.iterations == 2 and "2 sweeps" in result.message
    assert result.residual > _target(problem, 1e-14)


def test_bad_nsgs_input_is_refused():
    problem = _problem(6, 250, 0.3)
    with pytest.raises(InputError, match="NSGS start y0 has shape"):
        nsgs(problem, np.zeros(3))
    for bad, match in [
        (dict(tol=0.0), "NSGS tol"),
        (dict(max_sweeps=0), "NSGS max_sweeps"),
        (dict(repairs=-1), "NSGS repairs"),
        (dict(stall_ratio=0.0), "NSGS stall_ratio"),
    ]:
        with pytest.raises(InputError, match=match):
            nsgs(problem, **bad)
    for bad, match in [(dict(presolve_tol=-1.0), "presolve_tol"), (dict(newton_max_iter=0), "newton_max_iter")]:
        with pytest.raises(InputError, match=match):
            NSGSOptions(**bad)
    with pytest.raises(InputError, match="slop"):
        StepOptions(slop=-1.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_step_of_a_random_frictional_pile_converges(seed):
    """The v2 chain's promise, on piles that fall, collide and settle: no step keeps an unconverged answer."""
    scene = build_scene("sedimentation", n_spheres=12, seed=seed)
    reports = simulate(scene, 250, FRICTIONAL)
    assert all(r.status.solved for r in reports), [
        (r.step, r.solver, r.residual) for r in reports if not r.status.solved
    ]
    assert sum(r.contacts > 0 for r in reports) > 100


def test_kept_steps_get_newton_subsystems_marked_with_their_phase():
    """Newton runs where subsystems are kept, from an NSGS point or, where NSGS already finished, the warm
    start; every captured system says which."""
    recorder = SubsystemRecorder(every=10)
    reports = simulate(build_scene("sedimentation", n_spheres=16, seed=0), 300, FRICTIONAL, capture=recorder)
    phases = {ctx["phase"] for _, _, ctx in recorder.records}
    assert recorder.records and phases <= {"newton", "nsgs_newton", "proximal"}
    assert all(ctx["step"] % 10 == 0 for _, _, ctx in recorder.records)
    newton_steps = {r.step for r in reports if r.solver in ("newton", "nsgs_newton")}
    assert newton_steps and all(step % 10 == 0 for step in newton_steps)


def test_the_v1_chain_is_kept_for_old_datasets():
    """``nsgs=None, slop=0`` is plain Newton first, as before dataset v2: no step is finished by NSGS."""
    reports = simulate(
        build_scene("sedimentation", n_spheres=8, seed=0),
        150,
        StepOptions(mu=0.3, newton=NewtonOptions(regularization=1e-8), nsgs=None, slop=0.0),
    )
    assert {r.solver for r in reports} <= {"minmap", "lemke", "proximal"} and all(r.sweeps == 0 for r in reports)


def test_the_slop_makes_a_settled_sticking_pile_consistent():
    """Without rotation a sticking pile has more contact constraints than velocities; gaps of 1e-10 m then
    ask for normal velocities no rigid motion gives. Within the slop they count as touching and NSGS needs a
    handful of sweeps a step."""
    settled = np.load(Path(__file__).with_name("data") / "settled_pile.npz")  # 700 steps: see settled_pile.py
    scene = build_scene("sedimentation", n_spheres=int(settled["n_spheres"]), seed=int(settled["seed"]))
    scene.positions[:], scene.velocities[:] = settled["positions"], settled["velocities"]
    scene.time = float(settled["time"])
    kinetic = 0.5 * float(scene.masses @ (scene.velocities**2).sum(axis=1))
    assert kinetic < 1e-8  # settled (the pile at rest in the bowl after 0.7 s)
    assert detect_contacts(scene, 1e-12).gap.min() > -1e-3 * scene.radii.min()  # resting, not overlapping
    reports = simulate(scene, 30, FRICTIONAL)
    assert all(r.status.solved for r in reports)
    assert np.mean([r.sweeps for r in reports]) < 20


def test_the_sweep_budget_is_a_multiple_of_the_median_within_the_floor_and_the_cap():
    budget = SweepBudget()
    options = NSGSOptions(stall_multiple=2.0, stall_floor=1, max_sweeps=1_000)
    assert budget.cap(options) == 1_000  # nothing recorded: the fixed cap
    for sweeps in (10, 30, 20):
        budget.record(sweeps)
    assert budget.cap(options) == 40
    assert budget.cap(replace(options, stall_floor=100)) == 100
    assert budget.cap(replace(options, max_sweeps=35)) == 35
    assert budget.cap(replace(options, stall_multiple=None)) == 1_000
    for bad, match in [
        (dict(stall_multiple=0.0), "stall_multiple"),
        (dict(stall_floor=0), "stall_floor"),
        (dict(stall_ratio=1.0), "stall_ratio"),
    ]:
        with pytest.raises(InputError, match=match):
            NSGSOptions(**bad)


def test_a_run_caps_each_step_at_the_multiple_of_its_median_step_and_records_the_ones_it_stopped():
    """With the fallbacks off, a step the cap stops keeps NSGS's answer as ``max_iter`` (its residual above the
    target) and the run goes on; no step runs past the cap its predecessors set."""
    tight = replace(
        FRICTIONAL,
        nsgs=NSGSOptions(stall_multiple=1.0, stall_floor=1),
        lemke_fallback=0,
        proximal=None,
    )
    reports = simulate(build_scene("sedimentation", n_spheres=12, seed=0), 250, tight)
    replay, stopped = SweepBudget(), []
    for r in reports:
        if r.contacts:
            cap = replay.cap(tight.nsgs)
            assert r.sweeps <= cap
            if r.status != "converged":
                assert r.sweeps == cap and r.status == "max_iter" and r.residual > 1e-10
                stopped.append(r.step)
            replay.record(r.sweeps)
    assert stopped, "a median cap with multiple 1 stops the steps that need more sweeps than the median"


def test_a_budget_leaves_runs_that_stay_under_its_floor_unchanged():
    scene = build_scene("sedimentation", n_spheres=12, seed=1)
    assert NSGSOptions().stall_multiple is None  # opt-in: a relative cap trades convergence for time
    runs = [
        simulate(scene.copy(), 250, replace(FRICTIONAL, nsgs=NSGSOptions(stall_multiple=multiple)))
        for multiple in (20.0, None)
    ]
    assert max(r.sweeps for r in runs[0]) < NSGSOptions().stall_floor
    assert [(r.sweeps, r.residual) for r in runs[0]] == [(r.sweeps, r.residual) for r in runs[1]]
