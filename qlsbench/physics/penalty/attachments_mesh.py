"""DD attachments: a particle against a triangle mesh of particles (alg. 9, PRECOMPUTE / FORCE / FORCE_DIFF).

The attachment ``Y = sum_i w_i P_i`` lives on triangle ``e`` of the mesh and
is relaxed each step by :func:`~qlsbench.physics.penalty.mesh.relax_mesh`.
The particle ``Z`` receives ``k (Y - Z)``; the triangle's vertices receive
``w_i k (Z - Y)``, so the forces sum to zero and, ``Y`` being the weighted
vertex average, carry no net torque.

The force derivative follows ``Y`` through the chain of moves (``diff_list``)
and the weights through the final point: ``Y`` lies in the final triangle's
plane, so ``dw`` is fixed by ``dY`` and the vertex perturbations,
``dq = G (dY - sum_i w_i dP_i)`` with ``G`` from :func:`weight_map`. The paper
differentiates the weights of the last move instead; both agree, and this
form needs no extra bookkeeping.

Positions move as ``x + h dv``, so the Jacobian on ``dv`` is ``h`` times the
one on positions. :func:`force_diff_dd` and :func:`force_diff_transpose_dd` are
the paper's matrix-free routines on positions; the dense block of
:func:`particle_mesh_contact` is what the backward Euler operator applies.
"""

from __future__ import annotations

import numpy as np

from qlsbench.physics.penalty.attachments import ContactTerm
from qlsbench.physics.penalty.mesh import (
    MeshRelaxation,
    TriangleMesh,
    barycentric,
    closest_point_weights,
    relax_mesh,
    weight_map,
)


def contact_particles(mesh: TriangleMesh, relaxation: MeshRelaxation, e0: int, p: int) -> np.ndarray:
    """The particles the force depends on: ``p``, then the vertices of ``e0``, of every move and of ``e`` (sorted)."""
    touched = {int(v) for v in mesh.triangles[e0]} | {int(v) for v in mesh.triangles[relaxation.e]}
    for _, t in relaxation.chain:
        touched |= {int(v) for v in mesh.triangles[t]}
    touched.discard(p)
    return np.array([p, *sorted(touched)], dtype=np.int64)


def attachment_jacobian(mesh, x, relaxation: MeshRelaxation, e0: int, w0: np.ndarray, p: int, local: dict):
    """``dY/dx`` and ``dw/dx`` on the local particles (columns ``3 local[i] .. +2``), in position units."""
    n = 3 * len(local)

    def select(i: int) -> np.ndarray:
        S = np.zeros((3, n))
        S[:, 3 * local[i] : 3 * local[i] + 3] = np.eye(3)
        return S

    JY = sum(w0[i] * select(v) for i, v in enumerate(mesh.triangles[e0]))
    for D, t in relaxation.chain:
        JY = (
            D[:, :3] @ JY
            + D[:, 3:6] @ select(p)
            + sum(D[:, 6 + 3 * i : 9 + 3 * i] @ select(v) for i, v in enumerate(mesh.triangles[t]))
        )
    tri = mesh.triangles[relaxation.e]
    G = weight_map(*x[tri])
    Jq = G @ (JY - sum(relaxation.w[i] * select(v) for i, v in enumerate(tri)))
    return JY, np.vstack([Jq, -Jq.sum(axis=0)])


