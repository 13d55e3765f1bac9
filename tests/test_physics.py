"""DEM-C physics against analytic cases, conservation laws and independent solvers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from qlsbench.errors import InputError
from qlsbench.physics import (
    LCP,
    NewtonOptions,
    Scene,
    StepOptions,
    build_scene,
    detect_contacts,
    minmap_newton,
    simulate,
)
from qlsbench.physics.lcp.fclib import normal_lcp, read_fclib
from qlsbench.physics.lcp.lemke import lemke
from qlsbench.physics.spheres.assembly import assemble, direction_matrices
from qlsbench.physics.spheres.scenes import GRAVITY, floor, free, sedimentation

R, RHO = 0.05, 1000.0
MASS = RHO * 4 / 3 * np.pi * R**3
FCLIB = Path(__file__).resolve().parents[2] / "shared" / "external" / "fclib"

# ---------------------------------------------------------------- contacts and assembly


def test_contacts_match_brute_force(rng):
    scene = sedimentation(60, packing=0.35, seed=3)
    margin = 0.01
    c = detect_contacts(scene, margin)
    p, r = scene.positions, scene.radii
    expected = {
        (i, j) for i in range(60) for j in range(i + 1, 60) if np.linalg.norm(p[j] - p[i]) - r[i] - r[j] <= margin
    }
    wall = scene.walls[0]
    expected_wall = {j for j in range(60) if wall.radius - np.linalg.norm(p[j]) - r[j] <= margin}
    got = {(int(i), int(j)) for i, j in zip(c.body_i, c.body_j) if i >= 0}
    assert got == expected and {int(j) for i, j in zip(c.body_i, c.body_j) if i < 0} == expected_wall
    for k in range(c.count):
        i, j = c.body_i[k], c.body_j[k]
        if i >= 0:
            d = p[j] - p[i]
            assert c.gap[k] == pytest.approx(np.linalg.norm(d) - r[i] - r[j], abs=1e-15)
            np.testing.assert_allclose(c.normal[k], d / np.linalg.norm(d), atol=1e-15)
        else:  # the wall pushes the sphere toward the container centre
            np.testing.assert_allclose(c.normal[k], -p[j] / np.linalg.norm(p[j]), atol=1e-15)
    frame = np.stack([c.normal, c.t1, c.t2], axis=1)
    np.testing.assert_allclose(frame @ frame.transpose(0, 2, 1), np.broadcast_to(np.eye(3), frame.shape), atol=1e-12)
    np.testing.assert_allclose(np.linalg.det(frame), 1.0, atol=1e-12)


def test_direction_matrices_give_relative_velocities(rng):
    scene = sedimentation(30, packing=0.35, seed=1)
    scene.velocities = rng.normal(size=(30, 3))
    c = detect_contacts(scene, 0.02)
    D_nu, D_hat = direction_matrices(c, 30, 8)
    v = scene.velocities
    rel = np.array([v[j] - (v[i] if i >= 0 else 0) for i, j in zip(c.body_i, c.body_j)])
    np.testing.assert_allclose(D_nu.T @ v.reshape(-1), np.sum(rel * c.normal, axis=1), atol=1e-12)
    angles = 2 * np.pi * np.arange(8) / 8
    dirs = np.cos(angles)[None, :, None] * c.t1[:, None] + np.sin(angles)[None, :, None] * c.t2[:, None]
    np.testing.assert_allclose((D_hat.T @ v.reshape(-1)).reshape(-1, 8), np.einsum("kd,kld->kl", rel, dirs), atol=1e-12)


def test_frictionless_lcp_matrix_is_symmetric_psd():
    scene = sedimentation(40, packing=0.4, seed=2)
    c = detect_contacts(scene, 0.02)
    problem = assemble(c, scene.masses, scene.velocities, 1e-3, 0.0)
    Q = problem.lcp.Q.toarray()
    assert np.array_equal(Q, Q.T)
    assert np.linalg.eigvalsh(Q).min() >= -1e-9 * np.abs(Q).max()


# ---------------------------------------------------------------- analytic cases


def test_sphere_resting_on_floor_carries_its_weight_and_does_not_sink():
    h, steps = 1e-3, 1000
    scene = floor([[0.0, 0.0, R]], radius=R, density=RHO)
    reports = simulate(scene, steps, StepOptions(h=h))
    impulses = np.array([rep.normal_impulses[0] for rep in reports])
    np.testing.assert_allclose(impulses, MASS * GRAVITY * h, rtol=1e-9)
    sink = R - scene.positions[0, 2]
    assert abs(sink) <= 1e-12, f"sank by {sink:g} m"  # the gap term keeps the sphere on the surface
    assert np.abs(scene.velocities).max() <= 1e-12


@pytest.mark.parametrize("n", [2, 5, 8])
def test_frictionless_column_carries_the_weight_above_each_contact(n):
    h = 1e-3
    z = R + 2 * R * np.arange(n)
    scene = floor(np.column_stack([np.zeros(n), np.zeros(n), z]), radius=R, density=RHO)
    rep = simulate(scene, 1, StepOptions(h=h))[0]
    load = dict(zip(map(tuple, rep.pairs.tolist()), rep.normal_impulses))
    assert load[(-1, 0)] == pytest.approx(n * MASS * GRAVITY * h, rel=1e-9)
    for k in range(1, n):  # 1-based sphere k is index k - 1; the contact above it carries N - k spheres
        assert load[(k - 1, k)] == pytest.approx((n - k) * MASS * GRAVITY * h, rel=1e-9)
    assert np.abs(scene.velocities).max() <= 1e-10


def test_head_on_collision_conserves_momentum_and_is_perfectly_inelastic():
    v0 = 1.5
    scene = free([[-0.06, 0.0, 0.0], [0.06, 0.0, 0.0]], [[v0, 0.0, 0.0], [-0.5 * v0, 0.0, 0.0]], radius=R)
    p0 = (scene.masses[:, None] * scene.velocities).sum(axis=0)
    reports = simulate(scene, 40, StepOptions(h=1e-3, margin=0.01))
    assert any(rep.contacts for rep in reports)
    p1 = (scene.masses[:, None] * scene.velocities).sum(axis=0)
    np.testing.assert_allclose(p1, p0, atol=1e-12 * np.abs(p0).max())
    np.testing.assert_allclose(scene.velocities[0], scene.velocities[1], atol=1e-12)
    np.testing.assert_allclose(scene.velocities[0], [0.25 * v0, 0, 0], atol=1e-12)
    gap = np.linalg.norm(scene.positions[1] - scene.positions[0]) - 2 * R
    assert -1e-12 <= gap <= 1e-9


def _incline(theta: float, psi: float, mu: float, steps: int = 200, h: float = 1e-3):
    """A sphere at rest on a plane tilted by theta; psi is the downhill direction in the contact frame."""
    g = GRAVITY * np.array([np.sin(theta) * np.cos(psi), np.sin(theta) * np.sin(psi), -np.cos(theta)])
    scene = floor([[0.0, 0.0, R]], radius=R, density=RHO, gravity=g)
    reports = simulate(scene, steps, StepOptions(h=h, mu=mu, s=8, newton=NewtonOptions(tol=1e-13), friction_tol=None))
    assert all(rep.status == "converged" for rep in reports)
    return scene, steps * h


@pytest.mark.parametrize("psi", [0.0, np.pi / 8, 0.3, 1.0, 2.5, -2.0])
def test_incline_sticks_below_the_inscribed_friction_cone(psi):
    mu = 0.4
    theta = np.arctan(0.98 * mu * np.cos(np.pi / 8))
    scene, _ = _incline(theta, psi, mu)
    assert np.abs(scene.velocities).max() <= 1e-10


@pytest.mark.parametrize("psi, mu_eff_factor", [(0.0, 1.0), (np.pi / 4, 1.0), (np.pi / 8, np.cos(np.pi / 8))])
def test_incline_slides_with_the_polygonal_friction_of_its_direction(psi, mu_eff_factor):
    """Aligned with a friction direction mu_eff = mu; midway between two, mu_eff = mu cos(pi/8)."""
    mu = 0.4
    theta = np.arctan(1.05 * mu)
    scene, t = _incline(theta, psi, mu)
    a = GRAVITY * (np.sin(theta) - mu * mu_eff_factor * np.cos(theta))
    downhill = np.array([np.cos(psi), np.sin(psi), 0.0])
    np.testing.assert_allclose(scene.velocities[0], a * t * downhill, atol=1e-9)


# ---------------------------------------------------------------- LCP solvers


@pytest.mark.parametrize("n, seed", [(5, 0), (20, 1), (60, 2), (120, 3)])
def test_minmap_newton_agrees_with_lemke(n, seed):
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(n, n))
    lcp = LCP(B @ B.T + np.eye(n), rng.normal(size=n))
    newton = minmap_newton(lcp, options=NewtonOptions(tol=1e-12))
    pivot = lemke(lcp)
    assert newton.status == "converged" and pivot.status == "converged"
    np.testing.assert_allclose(newton.y, pivot.y, atol=1e-8)
    w = lcp.Q @ newton.y + lcp.r
    assert newton.y.min() >= -1e-8 and w.min() >= -1e-8 and abs(newton.y @ w) <= 1e-8
    assert newton.residual <= 1e-8


def _last_bit_copies(lcp: LCP, count: int, seed: int = 0) -> list[LCP]:
    """``lcp`` and ``count - 1`` copies with ``r`` changed in its last bits (relative 1e-15).

    Another BLAS kernel or thread count changes the assembled problem by about
    this much; a property that holds on every copy does not hinge on one branch.
    """
    rng = np.random.default_rng(seed)
    return [lcp] + [LCP(lcp.Q, lcp.r * (1 + 1e-15 * rng.standard_normal(lcp.size))) for _ in range(count - 1)]


@pytest.mark.skipif(not FCLIB.exists(), reason=f"external FCLIB problems not found at {FCLIB}")
def test_scaled_minmap_newton_solves_the_fclib_spheres_in_a_box_normal_lcp_from_any_last_bit():
    lcp = normal_lcp(read_fclib(FCLIB / "spheres-in-a-box-98-i10000-256-10.hdf5"))
    reference = lemke(lcp).y
    for copy in _last_bit_copies(lcp, 12):
        result = minmap_newton(copy, options=NewtonOptions(scale=True, tol=1e-8, max_iter=200))
        assert result.status == "converged", result.message
        assert result.residual <= 1e-8 * (1 + np.linalg.norm(copy.r))
        np.testing.assert_allclose(result.y, reference, atol=1e-6 * np.abs(reference).max())


@pytest.mark.skipif(not FCLIB.exists(), reason=f"external FCLIB problems not found at {FCLIB}")
def test_unscaled_minmap_newton_reports_honestly_on_the_fclib_normal_lcp():
    """Unscaled Newton stalls on this pile (Q's eigenvalues span 5e-12 to 3e5) on most last bits, not all.

    Whichever branch it takes, its status must match its residual and a
    converged answer must be Lemke's.
    """
    lcp = normal_lcp(read_fclib(FCLIB / "spheres-in-a-box-98-i10000-256-10.hdf5"))
    reference = lemke(lcp).y
    for copy in _last_bit_copies(lcp, 12):
        result = minmap_newton(copy, options=NewtonOptions(scale=False, tol=1e-8, max_iter=200))
        target = 1e-8 * (1 + np.linalg.norm(copy.r))
        assert result.residual == pytest.approx(copy.natural_residual(result.y), rel=1e-12)
        assert (result.status == "converged") == (result.residual <= target)
        if result.status == "converged":
            np.testing.assert_allclose(result.y, reference, atol=1e-6 * np.abs(reference).max())
        else:
            assert result.status in ("stalled", "max_iter") and result.message


def test_frictional_newton_stays_consistent_with_lemke_when_both_converge():
    scene = sedimentation(12, seed=4)
    simulate(scene, 120, StepOptions(mu=0.3))
    v_known = scene.velocities + 1e-3 * scene.gravity
    c = detect_contacts(scene, 0.005)
    lcp = assemble(c, scene.masses, v_known, 1e-3, 0.3).lcp
    pivot = lemke(lcp)
    assert pivot.status == "converged"
    newton = minmap_newton(lcp, options=NewtonOptions(max_iter=300))
    if newton.status == "converged":  # impulses need not be unique with friction; velocities are
        problem = assemble(c, scene.masses, v_known, 1e-3, 0.3)
        np.testing.assert_allclose(problem.velocity_change(newton.y), problem.velocity_change(pivot.y), atol=1e-6)
    assert pivot.residual <= 1e-10 * (1 + np.linalg.norm(lcp.r))


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "make, culprit",
    [
        (lambda: sedimentation(500, container_radius=0.3), "would fill 231% of a container of radius 0.3"),
        (lambda: sedimentation(60, container_radius=0.3), "could place only"),  # 28%, but walls jam it
        (lambda: sedimentation(0), "n_spheres must be an integer from 1 to 50000"),
        (lambda: StepOptions(h=0.0), "time step h must be a finite number in \\(0, 1e\\+12\\]"),
        (lambda: StepOptions(h=-1e-3), "time step h must be a finite number in \\(0, 1e\\+12\\]"),
        (lambda: StepOptions(mu=-0.1), "mu must be >= 0"),
        (lambda: StepOptions(mu=0.3, s=7), "friction directions s must be even"),
        (lambda: StepOptions(mu=0.3, s=2), "friction directions s must be an integer >= 4"),
        (lambda: build_scene("volcano"), "unknown scene 'volcano'; available: sedimentation"),
        (lambda: Scene([[0, 0, 0]], [[0, 0, 0]], -1.0, 1.0), "radii must be > 0"),
    ],
)
def test_bad_physics_input_is_refused(make, culprit):
    with pytest.raises(InputError, match=culprit):
        make()


@pytest.mark.parametrize("h", [2e-3, 1e-3, 5e-4])
def test_penetration_stays_bounded_as_h_shrinks(h):
    """Spheres thrown at the floor and at each other: the gap term keeps overlap at rounding level."""
    scene = floor(
        [[0.0, 0.0, 0.2], [0.0, 0.0, 0.35], [0.3, 0.0, 0.06]],
        radius=R,
        density=RHO,
        velocities=[[0.0, 0.0, -3.0], [0.0, 0.0, -4.0], [1.0, 0.0, 0.0]],
    )
    worst = 0.0
    for _ in range(int(0.3 / h)):
        simulate(scene, 1, StepOptions(h=h))
        p = scene.positions
        floor_gap = p[:, 2] - R
        pair_gap = min(np.linalg.norm(p[i] - p[j]) - 2 * R for i in range(3) for j in range(i + 1, 3))
        worst = min(worst, floor_gap.min(), pair_gap)
    # Velocity-level constraints are exact for planes and first-order for curved contacts: O(h^2 v^2 / R).
    assert -worst <= 4.0 * h**2 * 4.0**2 / R + 1e-12, f"penetration {-worst:g} m at h = {h:g}"
    # And no floating: the gap term lets contacts found within the margin close completely.
    p = scene.positions
    assert abs(p[0, 2] - R) <= 1e-9 and abs(p[2, 2] - R) <= 1e-9
    assert abs(np.linalg.norm(p[1] - p[0]) - 2 * R) <= 1e-9
