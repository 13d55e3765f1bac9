"""The exact-cone Gauss-Seidel reference: analytic single contacts, the polygon's limit and Siconos fc3d.

Truth: a sphere on a plane under gravity has a closed-form step (it sticks when its speed is below ``mu g h``, else
slides on at ``v - mu g h`` along its own direction); the stepper's ``s``-gon tends to the disk as ``s`` grows; and,
where the system Python has it, Siconos' global NSGS on the exact Coulomb cone solves the same contacts.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from siconos_global import siconos_global

from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.physics import StepOptions, build_scene, simulate
from qlsbench.physics.spheres import (
    assemble,
    detect_contacts,
    exact_cone_nsgs,
    exact_cone_residual,
    nsgs,
)
from qlsbench.physics.spheres.scenes import floor

H, MU, GRAVITY = 1e-3, 0.3, 9.81


def _on_plane(speed: float, angle: float):
    """One sphere resting on the floor, moving at ``speed`` along ``angle`` (radians from x) in the plane."""
    velocity = speed * np.array([[np.cos(angle), np.sin(angle), 0.0]])
    scene = floor([[0.0, 0.0, 0.05]], velocities=velocity)
    v_known = scene.velocities + H * scene.gravity
    return assemble(detect_contacts(scene, 1e-3), scene.masses, v_known, H, MU, 8), v_known


@pytest.mark.parametrize("angle", [0.0, np.radians(11.25), 1.0])
def test_a_sphere_sliding_on_a_plane_slows_by_mu_g_h_along_its_own_direction(angle):
    """Sliding at 1 m/s (far above mu g h = 2.9 mm/s): the exact cone keeps the direction and takes mu g h off the
    speed. Control: the 8-gon's answer at 11.25 degrees (midway between two of its directions) is off by more than
    the tolerance, so the test sees the facets."""
    problem, v_known = _on_plane(1.0, angle)
    solved = exact_cone_nsgs(problem, tol=1e-13)
    expected = v_known[0, :2] * (1.0 - MU * GRAVITY * H / 1.0)
    assert solved.status == Status.CONVERGED
    np.testing.assert_allclose(solved.velocities[0, :2], expected, rtol=0, atol=1e-12)
    assert abs(solved.velocities[0, 2]) <= 1e-12  # the floor holds it: u_n = 0
    np.testing.assert_allclose(np.linalg.norm(solved.tangent[0]), MU * solved.normal[0], rtol=1e-12)
    polygon = v_known + problem.velocity_change(nsgs(problem, tol=1e-13).y).reshape(-1, 3)
    if np.isclose(angle, np.radians(11.25)):
        assert np.abs(polygon[0, :2] - expected).max() > 1e-5


def test_a_slow_sphere_on_a_plane_sticks_with_friction_inside_the_disk():
    """Below mu g h the friction stops the sphere within the step, with an impulse strictly inside the disk."""
    problem, _ = _on_plane(1e-3, 0.7)
    solved = exact_cone_nsgs(problem, tol=1e-13)
    np.testing.assert_allclose(solved.velocities, 0.0, atol=1e-12)
    assert np.linalg.norm(solved.tangent[0]) < MU * solved.normal[0]
    assert exact_cone_residual(problem, solved.normal, solved.tangent) <= 1e-12


def _pile_problem(s: int):
    """A 16-sphere pile's contact problem after 150 frictionless steps (contacts loaded, some sliding)."""
    scene = build_scene("sedimentation", n_spheres=16, seed=0)
    simulate(scene, 150, StepOptions(mu=0.0))
    scene.velocities = scene.velocities + np.array([0.05, 0.0, 0.0])  # a push, so friction slides somewhere
    v_known = scene.velocities + H * scene.gravity
    return assemble(detect_contacts(scene, 2e-3), scene.masses, v_known, H, MU, s)


def test_the_polygon_answer_tends_to_the_exact_cone_as_facets_are_added():
    """Inscribed s-gons tend to the disk: the velocity gap to the exact cone shrinks from 8 to 64 facets and is
    small at 64 (the gon's radius error is 1 - cos(pi/64) = 0.12 %), relative to the step's velocity change."""
    exact = exact_cone_nsgs(_pile_problem(8), tol=1e-12)
    assert exact.status == Status.CONVERGED
    v_known = _pile_problem(8).v_known.reshape(-1, 3)
    change = np.abs(exact.velocities - v_known).max()
    gaps = []
    for s in (8, 64):
        problem = _pile_problem(s)
        polygon = v_known + problem.velocity_change(nsgs(problem, tol=1e-12).y).reshape(-1, 3)
        gaps.append(np.abs(polygon - exact.velocities).max() / change)
    assert gaps[1] < gaps[0]
    assert gaps[1] <= 0.02


def test_a_bad_tolerance_is_refused_in_one_line():
    problem, _ = _on_plane(1.0, 0.0)
    with pytest.raises(InputError, match="exact-cone tol"):
        exact_cone_nsgs(problem, tol=-1.0)


def test_siconos_fc3d_agrees_on_a_sticking_pile(tmp_path: Path):
    """Siconos' NSGS on the exact Coulomb cone, on the same contacts of a pile that sticks (no push), gives the
    same velocities to 1e-6 of the step's change. Siconos states the De Saxce law (u_n + mu |u_t| >= 0), which
    equals ours when no contact slides, so a sticking pile is where the two must agree."""
    scene = build_scene("sedimentation", n_spheres=16, seed=0)
    simulate(scene, 300, StepOptions(mu=MU))
    v_known = scene.velocities + H * scene.gravity
    problem = assemble(detect_contacts(scene, 2e-3), scene.masses, v_known, H, MU, 8)
    ours = exact_cone_nsgs(problem, tol=1e-13)
    siconos = siconos_global(problem.global_form(), tmp_path)
    assert int(siconos["info"]) == 0
    change = np.abs(ours.velocities - v_known.reshape(-1, 3)).max()
    assert change > 0
    assert np.abs(siconos["v"].reshape(-1, 3) - ours.velocities).max() <= 1e-6 * change
