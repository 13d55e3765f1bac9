"""Penalty contact of a particle against a moving rigid body (DR, issue 26): derivatives, adjoints, physics, scene."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from finite_differences import central_jacobian, checked_operator

from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.physics.penalty import (
    PENALTY_SCENES,
    Box,
    Particles,
    PenaltyModel,
    SphereObstacle,
    Spheres,
    build_penalty_scene,
    simulate_penalty,
)
from qlsbench.physics.penalty.attachments import (
    dr_jacobian,
    force_diff_dr,
    force_diff_transpose_dr,
    force_dr,
    precompute_dr,
)
from qlsbench.physics.penalty.geometry import project_to_moving_surface, so3_exp
from qlsbench.physics.penalty.scenes import springs_within

G = 9.81


# --- the moving projection (PROJECT_ATTACHMENT_TO_MOVING_SURFACE) -------------------------------------------


@pytest.mark.parametrize(
    "body, point",
    [
        (SphereObstacle([0.0, 0.0, 0.0], 0.3), [0.1, 0.05, 0.25]),  # a ball about its centre: dW/dtheta = 0
        (SphereObstacle([0.05, -0.02, 0.1], 0.3), [0.1, 0.05, 0.3]),  # off-centre in the body frame
        (Box([0.0, 0.0, 0.0], [0.3, 0.2, 0.25]), [0.12, -0.05, 0.22]),  # inside, under the top face
        (Box([0.0, 0.0, 0.0], [0.3, 0.2, 0.25]), [0.35, 0.26, 0.1]),  # outside, nearest an edge
    ],
)
def test_moving_projection_derivatives_match_central_differences(body, point):
    X = np.array(point)
    c = np.array([0.1, -0.2, 0.3])
    R = so3_exp(np.array([0.2, -0.1, 0.4]))
    X = c + R @ X  # the point given in body coordinates
    phi, W, W_X, W_c, W_th = project_to_moving_surface(X, c, R, body)
    assert phi == pytest.approx(float(body.distance(R.T @ (X - c))), abs=1e-14)
    scale = max(np.abs(W_X).max(), 1.0)
    for got, fun, at in (
        (W_X, lambda z: project_to_moving_surface(z, c, R, body)[1], X),
        (W_c, lambda z: project_to_moving_surface(X, z, R, body)[1], c),
        (W_th, lambda t: project_to_moving_surface(X, c, so3_exp(t) @ R, body)[1], np.zeros(3)),
    ):
        fd = central_jacobian(fun, at)
        assert np.abs(got - fd).max() <= 1e-7 * scale
    assert np.allclose(W_X + W_c, np.eye(3), atol=1e-14)  # translating point and body together moves W alike
    if isinstance(body, SphereObstacle) and not body.center.any():
        assert np.abs(W_th).max() < 1e-14


# --- DR attachment: FORCE_DR, FORCE_DIFF_DR, FORCE_DIFF_TRANSPOSE_DR ----------------------------------------


def dr_case(body, mu, seed=2):
    """A particle inside a rotating, translating body whose previous attachment is off the cone (or inside it)."""
    rng = np.random.default_rng(seed)
    h, k = 1e-2, 1e3
    Rn = so3_exp(np.array([0.2, -0.1, 0.4]))
    xb, vb, wb = np.array([0.1, 0.0, 0.2]), rng.normal(size=3) * 0.1, rng.normal(size=3)
    xp = xb + Rn @ np.array([0.05, 0.02, 0.235])
    vp = rng.normal(size=3) * 0.1
    anchor_body = np.array([0.08, -0.03, 0.25])
    if isinstance(body, SphereObstacle):
        anchor_body *= body.radius / np.linalg.norm(anchor_body)

    def attach(dv):
        Z = xp + h * (vp + dv[:3])
        u = h * (wb + dv[6:9])
        return precompute_dr(Z, (xb + h * (vb + dv[3:6]), so3_exp(u) @ Rn, u, body), anchor_body, mu, k, h)

    return attach, rng.normal(size=9) * 0.01, rng


@pytest.mark.parametrize(
    "body, mu, sticking",
    [
        (SphereObstacle([0, 0, 0], 0.3), 0.2, False),
        (SphereObstacle([0, 0, 0], 0.3), 5.0, True),
        (Box([0, 0, 0], [0.3, 0.2, 0.25]), 0.3, False),  # a body-frame level set that turns with the body
        (Box([0, 0, 0], [0.3, 0.2, 0.25]), 5.0, True),
    ],
)
def test_dr_force_derivatives_match_central_differences_and_the_transpose_is_adjoint(body, mu, sticking):
    attach, dv, rng = dr_case(body, mu)
    att = attach(dv)
    assert att is not None and att.phi < 0 and att.sticking is sticking
    block = dr_jacobian(att)
    fd = central_jacobian(lambda z: force_dr(attach(z)), dv)
    assert np.abs(block - fd).max() <= 1e-6 * np.abs(fd).max()
    assert np.abs(block[:, 6:]).max() > 1e-2 * np.abs(block).max()  # the rotation unknowns take part
    assert np.abs(block - block.T).max() > 1e-3 * np.abs(block).max()
    for _ in range(5):
        a, b = rng.normal(size=(2, 9))
        forward = force_diff_dr(att, b)
        assert np.allclose(forward, block @ b, rtol=0, atol=1e-12 * np.abs(block).max() * np.abs(b).max())
        lhs, rhs = a @ forward, force_diff_transpose_dr(att, a) @ b
        assert abs(lhs - rhs) <= 1e-12 * max(abs(lhs), np.abs(block).max())
    # Newton's third law: the body takes the particle's force back (the torque is applied at Y).
    force = force_dr(att)
    assert np.array_equal(force[:3], -force[3:6])


# --- the backward Euler operator with DR contacts -----------------------------------------------------------


def dr_model() -> PenaltyModel:
    """A strip of cloth over two spinning balls; one attachment slides, one sticks, one is new."""
    rng = np.random.default_rng(7)
    x = np.array([[0.0, 0.02, 0.095], [0.06, 0.0, 0.08], [0.12, 0.0, 0.11], [0.6, 0.01, 0.16], [0.66, 0.0, 0.2]])
    springs, rest = springs_within(x, 0.2)
    particles = Particles(
        x, rng.normal(size=(5, 3)) * 0.1, [0.01, 0.02, 0.015, 0.01, 0.01], springs, rest * 1.05, stiffness=50.0
    )
    spheres = Spheres(
        [[0.0, 0.0, 0.0], [0.6, 0.0, 0.1]],
        rng.normal(size=(2, 3)) * 0.1,
        rng.normal(size=(2, 3)) * 3,
        [1.0, 0.5],
        [0.1, 0.1],
        R=[so3_exp(np.array([0.3, 0.1, -0.2])), np.eye(3)],
    )
    model = PenaltyModel(particles, spheres, (), mu=0.3, stiffness=1e3)
    model.attachments[("particle_sphere", 0, 0)] = {"anchor_body": np.array([0.06, 0.0, 0.08])}  # far: slides
    near = spheres.R[1].T @ (x[3] - spheres.x[1])
    model.attachments[("particle_sphere", 3, 1)] = {"anchor_body": 0.1 * near / np.linalg.norm(near)}  # sticks
    return model


def test_operator_with_dr_contacts_matches_central_differences_and_is_adjoint():
    model = dr_model()
    ev, H = checked_operator(model, {("particle_sphere", False), ("particle_sphere", True)})
    assert len(ev.contacts) >= 3
    assert np.abs(H - H.T).max() > 1e-3 * np.abs(H).max()
    rng = np.random.default_rng(2)
    for _ in range(5):
        u, v = rng.normal(size=(2, model.ndof))
        lhs, rhs = u @ ev.matvec(v), ev.rmatvec(u) @ v
        assert abs(lhs - rhs) <= 1e-12 * max(abs(lhs), 1.0)
        assert np.allclose(ev.matvec(v), H @ v, rtol=0, atol=1e-12 * np.abs(H).max() * np.abs(v).max() * 10)


# --- physics ----------------------------------------------------------------------------------------------


def test_cloth_hitting_a_free_spinning_ball_conserves_linear_momentum():
    # No gravity, no obstacles: a 4 x 4 cloth flies down onto a spinning ball. DR forces are equal and
    # opposite (the torque acts at Y), so only Newton's residual can change the total momentum: per step
    # |dp| <= sqrt(P) |g| with |g| < tol h |M| (tol = 1e-9), far below the bound asserted here.
    n = 4
    side = np.linspace(-0.1, 0.1, n)
    gx, gy = np.meshgrid(side, side, indexing="ij")
    x = np.column_stack([gx.ravel() + 0.02, gy.ravel(), np.full(n * n, 0.115)])
    springs, rest = springs_within(x, 2 * 0.2 / (n - 1) * 1.001)
    cloth = Particles(x, np.tile([0.3, 0.0, -1.0], (n * n, 1)), np.full(n * n, 0.01), springs, rest, 50.0)
    ball = Spheres([[0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0]], [[0.0, 4.0, 0.0]], [0.2], [0.1])
    model = PenaltyModel(cloth, ball, (), mu=0.3, stiffness=1e3, gravity=np.zeros(3))
    p0, ball_p0 = model.momentum(), model.spheres.mass[0] * model.spheres.v[0].copy()
    reports = simulate_penalty(model, 150, 1e-3)
    assert all(r.newton.status is Status.CONVERGED for r in reports)
    assert max(r.contacts for r in reports) > 0 and max(r.sliding for r in reports) > 0
    assert np.linalg.norm(model.spheres.mass[0] * model.spheres.v[0] - ball_p0) > 0.1 * np.linalg.norm(p0)
    assert np.abs(model.momentum() - p0).max() <= 1e-10 * np.linalg.norm(p0)


def test_ball_under_a_cloth_keeps_rolling_without_slipping():
    # The cloth lands on the rolling ball and is dragged forward by friction, slowing the ball; the floor
    # contact must stay stuck. Under penalty friction a stuck contact still gives elastically, by at most
    # mu times its depth, so the integrated slip of the contact point is bounded by that (macroscopic slip
    # would grow with time). The bound does not shrink with h: it is the penalty spring's give.
    h = 2.5e-3
    model = build_penalty_scene("cloth-rolling-sphere", n=5)
    radius, v0 = model.spheres.radius[0], model.spheres.v[0, 0]
    slip, depth = [], []

    def observe(m, report):
        ball = m.spheres
        slip.append((ball.v[0] + np.cross(ball.omega[0], [0.0, 0.0, -radius]))[0])
        depth.append(radius - ball.x[0, 2])

    reports = simulate_penalty(model, 120, h, observer=observe)
    assert all(r.newton.status is Status.CONVERGED for r in reports)
    assert any(key[0] == "particle_sphere" for key in model.attachments)
    cloth_speed = model.particles.v[:, 0].mean()
    assert cloth_speed > 0.3 * v0 and model.spheres.v[0, 0] < 0.95 * v0  # friction passed momentum to the cloth
    assert np.abs(np.cumsum(slip) * h).max() <= model.mu * max(depth)
    assert model.spheres.omega[0, 1] * radius == pytest.approx(model.spheres.v[0, 0], rel=0.05)


def test_newton_reaches_its_tolerance_on_every_step_of_the_rolling_ball_scene():
    model = build_penalty_scene("cloth-rolling-sphere", n=6)
    h = PENALTY_SCENES["cloth-rolling-sphere"][1]
    reports = simulate_penalty(model, 80, h)
    assert all(r.newton.status is Status.CONVERGED for r in reports)
    assert max(r.newton.residual for r in reports) < 1e-9 * h * np.linalg.norm(model.mass_vector()) * G
    assert max(r.contacts for r in reports) > 1 and max(r.sliding for r in reports) > 0


# --- datasets -------------------------------------------------------------------------------------------


def test_rolling_ball_scene_exports_non_symmetric_systems_that_solve(tmp_path):
    import json

    import pandas as pd

    from qlsbench.families import build

    build(
        "penalty",
        tmp_path / "rolling",
        scene="cloth-rolling-sphere",
        params={"n": 4},
        steps=60,
        every=15,
        progress=False,
    )
    df = pd.read_parquet(tmp_path / "rolling")
    meta = pd.DataFrame([json.loads(j) for j in df.meta_json])
    touching = meta.contacts.to_numpy() > 1  # more than the ball's floor contact: the cloth is on the ball
    assert touching.any() and not df.symmetric.any()
    assert (meta.asymmetry[touching] > 1e-3).all()
    for row in df.itertuples():
        A = np.zeros((row.dim, row.dim))
        A[row.rows, row.cols] = row.vals
        assert row.dim == 2**row.n_qubits
        assert np.linalg.norm(A @ row.x_ref - row.b) <= 1e-10


# --- scene table ------------------------------------------------------------------------------------------


def test_bad_parameters_of_the_rolling_ball_scene_name_the_scene_and_parameter():
    with pytest.raises(InputError, match="cloth-rolling-sphere: radius"):
        build_penalty_scene("cloth-rolling-sphere", radius=0)
    with pytest.raises(InputError, match="cloth-rolling-sphere: n"):
        build_penalty_scene("cloth-rolling-sphere", n=1)


def test_the_workflow_schema_lists_every_penalty_scene():
    from pathlib import Path

    schema = yaml.safe_load((Path(__file__).parents[1] / "workflows/config/schema.yaml").read_text())
    penalty = schema["properties"]["penalty"]["items"]["properties"]["scene"]["enum"]
    assert tuple(penalty) == tuple(PENALTY_SCENES)
