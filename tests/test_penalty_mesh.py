"""DD contacts of the penalty family (seed 001, alg. 9-12): jets, mesh relaxation, force derivatives, physics."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest
import yaml
from finite_differences import central_jacobian

from qlsbench.errors import InputError
from qlsbench.families import build
from qlsbench.outcomes import Status
from qlsbench.physics.penalty import (
    PENALTY_SCENES,
    Particles,
    PenaltyModel,
    PenaltyNewtonOptions,
    Spheres,
    build_penalty_scene,
    evaluate,
    jets,
    simulate_penalty,
)
from qlsbench.physics.penalty.attachments_mesh import (
    force_dd,
    force_diff_dd,
    force_diff_transpose_dd,
    particle_mesh_contact,
)
from qlsbench.physics.penalty.jets import Jet
from qlsbench.physics.penalty.mesh import (
    TriangleMesh,
    barycentric,
    closest_point_weights,
    edge_move,
    relax_mesh,
    triangle_move,
    visit_cap,
)
from qlsbench.physics.penalty.scenes import grid_cloth, incline_frame

G = 9.81
ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def grid(n=5, size=1.0):
    """The brief's fixture grid: vertex (i, j) = n i + j at (i, j)/(n - 1), triangles facing +z."""
    x, _, _, triangles = grid_cloth(n, size, np.eye(3), np.zeros(3))
    return x, TriangleMesh(triangles)


X5, MESH5 = grid()
SHAPES = {
    "flat": X5.copy(),
    "valley": X5 + np.column_stack([0 * X5[:, :2], 0.4 * np.abs(X5[:, 0] - 0.5)]),
    "cone": X5 + np.column_stack([0 * X5[:, :2], 0.5 * np.hypot(X5[:, 0] - 0.5, X5[:, 1] - 0.5)]),
}
W0, W1 = np.array([0.2, 0.3, 0.5]), np.array([0.3, 0.3, 0.4])

# name: (shape, e0, w0, Z from the start point X, mu, expected cases) -- brief section 7
FIXTURES = {
    "sticks": ("flat", 10, W0, lambda X: X + [0.001, 0.0005, -0.05], 0.5, ["initial"]),
    "slides in triangle": ("flat", 10, W0, lambda X: X + [0.02, -0.01, -0.05], 0.3, ["initial"]),
    "crosses edges": ("flat", 10, W0, lambda X: X + [0.3, 0.17, -0.05], 0.2, ["initial", "triangle", "triangle"]),
    "valley, edge case": (
        "valley",
        2,
        W1,
        lambda X: [0.51, X[1] + 0.3, -0.3],
        0.1,
        ["initial"] + ["triangle"] * 3 + ["edge"],
    ),
    "valley, through a vertex": (
        "valley",
        2,
        W1,
        lambda X: [0.51, 0.8, -0.3],
        0.1,
        ["initial"] + ["triangle"] * 3 + ["edge", "vertex", "edge"],
    ),
    "cone, ends at apex": (
        "cone",
        10,
        W0,
        lambda X: [0.52, 0.49, -0.3],
        0.05,
        ["initial", "triangle", "edge", "vertex"],
    ),
}


def fixture_state(name):
    shape, e0, w0, Z_of, mu, cases = FIXTURES[name]
    X = w0 @ SHAPES[shape][MESH5.triangles[e0]]
    x = np.vstack([SHAPES[shape], np.asarray(Z_of(X), dtype=float)])
    return x, len(x) - 1, e0, w0, mu, cases


# --- jets and single moves ----------------------------------------------------------------------------------


def test_jets_match_central_differences():
    rng = np.random.default_rng(0)
    a0, b0 = rng.normal(size=(2, 3))

    def f(v):
        a, b = Jet.variable(v[:3], 0, 6), Jet.variable(v[3:], 1, 6)
        c = jets.cross(a, b)
        s = jets.dot(a, c + b) / jets.norm(b) - jets.sqrt(jets.dot(a, a)) * 2.0
        return (jets.absolute(s) * c + (1.0 - a) / s).value, (jets.absolute(s) * c + (1.0 - a) / s).grad

    v = np.concatenate([a0, b0])
    assert np.allclose(f(v)[1], central_jacobian(lambda z: f(z)[0], v), rtol=0, atol=1e-7 * np.abs(f(v)[1]).max())


