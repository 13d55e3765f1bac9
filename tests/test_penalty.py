"""Penalty contact with Coulomb friction (seed 001, alg. 1-5 and 8): derivatives, friction law, Newton, export."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from finite_differences import central_jacobian, checked_operator

from qlsbench.errors import InputError
from qlsbench.families import build
from qlsbench.outcomes import Status
from qlsbench.physics.penalty import (
    Box,
    Particles,
    PenaltyModel,
    PenaltyNewtonOptions,
    SphereObstacle,
    Spheres,
    build_penalty_scene,
    evaluate,
    inclined_plane,
    newton_solve,
    relax_plane,
    simulate_penalty,
    wolfe_line_search,
)
from qlsbench.physics.penalty.geometry import so3_exp, so3_left_jacobian
from qlsbench.physics.penalty.scenes import incline_frame

G = 9.81


# --- geometry -----------------------------------------------------------------------------------------------


def test_relax_plane_sticks_inside_the_cone_and_slides_onto_its_boundary():
    W = np.array([0.0, 0.0, 0.0])
    Z = np.array([0.0, 0.0, -0.1])  # penetration a = 0.1
    mu = 0.5  # cone radius mu a = 0.05
    inside = np.array([0.03, 0.02, 0.0])
    K, dZ, dX, dW, sticking = relax_plane(Z, inside, W, mu)
    assert sticking and np.array_equal(K, inside)
    assert np.array_equal(dX, np.eye(3)) and not dZ.any() and not dW.any()
    outside = np.array([0.3, -0.4, 0.0])
    K, *_, sticking = relax_plane(Z, outside, W, mu)
    assert not sticking
    assert np.linalg.norm(K - W) == pytest.approx(mu * 0.1, rel=1e-14)
    assert np.allclose((K - W) / np.linalg.norm(K - W), outside / np.linalg.norm(outside), atol=1e-14)


def test_relax_plane_derivatives_match_central_differences():
    rng = np.random.default_rng(3)
    Z, X, W = rng.normal(size=(3, 3))
    mu = 0.2
    _, dZ, dX, dW, sticking = relax_plane(Z, X, W, mu)
    assert not sticking
    for got, which in ((dZ, 0), (dX, 1), (dW, 2)):

        def K_of(p, which=which):
            args = [Z, X, W]
            args[which] = p
            return relax_plane(*args, mu)[0]

        fd = central_jacobian(K_of, [Z, X, W][which])
        assert np.abs(got - fd).max() <= 1e-6 * np.abs(fd).max()


@pytest.mark.parametrize(
    "obstacle, point",
    [
        (inclined_plane(np.radians(25)), [0.3, -0.2, 0.1]),
        (SphereObstacle([0.1, 0.2, 0.3], 0.5), [0.4, -0.1, 0.2]),
        (Box([0, 0, 0], [0.3, 0.2, 0.1]), [0.5, 0.35, 0.05]),  # outside, nearest an edge
        (Box([0, 0, 0], [0.3, 0.2, 0.1]), [0.5, 0.35, 0.3]),  # outside, nearest a corner
        (Box([0, 0, 0], [0.3, 0.2, 0.1]), [0.1, -0.05, 0.07]),  # inside, nearest the top face
    ],
)
def test_level_set_gradient_and_hessian_match_central_differences(obstacle, point):
    x = np.array(point, dtype=float)
    phi, n, H = obstacle.evaluate(x)
    assert phi == pytest.approx(float(obstacle.distance(x)), abs=1e-15)
    grad = central_jacobian(lambda p: np.array([obstacle.evaluate(p)[0]]), x)[0]
    assert np.allclose(n, grad, atol=1e-8) and np.linalg.norm(n) == pytest.approx(1.0)
    hess = central_jacobian(lambda p: obstacle.evaluate(p)[1], x)
    assert np.allclose(H, hess, atol=1e-6)


def test_box_signed_distance_known_values():
    box = Box([1.0, 0.0, 0.0], [0.5, 0.5, 0.5])
    assert box.evaluate(np.array([2.5, 0.0, 0.0]))[0] == pytest.approx(1.0)
    assert box.evaluate(np.array([2.5, 1.5, 0.0]))[0] == pytest.approx(np.sqrt(2.0))
    assert box.evaluate(np.array([1.1, 0.0, 0.0]))[0] == pytest.approx(-0.4)


def test_rotation_exponential_and_its_left_jacobian():
    u = np.array([0.3, -0.7, 0.2])
    R = so3_exp(u)
    assert np.allclose(R @ R.T, np.eye(3), atol=1e-14) and np.linalg.det(R) == pytest.approx(1.0)
    assert np.allclose(R @ u, u, atol=1e-14)  # the axis is fixed
    a = np.array([0.1, 0.4, -0.9])
    fd = central_jacobian(lambda v: so3_exp(v) @ a, u)
    r = R @ a
    skew_r = np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])
    assert np.allclose(fd, -skew_r @ so3_left_jacobian(u), atol=1e-9)


# --- backward Euler operator ---------------------------------------------------------------------------------


def mixed_model() -> PenaltyModel:
    """Particles with springs, two rotating spheres, three obstacles; some attachments registered off-cone."""
    rng = np.random.default_rng(0)
    x = np.array([[0.0, 0.0, -0.01], [0.1, 0.0, 0.02], [0.0, 0.1, -0.005], [1.21, 0.0, 0.05]])
    particles = Particles(
        x,
        rng.normal(size=(4, 3)) * 0.1,
        [1.0, 2.0, 1.5, 0.5],
        springs=[[0, 1], [1, 2], [0, 2]],
        rest=[0.09, 0.12, 0.1],
        stiffness=100.0,
    )
    spheres = Spheres(
        [[0.5, 0.0, -0.08], [0.5, 0.18, -0.06]],
        rng.normal(size=(2, 3)) * 0.1,
        rng.normal(size=(2, 3)),
        [1.0, 2.0],
        [0.1, 0.1],
    )
    obstacles = (inclined_plane(0.3), SphereObstacle([1.2, 0.0, -0.25], 0.3), Box([-2, -2, -2], [0.3, 0.2, 0.1]))
    model = PenaltyModel(particles, spheres, obstacles, mu=0.4, stiffness=1e3)
    # Anchors far outside the cone make these contacts slide; the pair gets one too.
    model.attachments[("particle", 0, 0)] = {"anchor": np.array([0.05, 0.03, 0.0])}
    model.attachments[("particle", 3, 1)] = {"anchor": np.array([1.2, 0.1, 0.05])}
    model.attachments[("sphere", 0, 0)] = {
        "offset_body": np.array([-0.03, 0.0, -0.095]),
        "anchor": np.array([0.45, 0.05, 0.0]),
    }
    model.attachments[("pair", 0, 1)] = {
        "offset_body": np.array([0.0, 0.1, 0.0]),
        "anchor_body": np.array([0.02, -0.098, 0.0]),
    }
    return model


def test_force_derivatives_match_central_differences_for_every_contact_kind():
    _, H = checked_operator(
        mixed_model(), {("particle", False), ("particle", True), ("sphere", False), ("pair", False)}
    )
    assert np.abs(H - H.T).max() > 1e-3 * np.abs(H).max()  # sliding contacts make H non-symmetric


def test_operator_and_its_transpose_are_adjoint_and_match_the_assembled_matrix():
    model, h = mixed_model(), 1e-2
    ev = evaluate(model, np.zeros(model.ndof), h)
    rng = np.random.default_rng(2)
    H = ev.matrix().toarray()
    for _ in range(5):
        u, v = rng.normal(size=(2, model.ndof))
        lhs, rhs = u @ ev.matvec(v), ev.rmatvec(u) @ v
        assert abs(lhs - rhs) <= 1e-12 * max(abs(lhs), 1.0)
        assert np.allclose(ev.operator().rmatvec(u), H.T @ u, rtol=0, atol=1e-12 * np.abs(H).max())
        assert np.allclose(ev.operator().matvec(v), H @ v, rtol=0, atol=1e-12 * np.abs(H).max())


# --- Newton and line search ----------------------------------------------------------------------------------


def test_wolfe_line_search_returns_a_strong_wolfe_step():
    # phi(t) = (t - 3)^2 along a descent direction from 0: the unit step is too short, doubling brackets 3.
    phi, dphi = (lambda t: (t - 3.0) ** 2), (lambda t: 2.0 * (t - 3.0))
    alpha = wolfe_line_search(phi, dphi, phi(0.0), dphi(0.0), c1=1e-4, c2=0.1)
    assert phi(alpha) <= phi(0.0) + 1e-4 * alpha * dphi(0.0)
    assert abs(dphi(alpha)) <= 0.1 * abs(dphi(0.0))


class _Toy:
    """``g(z) = A z + 0.1 z^3 - c`` with a non-symmetric ``A``: an evaluation like the physics one."""

    A = np.array([[3.0, 1.0, 0.0], [-1.0, 2.0, 0.5], [0.0, -0.4, 1.5]])
    c = np.array([1.0, -2.0, 0.5])

    def __init__(self, z):
        self.z = z
        self.g = self.A @ z + 0.1 * z**3 - self.c
        self.J = self.A + np.diag(0.3 * z**2)

    def matvec(self, v):
        return self.J @ v

    def rmatvec(self, v):
        return self.J.T @ v

    def operator(self):
        from scipy.sparse.linalg import aslinearoperator

        return aslinearoperator(self.J)


def test_newton_solves_a_non_symmetric_nonlinear_system_and_hands_over_each_linear_system():
    seen = []
    z, ev, report = newton_solve(
        _Toy,
        np.full(3, 5.0),
        PenaltyNewtonOptions(tol=1e-12),
        capture=lambda ev, rhs, dz, it, info: seen.append((it, np.linalg.norm(ev.J @ dz - rhs))),
    )
    assert report.status is Status.CONVERGED and np.linalg.norm(ev.g) < 1e-10
    assert [it for it, _ in seen] == list(range(report.iterations))
    assert max(r for _, r in seen) < 1e-8  # GMRES solved each captured system


# --- physics: the friction law ----------------------------------------------------------------------------


def _run_block(angle, mu, seconds=0.5, h=1e-3):
    model = build_penalty_scene("incline-block", angle=angle, mu=mu)
    downhill = incline_frame(np.radians(angle))[0]
    t, s = [], []
    reports = simulate_penalty(
        model,
        int(round(seconds / h)),
        h,
        observer=lambda m, r: (t.append(m.time), s.append(m.particles.x.mean(0) @ downhill)),
    )
    return model, np.array(t), np.array(s), reports


def test_block_on_an_incline_sticks_when_tan_theta_below_mu():
    model, t, s, reports = _run_block(angle=20.0, mu=0.5)  # tan 20 = 0.36 < 0.5
    assert all(r.newton.status is Status.CONVERGED for r in reports)
    assert abs(s[-1] - s[0]) < 2e-3  # the contact springs' elastic give, no creep
    assert abs(s[-1] - s[len(s) // 2]) < 1e-4
    assert np.abs(model.particles.v).max() < 1e-2


def test_block_on_an_incline_slides_with_the_coulomb_acceleration():
    angle, mu = 30.0, 0.3  # tan 30 = 0.58 > 0.3
    _, t, s, reports = _run_block(angle, mu)
    assert all(r.newton.status is Status.CONVERGED for r in reports)
    assert reports[-1].sliding == reports[-1].contacts == 4
    late = t > 0.2  # after the block has settled into the surface
    a = 2.0 * np.polyfit(t[late], s[late], 2)[0]
    expected = G * (np.sin(np.radians(angle)) - mu * np.cos(np.radians(angle)))
    assert a == pytest.approx(expected, rel=1e-3)


def _sphere_acceleration(mu, h, angle=20.0, seconds=0.4):
    model = build_penalty_scene("spheres-incline", count=1, angle=angle, mu=mu, speed=0.0)
    downhill = incline_frame(np.radians(angle))[0]
    t, s = [], []
    reports = simulate_penalty(
        model, int(round(seconds / h)), h, observer=lambda m, r: (t.append(m.time), s.append(m.spheres.x[0] @ downhill))
    )
    assert all(r.newton.status is Status.CONVERGED for r in reports)
    t, s = np.array(t), np.array(s)
    return 2.0 * np.polyfit(t[t > 0.1], s[t > 0.1], 2)[0], model


def test_rigid_sphere_rolls_without_slipping_at_five_sevenths_g_sin_theta():
    # mu = 0.5 > (2/7) tan 20: rolling. The contact's material point turns by h*omega within a step, an O(h)
    # error in the lever arm: the error halves with h and is about 1 % at h = 2.5e-4.
    expected = 5.0 / 7.0 * G * np.sin(np.radians(20.0))
    a_coarse, _ = _sphere_acceleration(0.5, 5e-4)
    a_fine, model = _sphere_acceleration(0.5, 2.5e-4)
    err_coarse, err_fine = abs(a_coarse / expected - 1), abs(a_fine / expected - 1)
    assert err_fine < 0.015
    assert 1.6 < err_coarse / err_fine < 2.4
    speed, spin = np.linalg.norm(model.spheres.v[0]), np.linalg.norm(model.spheres.omega[0])
    assert spin * model.spheres.radius[0] == pytest.approx(speed, rel=2e-3)  # v = omega r


def test_rigid_sphere_slides_with_the_coulomb_acceleration_when_friction_is_low():
    mu = 0.05  # < (2/7) tan 20 = 0.104
    a, model = _sphere_acceleration(mu, 1e-3)
    assert a == pytest.approx(G * (np.sin(np.radians(20)) - mu * np.cos(np.radians(20))), rel=1e-3)
    assert np.linalg.norm(model.spheres.omega[0]) * 0.05 < 0.9 * np.linalg.norm(model.spheres.v[0])


def test_sphere_sphere_collision_conserves_momentum_and_spins_the_spheres():
    # No gravity, no obstacles: an off-centre hit with friction. Pair forces are equal and opposite.
    spheres = Spheres(
        [[0.0, 0.0, 0.0], [0.25, 0.06, 0.0]],
        [[1.0, 0.0, 0.0], [-0.5, 0.0, 0.0]],
        np.zeros((2, 3)),
        [1.0, 3.0],
        [0.1, 0.1],
    )
    model = PenaltyModel(Particles.empty(), spheres, (), mu=0.3, stiffness=1e4, gravity=np.zeros(3))
    p0 = model.momentum()
    reports = simulate_penalty(model, 300, 1e-3)
    assert all(r.newton.status is Status.CONVERGED for r in reports)
    assert max(r.contacts for r in reports) == 1
    assert np.allclose(model.momentum(), p0, rtol=0, atol=1e-8)
    assert model.spheres.v[0, 0] < 0.5  # the collision happened
    assert np.linalg.norm(model.spheres.omega[0]) > 0.1  # friction spun it


@pytest.mark.parametrize(
    "scene, params, steps",
    [
        ("incline-block", {"angle": 30, "mu": 0.3, "n": 3}, 100),
        ("cloth-sphere", {}, 100),
        ("spheres-incline", {}, 300),
    ],
)
def test_newton_reaches_its_tolerance_on_every_step_of_each_scene(scene, params, steps):
    from qlsbench.physics.penalty import PENALTY_SCENES

    model = build_penalty_scene(scene, **params)
    options = PenaltyNewtonOptions()
    reports = simulate_penalty(model, steps, PENALTY_SCENES[scene][1], options)
    scale = PENALTY_SCENES[scene][1] * np.linalg.norm(model.mass_vector()) * G
    assert all(r.newton.status is Status.CONVERGED for r in reports)
    assert max(r.newton.residual for r in reports) < options.tol * scale
    assert max(r.contacts for r in reports) > 0


# --- datasets ----------------------------------------------------------------------------------------------


def test_exported_systems_are_non_symmetric_exactly_where_friction_slides(tmp_path):
    build(
        "penalty",
        tmp_path / "slide",
        scene="incline-block",
        params={"angle": 30},
        mu=0.3,
        steps=40,
        every=5,
        progress=False,
    )
    build(
        "penalty",
        tmp_path / "stick",
        scene="incline-block",
        params={"angle": 10},
        mu=0.8,
        steps=40,
        every=5,
        progress=False,
    )
    df = pd.read_parquet(tmp_path)
    meta = pd.DataFrame([json.loads(j) for j in df.meta_json])
    assert set(df.family) == {"penalty"}
    sliding = meta.sliding.to_numpy() > 0
    assert sliding.any() and (~sliding).any()
    assert not df.symmetric[sliding].any() and (meta.asymmetry[sliding] > 1e-3).all()
    assert df.symmetric[~sliding].all() and (meta.asymmetry[~sliding] == 0).all()
    # Padded, normalised, with a reference solution that solves it.
    for row in df.itertuples():
        A = np.zeros((row.dim, row.dim))
        A[row.rows, row.cols] = row.vals
        assert row.dim == 2**row.n_qubits
        assert np.linalg.norm(A @ row.x_ref - row.b) <= 1e-10


def test_penalty_dataset_is_byte_identical_for_the_same_settings(tmp_path):
    for name in ("a", "b"):
        build("penalty", tmp_path / name, scene="spheres-incline", steps=60, every=20, progress=False)
    assert (tmp_path / "a/part-0000.parquet").read_bytes() == (tmp_path / "b/part-0000.parquet").read_bytes()


def test_bad_scene_parameters_name_the_scene_and_parameter():
    with pytest.raises(InputError, match="incline-block: angle"):
        build_penalty_scene("incline-block", angle=-5)
    with pytest.raises(InputError, match="unknown penalty scene"):
        build_penalty_scene("cloth-ball")
    with pytest.raises(InputError, match="scene cloth-sphere: .*unexpected keyword argument 'angle'"):
        build_penalty_scene("cloth-sphere", angle=3)
    with pytest.raises(InputError, match=r"mu must be a finite number in \[0, "):
        build_penalty_scene("spheres-incline", mu=-0.1)


@pytest.mark.parametrize(
    "scene, key",
    [
        ("cloth-sphere", "n"),
        ("cloth-sphere", "size"),
        ("incline-block", "n"),
        ("cloth-rolling-sphere", "n"),
        ("cloth-on-cloth", "top_n"),
        ("spheres-incline", "count"),
        ("spheres-incline", "radius"),
    ],
)
@pytest.mark.parametrize("value", ["four", float("nan"), float("inf"), -3, 0, 3000, 10**9, True, None])
def test_a_scene_parameter_of_the_wrong_type_or_size_is_one_line_and_never_a_hang(scene, key, value):
    """Text, NaN, infinities, zero, negatives and sizes whose quadratic set-up would hang: one line naming the
    parameter (or, for a value that is fine, a scene), never another exception."""
    from qlsbench.errors import InputError
    from qlsbench.physics.penalty import build_penalty_scene

    try:
        build_penalty_scene(scene, **{key: value})
    except InputError as exc:
        assert key in str(exc) and "\n" not in str(exc)
    else:
        assert type(value) is int and value > 0  # a valid length or count: the scene is built, at once


def test_springs_join_exactly_the_pairs_within_reach_in_lexicographic_order():
    """Against the all-pairs definition: random clouds, and lattices whose neighbours sit at the reach itself."""
    import itertools

    from qlsbench.physics.penalty.scenes import springs_within

    def every_pair(x, reach):
        return [(i, j) for i, j in itertools.combinations(range(len(x)), 2) if np.linalg.norm(x[i] - x[j]) <= reach]

    rng = np.random.default_rng(0)
    lattice = np.array(list(itertools.product(range(4), repeat=3)), dtype=float) * 0.1
    cases = [(rng.normal(size=(60, 3)), r) for r in (0.3, 0.8)]
    cases += [(lattice, 0.1 * f) for f in (1.0, np.sqrt(2.0), np.sqrt(3.0), np.sqrt(3.0) * 1.001, 2.0)]
    for x, reach in cases:
        pairs, rest = springs_within(x, reach)
        assert pairs.tolist() == [list(p) for p in every_pair(x, reach)]
        np.testing.assert_array_equal(rest, np.linalg.norm(x[pairs[:, 1]] - x[pairs[:, 0]], axis=1))
    assert springs_within(lattice[:1], 1.0)[0].shape == (0, 2)
