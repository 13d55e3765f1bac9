"""Contact problems of small sedimentation piles, and the check that an answer is eq. 6's (shared by the tests of
the stepper's contact solvers: NSGS, APGD and the tolerance study's measures)."""

from __future__ import annotations

import numpy as np

from qlsbench.physics import StepOptions, build_scene, detect_contacts, simulate
from qlsbench.physics.lcp import lemke
from qlsbench.physics.spheres.assembly import assemble
from qlsbench.physics.spheres.stepping import _margin


def sedimentation_problem(n_spheres: int, steps: int, mu: float, seed: int = 0):
    """The contact LCP of the step after ``steps`` frictionless steps of a sedimentation."""
    scene = build_scene("sedimentation", n_spheres=n_spheres, seed=seed)
    simulate(scene, steps, StepOptions(mu=0.0))
    v_known = scene.velocities + 1e-3 * scene.gravity
    contacts = detect_contacts(scene, _margin(scene, v_known, StepOptions(mu=mu)))
    return assemble(contacts, scene.masses, v_known, 1e-3, mu, 8)


def target(problem, tol: float = 1e-10) -> float:
    """The natural residual ``tol`` allows on ``problem`` (relative to ``1 + ||r||``)."""
    return tol * (1 + np.linalg.norm(problem.lcp.r))


def assert_lemkes_velocities(problem, result, tol: float) -> None:
    """``result`` met ``tol``, its reported residual is the LCP's own, and its velocities are those of Lemke's exact
    answer (impulses need not be unique; the velocities they give are)."""
    exact = lemke(problem.lcp)
    assert exact.status == "converged"
    assert result.status == "converged" and result.residual <= target(problem, tol)
    assert abs(problem.lcp.natural_residual(result.y) - result.residual) <= 1e-6 * result.residual + 1e-15
    v_ours, v_exact = problem.velocity_change(result.y), problem.velocity_change(exact.y)
    np.testing.assert_allclose(v_ours, v_exact, rtol=0, atol=1e-9 * np.abs(v_exact).max())