@pytest.mark.parametrize("Z, expect_exit", [([0.3, 0.25, -0.2], None), ([1.5, 0.2, -0.1], 0)])
def test_triangle_move_derivatives_match_central_differences(Z, expect_exit):
    A, B, C = np.array([0.0, 0.0, 0.0]), np.array([1.0, 0.1, 0.05]), np.array([0.1, 0.9, -0.04])
    X = 0.2 * A + 0.3 * B + 0.5 * C
    inside, move = triangle_move(X, np.array(Z), A, B, C, 0.2)
    assert inside and move.exit == expect_exit
    # exit 0 means the edge opposite the first vertex was hit: that weight is 0 and Y lies on the triangle
    assert np.allclose(move.w @ np.array([A, B, C]), move.Y, atol=1e-14) and move.w.min() >= -1e-14
    fd = central_jacobian(lambda v: triangle_move(*v.reshape(5, 3), 0.2)[1].Y, np.concatenate([X, Z, A, B, C]))
    assert np.abs(move.D - fd).max() <= 1e-6 * np.abs(fd).max()


@pytest.mark.parametrize("Z, end", [([0.4, 0.1, -0.2], None), ([-0.5, 0.3, -0.1], 1)])
def test_edge_move_derivatives_match_central_differences(Z, end):
    A, B = np.array([1.0, 0.0, 0.1]), np.array([0.0, 0.05, 0.0])
    X = 0.8 * A + 0.2 * B
    move = edge_move(X, np.array(Z), A, B, 0.3)
    assert move.end == end
    fd = central_jacobian(lambda v: edge_move(*v.reshape(4, 3), 0.3).Y, np.concatenate([X, Z, A, B]))
    assert np.abs(move.D[:, :12] - fd).max() <= 1e-6 * max(np.abs(fd).max(), 1.0)
    assert not move.D[:, 12:].any()