def particle_mesh_contact(
    key, mesh: TriangleMesh, x: np.ndarray, p: int, e0: int, w0: np.ndarray, mu: float, k: float, h: float
) -> ContactTerm | None:
    """PRECOMPUTE_DD and FORCE_DD for particle ``p`` attached at ``(e0, w0)``; ``None`` when inactive.

    Parameters
    ----------
    key : tuple
        ``("particle_mesh", p, surface)``.
    mesh : TriangleMesh
    x : ndarray (n, 3)
        Candidate particle positions.
    p, e0, w0 :
        The particle and its stored attachment.
    mu, k, h : float
        Friction, penalty stiffness, time step.
    """
    relaxation = relax_mesh(mesh, x, e0, w0, p, mu)
    if not relaxation.active:
        return None
    particles = contact_particles(mesh, relaxation, e0, p)
    local = {int(v): i for i, v in enumerate(particles)}
    Z, Y, w, tri = x[p], relaxation.Y, relaxation.w, mesh.triangles[relaxation.e]
    j = k * (Z - Y)
    force = np.zeros((len(particles), 3))
    force[0] = -j
    for i, v in enumerate(tri):
        force[local[int(v)]] += w[i] * j
    if relaxation.sticking:
        # A spring from Z to the fixed-weight point: -k c c^T (x) I with c = (1, -w), written so that it is
        # symmetric to the last bit (a sticking contact must not make an exported system non-symmetric).
        c = np.zeros(len(particles))
        c[0] = 1.0
        for i, v in enumerate(tri):
            c[local[int(v)]] -= w[i]
        block = -k * np.kron(np.outer(c, c), np.eye(3)).reshape(len(particles), 3, -1)
    else:
        JY, Jw = attachment_jacobian(mesh, x, relaxation, e0, w0, p, local)
        JZ = np.zeros_like(JY)
        JZ[:, :3] = np.eye(3)
        dj = k * (JZ - JY)
        block = np.zeros((len(particles), 3, JY.shape[1]))
        block[0] = -dj
        for i, v in enumerate(tri):
            block[local[int(v)]] += w[i] * dj + np.outer(j, Jw[i])
    dofs = (3 * particles[:, None] + np.arange(3)).reshape(-1)
    P0, P1, P2 = x[tri]
    normal = np.cross(P1 - P0, P2 - P0)
    depth = -float((Z - Y) @ normal / np.linalg.norm(normal))
    update = {"e0": int(relaxation.e), "w0": w.copy()} if relaxation.chain else {"e0": int(e0), "w0": np.array(w0)}
    term = ContactTerm(
        key,
        dofs,
        force.reshape(-1),
        h * block.reshape(len(dofs), -1),
        Z.copy(),
        Y.copy(),
        relaxation.sticking,
        depth,
        update,
    )
    term.relaxation = relaxation  # kept for tests and diagnostics (the path of cases)
    return term


# --- the paper's matrix-free routines (alg. 9), on positions ---------------------------------------------------


def force_dd(mesh, x, relaxation: MeshRelaxation, p: int, k: float) -> np.ndarray:
    """FORCE_DD: the forces ``(n, 3)`` on every particle."""
    f = np.zeros_like(x)
    j = k * (x[p] - relaxation.Y)
    f[p] -= j
    for i, v in enumerate(mesh.triangles[relaxation.e]):
        f[v] += relaxation.w[i] * j
    return f


def force_diff_dd(mesh, x, relaxation: MeshRelaxation, e0: int, w0, p: int, k: float, du: np.ndarray) -> np.ndarray:
    """FORCE_DIFF_DD: ``df`` for position perturbations ``du (n, 3)``."""
    dY = sum(w0[i] * du[v] for i, v in enumerate(mesh.triangles[e0]))
    for D, t in relaxation.chain:
        dY = (
            D[:, :3] @ dY
            + D[:, 3:6] @ du[p]
            + sum(D[:, 6 + 3 * i : 9 + 3 * i] @ du[v] for i, v in enumerate(mesh.triangles[t]))
        )
    tri, w = mesh.triangles[relaxation.e], relaxation.w
    dq = weight_map(*x[tri]) @ (dY - sum(w[i] * du[v] for i, v in enumerate(tri)))
    dw = np.array([dq[0], dq[1], -dq[0] - dq[1]])
    j, dj = k * (x[p] - relaxation.Y), k * (du[p] - dY)
    df = np.zeros_like(du)
    df[p] -= dj
    for i, v in enumerate(tri):
        df[v] += w[i] * dj + dw[i] * j
    return df


