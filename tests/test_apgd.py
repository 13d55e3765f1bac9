"""APGD on the stepper's frictional contact LCP: the answers are eq. 6's, judged by Lemke and the LCP's residual.

Truth: Lemke's method (exact on small LCPs; the velocities of a solution are unique where its impulses are not),
the LCP's own natural residual recomputed from the answer, and a fixed point that is an exact solution.
"""

from __future__ import annotations

import numpy as np
import pytest
from contact_problems import assert_lemkes_velocities, sedimentation_problem, target

from qlsbench.errors import InputError
from qlsbench.physics import StepOptions, build_scene, simulate
from qlsbench.physics.lcp import lemke
from qlsbench.physics.spheres.apgd import APGDOptions, apgd, apgd_polished
from qlsbench.physics.spheres.nsgs import nsgs
from qlsbench.physics.spheres.stepping import FRICTION_TOL

_problem, _target = sedimentation_problem, target


@pytest.mark.parametrize("mu", [0.3, 1.0])
def test_apgd_solves_the_lcp_and_agrees_with_lemke_on_velocities(mu):
    problem = _problem(6, 250, mu)
    assert_lemkes_velocities(problem, apgd(problem, tol=1e-12), 1e-12)


def test_an_exact_solution_is_a_fixed_point():
    """Started at Lemke's answer, APGD stops at once: its projection's fixed points are eq. 6's solutions."""
    problem = _problem(6, 250, 0.3)
    exact = lemke(problem.lcp)
    result = apgd(problem, exact.y, tol=1e-9)
    assert result.iterations == 0
    np.testing.assert_allclose(problem.velocity_change(result.y), problem.velocity_change(exact.y), atol=1e-12)


def test_a_pile_reaches_the_tolerance_the_way_nsgs_does():
    """A 60-sphere pile's LCP (about 150 contacts): both methods meet the same rule; the velocities agree to what
    the rule allows."""
    problem = _problem(60, 300, 0.3)
    tol = 1e-10
    ours, theirs = apgd(problem, tol=tol), nsgs(problem, tol=tol)
    assert ours.status == "converged" and theirs.status == "converged"
    assert ours.residual <= _target(problem, tol)
    change = np.abs(problem.velocity_change(theirs.y)).max()
    np.testing.assert_allclose(problem.velocity_change(ours.y), problem.velocity_change(theirs.y), atol=1e-5 * change)


def test_an_iteration_cap_ends_short_with_the_best_answer_and_says_so():
    problem = _problem(60, 300, 0.3)
    result = apgd(problem, tol=1e-14, options=APGDOptions(max_iter=5, check_every=1))
    assert result.status == "max_iter" and result.iterations == 5
    assert "APGD" in result.message and result.residual == pytest.approx(problem.lcp.natural_residual(result.y))


def test_rounds_of_apgd_and_nsgs_meet_the_rule_apgd_meets_and_count_both():
    """The stepper's finish: rounds cut short (5 APGD iterations, 5 NSGS sweeps) still end on the velocities NSGS
    reaches alone, every iteration of both methods counted; a round long enough is plain APGD, to the bit."""
    problem = _problem(60, 300, 0.3)
    tol = 1e-10
    short = apgd_polished(problem, tol=tol, every=5, sweeps=5)
    assert short.status == "converged" and short.residual <= _target(problem, tol)
    assert short.info["rounds"] > 1 and short.iterations <= 10 * short.info["rounds"]
    theirs = nsgs(problem, tol=tol)
    change = np.abs(problem.velocity_change(theirs.y)).max()
    np.testing.assert_allclose(problem.velocity_change(short.y), problem.velocity_change(theirs.y), atol=1e-5 * change)
    plain, one_round = apgd(problem, tol=tol), apgd_polished(problem, tol=tol)
    assert one_round.info["rounds"] == 1 and one_round.iterations == plain.iterations
    assert np.array_equal(one_round.y, plain.y)
    capped = apgd_polished(problem, tol=1e-14, max_iter=12, every=5, sweeps=5)
    assert capped.status == "max_iter" and capped.iterations == 12 and "rounds" in capped.message


def test_bad_input_is_named():
    frictional, frictionless = _problem(6, 250, 0.3), _problem(6, 250, 0.0)
    with pytest.raises(InputError, match="frictional"):
        apgd(frictionless)
    with pytest.raises(InputError, match="y0"):
        apgd(frictional, np.zeros(3))
    with pytest.raises(InputError, match="tol"):
        apgd(frictional, tol=-1.0)
    with pytest.raises(InputError, match="max_iter"):
        APGDOptions(max_iter=0)
    with pytest.raises(InputError, match="polish every"):
        apgd_polished(frictional, every=0)


def test_the_stepper_finishes_frictional_steps_with_apgd_to_its_own_tolerance():
    """``friction_solver="apgd"`` with ``friction_tol``: every step of a sliding 30-sphere pile meets the looser
    rule and the report names APGD; the default chain's steps at the same rule land on the same velocities to
    what the rule allows."""
    from qlsbench.physics import step

    def run(options):
        scene = build_scene("sedimentation", n_spheres=30, seed=0)
        simulate(scene, 200, StepOptions(mu=0.0))
        reports = [step(scene, options, index=k) for k in range(5)]
        return scene, reports

    base = StepOptions(mu=0.3, warm_start=False)
    ours, ours_reports = run(StepOptions(mu=0.3, warm_start=False, friction_solver="apgd", friction_tol=1e-9))
    theirs, _ = run(StepOptions(mu=0.3, warm_start=False, friction_solver="nsgs", friction_tol=1e-9))
    assert all(r.status == "converged" and r.solver in ("apgd", "no_contact") or r.contacts == 0 for r in ours_reports)
    assert {r.solver for r in ours_reports if r.contacts} == {"apgd"}
    np.testing.assert_allclose(ours.velocities, theirs.velocities, atol=1e-6 * np.abs(theirs.velocities).max())
    with pytest.raises(InputError, match="friction_solver"):
        StepOptions(mu=0.3, friction_solver="jacobi")
    with pytest.raises(InputError, match="friction_tol"):
        StepOptions(mu=0.3, friction_tol=0.0)
    assert base.friction_solver == "apgd" and base.friction_tol == FRICTION_TOL


def test_on_the_exact_cone_apgd_lands_where_exact_cone_nsgs_does():
    """The disk instead of the polygon, stopped on Siconos' merit: the velocities of the exact-cone Gauss-Seidel
    answer (a different method on the same law), and a residual within the rule."""
    from qlsbench.physics.spheres import exact_cone_nsgs
    from qlsbench.physics.spheres.apgd import apgd_exact_cone

    problem = _problem(60, 300, 0.3)
    ours, theirs = apgd_exact_cone(problem, tol=1e-10), exact_cone_nsgs(problem, tol=1e-12)
    assert ours.status == "converged" and ours.residual <= 1e-10 and theirs.status == "converged"
    change = np.abs(theirs.velocities - problem.v_known.reshape(-1, 3)).max()
    np.testing.assert_allclose(ours.velocities, theirs.velocities, atol=1e-6 * change)
    assert np.all(np.hypot(*ours.tangent.T) <= 0.3 * ours.normal * (1 + 1e-12) + 1e-300)
    with pytest.raises(InputError, match="start"):
        apgd_exact_cone(problem, np.zeros(5))