def test_barycentric_and_closest_point_weights():
    A, B, C = np.array([0.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    assert np.allclose(barycentric(np.array([0.2, 0.3, 0.7]), A, B, C), [0.5, 0.2, 0.3])
    assert np.allclose(closest_point_weights(np.array([2.0, -1.0, 0.3]), A, B, C), [0.0, 1.0, 0.0])
    assert np.allclose(closest_point_weights(np.array([0.5, -0.2, 0.0]), A, B, C), [0.5, 0.5, 0.0])


def test_triangle_mesh_rejects_flipped_and_non_manifold_triangles():
    with pytest.raises(InputError, match="same direction"):
        TriangleMesh(np.array([[0, 1, 2], [0, 1, 3]]))  # the second is flipped against the first
    with pytest.raises(InputError, match="same direction"):
        TriangleMesh(np.array([[0, 1, 2], [1, 0, 3], [1, 0, 4]]))  # three triangles on one edge
    with pytest.raises(InputError, match="repeats a vertex"):
        TriangleMesh(np.array([[0, 1, 1]]))
    mesh = TriangleMesh(np.array([[0, 1, 2], [0, 2, 3]]))
    assert mesh.across.tolist() == [[-1, 1, -1], [-1, -1, 0]]
    assert mesh.triangles_of_edge((0, 2)) == (0, 1) and mesh.neighbors(0) == (1, 2, 3)


# --- RELAX_MESH -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(FIXTURES))
def test_relaxation_follows_the_expected_path_and_its_derivatives_are_exact(name):
    x, p, e0, w0, mu, cases = fixture_state(name)
    k = 100.0
    r = relax_mesh(MESH5, x, e0, w0, p, mu)
    assert r.active and [case for case, _ in r.path] == cases
    assert np.allclose(r.w @ x[MESH5.triangles[r.e]], r.Y, rtol=0, atol=1e-12) and r.w.min() >= -1e-12
    assert r.sticking == (name == "sticks")

    def force(v):
        xs = v.reshape(-1, 3)
        rs = relax_mesh(MESH5, xs, e0, w0, p, mu)
        assert rs.path == r.path  # finite differences across a change of path would be meaningless
        return force_dd(MESH5, xs, rs, p, k).reshape(-1)

    term = particle_mesh_contact(("particle_mesh", p, 0), MESH5, x, p, e0, w0, mu, k, 1.0)
    block = np.zeros((x.size, x.size))
    block[np.ix_(term.dofs, term.dofs)] = term.jacobian
    fd = central_jacobian(force, x.reshape(-1))
    assert np.abs(block - fd).max() <= 1e-6 * np.abs(fd).max()
    # The paper's matrix-free routines: the same product as the block, and adjoint to each other.
    rng = np.random.default_rng(1)
    for _ in range(3):
        a, b = rng.normal(size=(2, *x.shape))
        Hb = force_diff_dd(MESH5, x, r, e0, w0, p, k, b)
        assert np.allclose(Hb.reshape(-1), block @ b.reshape(-1), rtol=0, atol=1e-12 * np.abs(block).max())
        lhs, rhs = np.sum(a * Hb), np.sum(force_diff_transpose_dd(MESH5, x, r, e0, w0, p, k, a) * b)
        assert abs(lhs - rhs) <= 1e-12 * max(abs(lhs), 1.0)
    # Equal and opposite, no net torque: Y is the weighted average of the triangle's vertices.
    f = force_dd(MESH5, x, r, p, k)
    assert np.abs(f.sum(0)).max() <= 1e-12 * np.abs(f).max()
    assert np.abs(np.cross(x, f).sum(0)).max() <= 1e-12 * np.abs(f).max()


def random_surface(kind, rng, n=6):
    x, mesh = grid(n)
    r2 = (x[:, 0] - 0.5) ** 2 + (x[:, 1] - 0.5) ** 2
    x[:, 2] = {"jittered": 0.03 * rng.normal(size=len(x)), "bowl": 0.6 * r2, "dome": -0.6 * r2}[kind]
    return x, mesh


def test_relaxation_terminates_within_the_supplements_visit_bounds_on_random_meshes_and_pulls():
    # Supplement section 2: an edge is handled in case 3 at most once and a vertex visited at most twice;
    # triangles have no proven bound, so only the cap (4 x primitives) guards them. Each case is also a
    # descent step: the attachment never ends farther from Z than it started.
    rng = np.random.default_rng(7)
    longest, ends = 0, Counter()
    for kind in ("jittered", "bowl", "dome"):
        x, mesh = random_surface(kind, rng)
        for _ in range(40):
            e0, w0 = int(rng.integers(len(mesh.triangles))), rng.dirichlet([2, 2, 2])
            X = w0 @ x[mesh.triangles[e0]]
            Z = X + np.array([*rng.normal(scale=0.25, size=2), -abs(rng.normal(scale=0.1)) - 0.01])
            xs = np.vstack([x, Z])
            r = relax_mesh(mesh, xs, e0, w0, len(x), float(rng.choice([0.0, 0.1, 0.3, 0.8])))
            visits = Counter(r.path)
            assert r.path[0] == ("initial", e0) and visits[("initial", e0)] == 1
            assert all(count <= 1 for (case, _), count in visits.items() if case == "edge")
            assert all(count <= 2 for (case, _), count in visits.items() if case == "vertex")
            assert len(r.path) < visit_cap(mesh)
            longest = max(longest, len(r.path))
            ends[r.path[-1][0] if r.active else "inactive"] += 1
            if r.active:
                assert np.allclose(r.w @ xs[mesh.triangles[r.e]], r.Y, rtol=0, atol=1e-12)
                assert r.w.min() >= -1e-12 and abs(r.w.sum() - 1) < 1e-12
                assert np.linalg.norm(r.Y - Z) <= np.linalg.norm(X - Z) + 1e-12
    assert ends["edge"] + ends["vertex"] > 0 and ends["triangle"] > 0 and ends["inactive"] > 0, ends
    assert longest >= 5, longest  # the fuzz does reach long walks


# --- the backward Euler operator with DD contacts -----------------------------------------------------------


def mesh_model(name) -> PenaltyModel:
    """A free cloth patch (a fixture's shape) as a surface, the fixture's particle and a sticking one on it."""
    x, p, e0, w0, mu, _ = fixture_state(name)
    P0, P1, P2 = x[:-1][MESH5.triangles[6]]
    normal = np.cross(P1 - P0, P2 - P0)
    sticking = (P0 + P1 + P2) / 3 - 0.05 * normal / np.linalg.norm(normal)  # straight below: inside the cone
    x = np.vstack([x, sticking])
    rng = np.random.default_rng(3)
    _, springs, rest, _ = grid_cloth(5, 1.0, np.eye(3), np.zeros(3))
    rest = np.linalg.norm(x[springs[:, 1]] - x[springs[:, 0]], axis=1) * 1.02
    particles = Particles(x, rng.normal(size=x.shape) * 0.01, np.full(len(x), 0.01), springs, rest, 50.0)
    model = PenaltyModel(particles, Spheres.empty(), (), mu=mu, stiffness=100.0, surfaces=(MESH5,))
    model.attachments[("particle_mesh", p, 0)] = {"e0": e0, "w0": w0}
    model.attachments[("particle_mesh", p + 1, 0)] = {"e0": 6, "w0": np.full(3, 1 / 3)}
    return model


@pytest.mark.parametrize("name", ["slides in triangle", "crosses edges", "valley, through a vertex"])
def test_dd_force_derivatives_match_central_differences_in_the_backward_euler_residual(name):
    model, h = mesh_model(name), 1e-2
    dv = np.random.default_rng(1).normal(size=model.ndof) * 0.01
    ev = evaluate(model, dv, h)
    assert {(t.key[0], t.sticking) for t in ev.contacts} == {("particle_mesh", False), ("particle_mesh", True)}
    paths = [t.relaxation.path for t in ev.contacts]
    assert Counter(c for c, _ in paths[0]) == Counter(fixture_state(name)[-1])

    def g(z):
        e = evaluate(model, z, h)
        assert [t.relaxation.path for t in e.contacts] == paths  # no case switch within the differences
        return e.g

    H = ev.matrix().toarray()
    fd = central_jacobian(g, dv)
    assert np.abs(H - fd).max() <= 1e-6 * np.abs(H).max()
    assert np.abs(H - H.T).max() > 1e-3 * np.abs(H).max()  # sliding DD contacts make H non-symmetric


def test_operator_with_dd_contacts_and_its_transpose_are_adjoint():
    model, h = mesh_model("valley, through a vertex"), 1e-2
    ev = evaluate(model, np.zeros(model.ndof), h)
    H = ev.matrix().toarray()
    rng = np.random.default_rng(2)
    for _ in range(5):
        u, v = rng.normal(size=(2, model.ndof))
        lhs, rhs = u @ ev.matvec(v), ev.rmatvec(u) @ v
        assert abs(lhs - rhs) <= 1e-12 * max(abs(lhs), 1.0)
        assert np.allclose(ev.rmatvec(u), H.T @ u, rtol=0, atol=1e-12 * np.abs(H).max())
        assert np.allclose(ev.matvec(v), H @ v, rtol=0, atol=1e-12 * np.abs(H).max())


# --- physics ----------------------------------------------------------------------------------------------------


def test_two_free_cloths_colliding_conserve_linear_momentum():
    # No gravity, no obstacles: DD forces are equal and opposite (the particle's -j against w_i j on the
    # triangle), springs too, so backward Euler changes the total momentum only by the Newton residual:
    # the sum of g_i over the P particles, |sum_i g_i| <= sqrt(P) |g| (Cauchy-Schwarz) < sqrt(P) tol h |M| per step.
    xb, sb, rb, tb = grid_cloth(4, 0.3, np.eye(3), np.zeros(3))
    xt, st, rt, tt = grid_cloth(4, 0.2, np.eye(3), [0.037, 0.051, 0.03])
    nb = len(xb)
    v = np.zeros((2 * nb, 3))
    v[nb:] = [0.3, 0.0, -1.0]
    particles = Particles(
        np.vstack([xb, xt]), v, np.full(2 * nb, 0.02 / nb), np.vstack([sb, st + nb]), np.concatenate([rb, rt]), 50.0
    )
    model = PenaltyModel(
        particles,
        Spheres.empty(),
        (),
        mu=0.3,
        stiffness=1e3,
        gravity=np.zeros(3),
        surfaces=(TriangleMesh(tb), TriangleMesh(tt + nb)),
    )
    p0, bottom0 = model.momentum(), model.particles.mass[:nb] @ model.particles.v[:nb]
    options, h, steps = PenaltyNewtonOptions(), 1e-3, 150
    reports = simulate_penalty(model, steps, h, options)
    assert all(r.newton.status is Status.CONVERGED for r in reports)
    assert max(r.contacts for r in reports) > 0 and max(r.sliding for r in reports) > 0
    bottom = model.particles.mass[:nb] @ model.particles.v[:nb]
    assert np.linalg.norm(bottom - bottom0) >= 0.1 * np.linalg.norm(p0)  # the top cloth did push the bottom one
    # scale = h |M| max(|gravity|, 1) = h |M| here (see time_step)
    bound = steps * np.sqrt(model.n_particles) * options.tol * h * np.linalg.norm(model.mass_vector())
    assert np.linalg.norm(model.momentum() - p0) <= bound + 1e-15
    assert np.linalg.norm(model.momentum() - p0) <= 1e-10 * np.linalg.norm(p0)


def _run_cloth_on_cloth(angle, h, seconds, **params):
    model = build_penalty_scene("cloth-on-cloth", angle=angle, n=5, top_n=3, **params)
    nb = 25
    downhill = incline_frame(np.radians(angle))[0]
    t, top, bottom = [], [], []

    def observe(m, r):
        t.append(m.time)
        top.append(m.particles.x[nb:].mean(0) @ downhill)
        bottom.append(m.particles.x[:nb].mean(0) @ downhill)

    reports = simulate_penalty(model, int(round(seconds / h)), h, observer=observe)
    assert all(r.newton.status is Status.CONVERGED for r in reports)
    return model, np.array(t), np.array(top), np.array(bottom), reports


def test_cloth_on_cloth_on_an_incline_sticks_below_tan_theta_equal_mu():
    model, t, s, sb, reports = _run_cloth_on_cloth(10.0, 4e-3, 0.5, mu=0.3)  # tan 10 = 0.18 < 0.3
    dd = [k for k in model.attachments if k[0] == "particle_mesh"]
    assert len(dd) == 9  # every top particle rests on the bottom cloth
    assert abs(s[-1] - s[len(s) // 2]) < 1e-4  # the contact springs' elastic give, no creep
    assert np.abs(model.particles.v[25:]).max() < 1e-2
    assert reports[-1].sliding == 0
    assert abs(sb[-1] - sb[0]) < 1e-3


def test_cloth_on_cloth_on_an_incline_slides_with_the_coulomb_acceleration():
    # tan 30 = 0.58 > mu = 0.3: a* = g (sin - mu cos) = 2.356 m/s^2. Backward Euler reproduces a constant
    # acceleration exactly in the velocity (v_{n+1} = v_n + h a), so the fitted a carries no O(h) term:
    # measured |a/a* - 1| = 7.1e-5 at h = 4e-3 and 6.8e-5 at h = 2e-3 (the penalty contacts' settling, the
    # fit's floor). The scheme's O(h) error is in the positions, x_n = a t^2/2 + a h t/2, first order in h.
    angle, mu = 30.0, 0.3
    expected = G * (np.sin(np.radians(angle)) - mu * np.cos(np.radians(angle)))
    errors = []
    for h in (4e-3, 2e-3):
        model, t, s, sb, reports = _run_cloth_on_cloth(angle, h, 0.3, mu=mu)
        late = t > 0.1  # after the top cloth has dropped its gap and settled into the bottom one
        a = 2.0 * np.polyfit(t[late], s[late], 2)[0]
        errors.append(abs(a / expected - 1))
        assert reports[-1].sliding >= 9  # every top particle's DD contact slides
        assert abs(sb[-1] - sb[0]) < 1e-3  # the bottom cloth holds on the ground
    assert errors[1] <= 0.02
    assert errors[0] / errors[1] >= 1.6 or max(errors) < 1e-3, errors


def test_newton_reaches_its_tolerance_on_every_step_of_two_cloths_sliding():
    model = build_penalty_scene("cloth-on-cloth", angle=0.0, speed=0.5, n=5, top_n=3)
    h = PENALTY_SCENES["cloth-on-cloth"][1]
    options = PenaltyNewtonOptions()
    reports = simulate_penalty(model, 80, h, options)
    scale = h * np.linalg.norm(model.mass_vector()) * G
    assert all(r.newton.status is Status.CONVERGED for r in reports)
    assert max(r.newton.residual for r in reports) < options.tol * scale
    assert max(r.sliding for r in reports) > 0
    assert model.particles.v[25:, 0].mean() < 0.5  # friction slows the top cloth


# --- datasets and inputs ------------------------------------------------------------------------------------


def test_cloth_on_cloth_exports_non_symmetric_systems_that_solve(tmp_path):
    build(
        "penalty",
        tmp_path,
        scene="cloth-on-cloth",
        params={"angle": 0, "speed": 0.3, "n": 4, "top_n": 2},
        steps=60,
        every=6,
        progress=False,
    )
    df = pd.read_parquet(tmp_path)
    meta = pd.DataFrame([json.loads(j) for j in df.meta_json])
    sliding = meta.sliding.to_numpy() > 0
    assert sliding.any() and (~sliding).any()
    assert not df.symmetric[sliding].any() and (meta.asymmetry[sliding] > 1e-3).all()
    assert df.symmetric[~sliding].all() and (meta.asymmetry[~sliding] == 0).all()  # sticking DD blocks are exact
    for row in df.itertuples():
        A = np.zeros((row.dim, row.dim))
        A[row.rows, row.cols] = row.vals
        assert np.linalg.norm(A @ row.x_ref - row.b) <= 1e-10


def test_bad_cloth_on_cloth_parameters_name_the_scene_and_parameter():
    with pytest.raises(InputError, match="cloth-on-cloth: top_n"):
        build_penalty_scene("cloth-on-cloth", top_n=1)
    with pytest.raises(InputError, match="cloth-on-cloth: ground_mu"):
        build_penalty_scene("cloth-on-cloth", ground_mu=-1)
    with pytest.raises(InputError, match="cloth-on-cloth: top_size"):
        build_penalty_scene("cloth-on-cloth", top_size=0.8)
    with pytest.raises(InputError, match="surface 0 uses particle"):
        PenaltyModel(Particles.empty(), Spheres.empty(), (), 0.1, 1.0, surfaces=(MESH5,))


def test_workflow_schema_lists_every_penalty_scene():
    schema = yaml.safe_load((ROOT / "workflows/config/schema.yaml").read_text())
    found = []

    def walk(node):
        if isinstance(node, dict):
            if "penalty" in node and isinstance(node["penalty"], dict):
                found.append(node["penalty"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    enums = [n["items"]["properties"]["scene"]["enum"] for n in found if "items" in n]
    assert enums and all(tuple(e) == tuple(PENALTY_SCENES) for e in enums)