def force_diff_transpose_dd(
    mesh, x, relaxation: MeshRelaxation, e0: int, w0, p: int, k: float, a: np.ndarray
) -> np.ndarray:
    """FORCE_DIFF_TRANSPOSE_DD: the adjoint of :func:`force_diff_dd`, written out (the chain runs backwards)."""
    tri, w = mesh.triangles[relaxation.e], relaxation.w
    j = k * (x[p] - relaxation.Y)
    out = np.zeros_like(a)
    g_dj = -a[p] + sum(w[i] * a[v] for i, v in enumerate(tri))  # adjoint of df[p] = -dj, df[v_i] += w_i dj
    g_dw = np.array([j @ a[v] for v in tri])  # of df[v_i] += dw_i j
    g_r = weight_map(*x[tri]).T @ (g_dw[:2] - g_dw[2])  # of dw = (dq, -sum dq), dq = G r
    for i, v in enumerate(tri):  # r = dY - sum_i w_i du[v_i]
        out[v] -= w[i] * g_r
    out[p] += k * g_dj  # dj = k (du[p] - dY)
    g_Y = g_r - k * g_dj
    for D, t in reversed(relaxation.chain):
        out[p] += D[:, 3:6].T @ g_Y
        for i, v in enumerate(mesh.triangles[t]):
            out[v] += D[:, 6 + 3 * i : 9 + 3 * i].T @ g_Y
        g_Y = D[:, :3].T @ g_Y
    for i, v in enumerate(mesh.triangles[e0]):
        out[v] += w0[i] * g_Y
    return out


# --- registering new pairs --------------------------------------------------------------------------------------


def _plane_distances(x: np.ndarray, tris: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Signed distance of each point (rows) from each triangle's plane (columns)."""
    P0, P1, P2 = x[tris[:, 0]], x[tris[:, 1]], x[tris[:, 2]]
    n = np.cross(P1 - P0, P2 - P0)
    n /= np.linalg.norm(n, axis=1)[:, None]
    return np.einsum("tk,ptk->pt", n, points[:, None, :] - P2[None])


def detect_crossings(mesh: TriangleMesh, x_start: np.ndarray, x_end: np.ndarray, candidates: np.ndarray):
    """New DD contacts: particles that crossed a triangle's plane from the front, inside the triangle.

    Each candidate ``p`` with ``s0 > 0 >= s1`` (signed plane distances at the
    start and end of the step) is tested at the crossing time ``tau = s0/(s0 - s1)``
    of the linear motion: its barycentric weights in the interpolated triangle
    must be ``>= -1e-12`` (exact for a still triangle, ``O(h^2)`` otherwise).

    Returns
    -------
    list of (p, t, w0)
        One per crossing particle: the earliest triangle (lowest index on
        ties) and the weights of the start position's nearest point on it;
        these depend only on the start of the step, as a DI anchor does.
    """
    if not len(candidates):
        return []
    tris = mesh.triangles
    s0 = _plane_distances(x_start, tris, x_start[candidates])
    s1 = _plane_distances(x_end, tris, x_end[candidates])
    crossed = (s0 > 0) & (s1 <= 0)
    if mesh.self_collision:
        for row, p in enumerate(candidates):
            near = mesh.near(int(p))
            crossed[row] &= ~np.isin(tris, list(near)).any(axis=1)
    found = []
    for row, t in zip(*np.nonzero(crossed), strict=True):
        p = int(candidates[row])
        tau = s0[row, t] / (s0[row, t] - s1[row, t])
        idx = np.array([p, *tris[t]])
        at = x_start[idx] + tau * (x_end[idx] - x_start[idx])
        if np.all(barycentric(*at) >= -1e-12):
            found.append((tau, p, int(t)))
    chosen: dict[int, int] = {}
    for _tau, p, t in sorted(found):  # earliest crossing first, then the lowest triangle
        chosen.setdefault(p, t)
    return [(p, t, closest_point_weights(x_start[p], *x_start[tris[t]])) for p, t in sorted(chosen.items())]
