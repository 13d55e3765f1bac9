"""The tolerance study's measures and its page: geometry by hand, Siconos' error by Siconos, the page by its files.

Truth: a sphere's cap volume and a known overlap by hand; Siconos' own ``fc3d_compute_error`` on the same local
problem (run by the system Python, skipped where Siconos is absent); Moreau's decomposition for the cone
projection; the shipped results regenerate the shipped page; the null fails the shipped rule on every pile that
decides the choice.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from contact_problems import sedimentation_problem
from siconos_global import SICONOS_PYTHON

from qlsbench.bench import tolerance_page, tolerance_study
from qlsbench.bench.tolerance_study import (
    _cone_projection,
    deepest_overlap,
    height_and_packing,
    read_results,
    siconos_error,
)
from qlsbench.errors import InputError
from qlsbench.physics import build_scene
from qlsbench.physics.spheres.nsgs import nsgs

ROOT = Path(__file__).resolve().parents[1]


def _one_sphere(z: float):
    scene = build_scene("sedimentation", n_spheres=1, seed=0)
    wall = scene.walls[0]
    scene.positions = np.array([wall.center + np.array([0.0, 0.0, z])])
    return scene, wall


def test_height_and_packing_of_one_sphere_on_the_bottom_are_its_diameter_and_its_cap_share():
    scene, wall = _one_sphere(0.0)
    r = float(scene.radii[0])
    scene.positions = np.array([wall.center + np.array([0.0, 0.0, -(wall.radius - r)])])
    height, packing = height_and_packing(scene)
    assert height == pytest.approx(2 * r, rel=1e-12)
    cap = np.pi * (2 * r) ** 2 * (3 * wall.radius - 2 * r) / 3
    assert packing == pytest.approx(4 / 3 * np.pi * r**3 / cap, rel=1e-12)


def test_the_deepest_overlap_is_read_in_radii():
    scene, wall = _one_sphere(0.0)
    r = float(scene.radii[0])
    scene.positions = np.array([wall.center + np.array([0.0, 0.0, -(wall.radius - r) - 0.02 * r])])
    assert deepest_overlap(scene) == pytest.approx(0.02, rel=1e-9)
    scene.positions = np.array([wall.center])
    assert deepest_overlap(scene) == 0.0


def test_the_cone_projection_is_moreaus():
    """``z = p + p_polar`` with ``p`` in the cone, ``p_polar`` in its polar and the two orthogonal."""
    rng = np.random.default_rng(0)
    z = rng.normal(size=(400, 3))
    mu = rng.uniform(0.1, 1.0, size=400)
    p = _cone_projection(z, mu)
    polar = z - p
    t = np.linalg.norm(p[:, 1:], axis=1)
    assert np.all(t <= mu * p[:, 0] + 1e-12)
    assert np.all(mu * np.linalg.norm(polar[:, 1:], axis=1) <= -polar[:, 0] + 1e-12)
    np.testing.assert_allclose(np.sum(p * polar, axis=1), 0.0, atol=1e-12)


def _problem():
    return sedimentation_problem(20, 250, 0.3)


_SICONOS_ERROR = """
import sys
import numpy as np
import siconos.numerics as sn
d = np.load(sys.argv[1])
problem = sn.FrictionContactProblem(3, len(d["mu"]), d["W"], d["q"], d["mu"])
options = sn.SolverOptions(sn.SICONOS_FRICTION_3D_NSGS)
info, error = sn.fc3d_compute_error(problem, d["r"], d["u"], 1e-8, options, float(np.linalg.norm(d["q"])))
print(repr(error))
"""


def test_the_siconos_error_is_siconos_own(tmp_path: Path):
    """The polygon's answer to a small pile, judged by ``siconos_error`` and by Siconos' ``fc3d_compute_error``
    on the same local form: equal to rounding."""
    reason = __import__("benchmarks.siconos_side", fromlist=["unavailable"]).unavailable(("siconos.numerics",))
    if reason is not None:
        pytest.skip(reason)
    problem = _problem()
    y = nsgs(problem, tol=1e-6).y
    M, H, f, w, mu = problem.global_form()
    inv_mass = 1.0 / M.diagonal()
    W = (H.T @ (inv_mass[:, None] * H.toarray())).astype(float)
    q = H.T @ (inv_mass * f) + w
    r = problem.global_solution(y)[2]
    np.savez(tmp_path / "in.npz", W=W, q=q, mu=mu, r=r, u=W @ r + q)
    done = subprocess.run(
        [SICONOS_PYTHON, "-c", _SICONOS_ERROR, str(tmp_path / "in.npz")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = float(done.stdout.strip())
    assert theirs > 0 and siconos_error(problem, y) == pytest.approx(theirs, rel=1e-9)


def test_the_shipped_page_is_its_results_and_the_choice_rests_on_piles_where_the_null_fails():
    results = read_results(ROOT / "docs" / "tolerance")
    page = (ROOT / "docs" / "tolerance.md").read_text()
    assert page == tolerance_page.page(results)
    allowed = tolerance_page.allowed_departures(results)
    judged = tolerance_page.judged_piles(results)
    assert judged and allowed is not None
    for pile in judged:
        verdict = tolerance_page.judge(results[(pile, "null")], results[(pile, "reference")], allowed)
        assert verdict["failed"], f"the null passes on the {pile} pile: the rule judges nothing there"
    for pile in set(tolerance_study.PILES) - set(judged):
        assert tolerance_page.null_passes(pile, results, allowed)
        assert f"{pile} (the null passes there)" in page


def test_a_pile_where_the_null_passes_takes_no_part_in_the_choice():
    """The null made to pass on one pile (its results replaced by a passing run's): that pile leaves the choice
    and the page says so; a looser tolerance failing only there no longer decides."""
    results = dict(read_results(ROOT / "docs" / "tolerance"))
    allowed = tolerance_page.allowed_departures(results)
    judged = tolerance_page.judged_piles(results)
    pile = judged[-1]
    passing = tolerance_study.run_label(tolerance_page.chosen_tolerance(results))
    results[(pile, "null")] = {**results[(pile, passing)], "label": "null"}
    assert tolerance_page.null_passes(pile, results, allowed)
    assert pile not in tolerance_page.judged_piles(results)
    (line,) = [x for x in tolerance_page.page(results).splitlines() if x.startswith("Not a test, so not in the choice")]
    assert pile in line
    rest = tolerance_page.judged_piles(results)
    chosen = tolerance_page.chosen_tolerance(results)
    expected = next(
        (
            tol
            for tol in sorted(tolerance_study.TOLERANCES, reverse=True)
            if all(
                not tolerance_page.judge(
                    results[(p, tolerance_study.run_label(tol))], results[(p, "reference")], allowed
                )["failed"]
                for p in rest
            )
        ),
        None,
    )
    assert chosen == expected


def test_bad_study_requests_are_named(tmp_path: Path):
    with pytest.raises(InputError, match="pile"):
        tolerance_study.run("heap", 1e-6, tmp_path)
    with pytest.raises(InputError, match="tol"):
        tolerance_study.run("settled", -1.0, tmp_path)
    with pytest.raises(InputError, match="control"):
        tolerance_study.run_label(1e-10, "jitter")


def test_the_stepper_default_is_the_tolerance_the_study_chose():
    """``FRICTION_TOL`` is not typed at will: it is the loosest tolerance the shipped study passes on every pile."""
    from qlsbench.physics.spheres.stepping import FRICTION_TOL

    results = read_results(ROOT / "docs" / "tolerance")
    assert {pile for pile, _ in results} == set(tolerance_study.PILES)
    assert tolerance_page.chosen_tolerance(results) == FRICTION_TOL
