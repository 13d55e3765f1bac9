"""Triangle meshes of particles and the relaxation of an attachment across them (alg. 10-12, RELAX_MESH).

A deformable body's surface is a :class:`TriangleMesh` whose vertices are
particles. A particle ``Z`` touching it is attached to a point ``Y`` given by
a triangle and barycentric weights. Each step the attachment is relaxed from
its previous point ``X`` towards the projection of ``Z``, but only as far as
the Coulomb cone allows (``|Y - P| <= mu |Z - P|`` in the plane), walking
across the mesh through four cases (supplement section 2): 1 initial (the
stored triangle), 2 triangle, 3 edge, 4 point (vertex).

Every move records the Jacobian of the new ``Y`` with respect to the move's
inputs ``(X, Z, P0, P1, P2)`` (forward-mode :mod:`jets`), the paper's
``diff_list``; the force derivative chains them (:mod:`attachments_mesh`).

Termination: the distance ``|Y - Z|`` falls strictly with each move, so the
supplement proves that the walk ends, that an edge is handled in case 3 at most
once and a vertex at most twice; it gives no bound on triangle visits. The walk
is therefore capped (:func:`visit_cap`) and reaching the cap raises.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qlsbench.errors import InputError
from qlsbench.physics.penalty import jets
from qlsbench.physics.penalty.jets import Jet, cross3

#: Barycentric weights this close to 1 snap to the vertex; in-plane tests use it as their zero.
SMALL = 128 * np.finfo(float).eps


def _edge(a, b) -> tuple[int, int]:
    return (int(a), int(b)) if a < b else (int(b), int(a))


@dataclass(frozen=True, eq=False)
class TriangleMesh:
    """An oriented manifold triangle mesh over particle indices.

    Parameters
    ----------
    triangles : ndarray (T, 3) of int
        Particle indices, counter-clockwise seen from the side contacts come
        from (the normal ``(P1 - P0) x (P2 - P0)`` points out of the body).
    self_collision : bool
        Whether the mesh's own particles may touch it (excluding the
        triangles within two rings of the particle).

    Attributes
    ----------
    edges : ndarray (E, 2)
        Sorted vertex pairs.
    edge_triangles : ndarray (E, 2)
        The one or two triangles of each edge, lowest first; ``-1`` on a boundary.
    across : ndarray (T, 3)
        The triangle across the edge opposite local vertex ``k`` (``-1`` on a boundary).
    """

    triangles: np.ndarray
    self_collision: bool = False
    edges: np.ndarray = field(init=False, repr=False)
    edge_triangles: np.ndarray = field(init=False, repr=False)
    across: np.ndarray = field(init=False, repr=False)
    _edge_index: dict = field(init=False, repr=False)
    _vertex_triangles: dict = field(init=False, repr=False)
    _vertex_neighbors: dict = field(init=False, repr=False)

    def __post_init__(self):
        tris = np.asarray(self.triangles)
        if tris.ndim != 2 or tris.shape[1] != 3 or not len(tris):
            raise InputError(f"TriangleMesh.triangles must have shape (T, 3) with T >= 1, got {tris.shape}")
        if not np.issubdtype(tris.dtype, np.integer) or tris.min() < 0:
            raise InputError("TriangleMesh.triangles must hold non-negative integer particle indices")
        tris = tris.astype(np.int64)
        if np.any((tris[:, 0] == tris[:, 1]) | (tris[:, 1] == tris[:, 2]) | (tris[:, 0] == tris[:, 2])):
            raise InputError("TriangleMesh: a triangle repeats a vertex")
        directed, by_edge = set(), {}
        for t, tri in enumerate(tris):
            for k in range(3):
                a, b = int(tri[(k + 1) % 3]), int(tri[(k + 2) % 3])
                if (a, b) in directed:  # two triangles using an edge the same way: flipped or non-manifold
                    raise InputError(
                        f"TriangleMesh: edge ({a}, {b}) is used twice in the same direction "
                        "(inconsistent orientation or more than two triangles)"
                    )
                directed.add((a, b))
                by_edge.setdefault(_edge(a, b), []).append(t)
        edges = sorted(by_edge)
        edge_triangles = np.full((len(edges), 2), -1, dtype=np.int64)
        for i, e in enumerate(edges):
            edge_triangles[i, : len(by_edge[e])] = sorted(by_edge[e])
        index = {e: i for i, e in enumerate(edges)}
        across = np.full((len(tris), 3), -1, dtype=np.int64)
        for t, tri in enumerate(tris):
            for k in range(3):
                pair = edge_triangles[index[_edge(tri[(k + 1) % 3], tri[(k + 2) % 3])]]
                across[t, k] = pair[1] if pair[0] == t else pair[0]
        vertex_triangles, neighbors = {}, {}
        for t, tri in enumerate(tris):
            for k in range(3):
                vertex_triangles.setdefault(int(tri[k]), []).append(t)
                neighbors.setdefault(int(tri[k]), set()).update(int(q) for q in tri if q != tri[k])
        for name, value in (
            ("triangles", tris),
            ("edges", np.array(edges, dtype=np.int64).reshape(-1, 2)),
            ("edge_triangles", edge_triangles),
            ("across", across),
            ("_edge_index", index),
            ("_vertex_triangles", {v: tuple(ts) for v, ts in vertex_triangles.items()}),
            ("_vertex_neighbors", {v: tuple(sorted(q)) for v, q in neighbors.items()}),
        ):
            object.__setattr__(self, name, value)

    @property
    def vertices(self) -> np.ndarray:
        """The particle indices the mesh uses, sorted."""
        return np.unique(self.triangles)

    def triangles_of_edge(self, edge: tuple[int, int]) -> tuple[int, ...]:
        return tuple(int(t) for t in self.edge_triangles[self._edge_index[edge]] if t >= 0)

    def triangles_of_vertex(self, v: int) -> tuple[int, ...]:
        return self._vertex_triangles[v]

    def neighbors(self, v: int) -> tuple[int, ...]:
        return self._vertex_neighbors[v]

    def near(self, v: int, rings: int = 2) -> set[int]:
        """Vertices within ``rings`` edges of ``v`` (``v`` included)."""
        found = {v}
        for _ in range(rings):
            found |= {q for u in found for q in self._vertex_neighbors.get(u, ())}
        return found


def visit_cap(mesh: TriangleMesh) -> int:
    """The relaxation's cap on case visits: four times the number of primitives.

    The supplement's bounds (vertex <= 2, edge <= 1) leave triangles
    unbounded in theory; in practice each primitive is visited once.
    """
    return 4 * (len(mesh.vertices) + len(mesh.edges) + len(mesh.triangles))


# --- barycentric weights --------------------------------------------------------------------------------------


def weight_map(P0: np.ndarray, P1: np.ndarray, P2: np.ndarray) -> np.ndarray:
    """``G = (M^T M)^-1 M^T``, ``M = [P0 - P2, P1 - P2]``: the first two weights of an in-plane point ``P2 + M q``."""
    M = np.column_stack([P0 - P2, P1 - P2])
    return np.linalg.solve(M.T @ M, M.T)


def barycentric(Y: np.ndarray, P0: np.ndarray, P1: np.ndarray, P2: np.ndarray) -> np.ndarray:
    """Weights ``w`` (summing to 1) of the projection of ``Y`` onto the triangle's plane."""
    q = weight_map(P0, P1, P2) @ (Y - P2)
    return np.array([q[0], q[1], 1.0 - q[0] - q[1]])


def closest_point_weights(Y: np.ndarray, P0: np.ndarray, P1: np.ndarray, P2: np.ndarray) -> np.ndarray:
    """Weights of the point of the (closed) triangle nearest ``Y``: all ``>= 0``, summing to 1."""
    w = barycentric(Y, P0, P1, P2)
    if np.all(w >= 0):
        return w
    corners = (P0, P1, P2)
    best, best_w = np.inf, None
    for i, j in ((0, 1), (1, 2), (2, 0)):  # outside: the nearest point lies on an edge
        d = corners[j] - corners[i]
        s = float(np.clip((Y - corners[i]) @ d / (d @ d), 0.0, 1.0))
        dist = float(np.linalg.norm(corners[i] + s * d - Y))
        if dist < best:
            best, best_w = dist, np.zeros(3)
            best_w[i], best_w[j] = 1.0 - s, s
    assert best_w is not None, "a triangle with finite corners has a nearest point on one of its edges"
    return best_w


# --- one move of each case ------------------------------------------------------------------------------------


@dataclass
class Move:
    """One relaxation move: the new point ``Y`` with its Jacobian ``D`` (3 x 15, columns ``X, Z, P0, P1, P2``).

    ``w`` are the new point's weights in the triangle of the move; ``exit``
    (triangle moves) is the local vertex opposite the edge the move was
    clipped at, ``end`` (edge moves) the local index (0 = A, 1 = B) of the
    endpoint it was clamped to.
    """

    Y: np.ndarray
    D: np.ndarray
    w: np.ndarray
    exit: int | None = None
    end: int | None = None


def _clip(q0: Jet, q1: Jet, r0: Jet, r1: Jet) -> tuple[Jet, Jet, int | None]:
    """Clip the move ``r -> q`` in reference coordinates at the first edge it leaves the triangle by."""
    exit_ = None
    if q0.value < 0:  # leaves through edge P1-P2, opposite P0
        exit_ = 0
        q1, q0 = r1 + (q1 - r1) * (r0 / (r0 - q0)), q0 * 0.0
    if q1.value < 0:  # through edge P2-P0
        exit_ = 1
        q0, q1 = r0 + (q0 - r0) * (r1 / (r1 - q1)), q1 * 0.0
    if q0.value + q1.value > 1:  # through edge P0-P1
        exit_ = 2
        sr, sq = r0 + r1, q0 + q1
        if sr.value <= 1:
            t = (1.0 - sr) / (sq - sr)
            q0, q1 = r0 + (q0 - r0) * t, r1 + (q1 - r1) * t
        else:  # the start is already on that edge (by rounding): stay
            q0, q1 = q0 * 0.0 + r0, q1 * 0.0 + r1
    return q0, q1, exit_


def triangle_move(X, Z, P0, P1, P2, mu: float) -> tuple[bool, Move | None]:
    """CASE_TRIANGLE's arithmetic (alg. 10): relax ``X`` towards ``Z``'s projection within the friction cone.

    Returns
    -------
    inside : bool
        ``Z`` is behind the oriented triangle (depth ``d = -(Z - P2) . n >= 0``).
    move : Move or None
        ``None`` when ``X`` is inside the cone (sticking); otherwise the
        cone-boundary point, clipped to the triangle.
    """
    u, v, x, z = P0 - P2, P1 - P2, X - P2, Z - P2
    N = cross3(u, v)
    n = N / np.linalg.norm(N)
    d = -z @ n
    p = z + d * n  # Z projected into the plane (the seed's W)
    # Decide with floats first: most contacts stick, and they need no jets.
    if (x - p) @ (x - p) <= (mu * d) ** 2:
        return bool(d >= 0), None
    Xj, Zj, Aj, Bj, Cj = (Jet.variable(point, slot, 15) for slot, point in enumerate((X, Z, P0, P1, P2)))
    u, v, x, z = Aj - Cj, Bj - Cj, Xj - Cj, Zj - Cj
    nj = jets.cross(u, v)
    nj = nj / jets.norm(nj)
    dj = -jets.dot(z, nj)
    pj = z + dj * nj
    # Move to the cone boundary along x - p: |y - p| = mu |d|.
    y = pj + (jets.absolute(dj) * mu / jets.norm(x - pj)) * (x - pj)
    uu, uv, vv = jets.dot(u, u), jets.dot(u, v), jets.dot(v, v)
    det = uu * vv - uv * uv
    uy, vy, ux, vx = jets.dot(u, y), jets.dot(v, y), jets.dot(u, x), jets.dot(v, x)
    q0, q1 = (vv * uy - uv * vy) / det, (uu * vy - uv * uy) / det
    r0, r1 = (vv * ux - uv * vx) / det, (uu * vx - uv * ux) / det
    q0, q1, exit_ = _clip(q0, q1, r0, r1)
    Y = Cj + q0 * u + q1 * v
    w = np.array([float(q0), float(q1), 1.0 - float(q0) - float(q1)])
    return bool(d >= 0), Move(Y.value, Y.grad, w, exit=exit_)


def edge_move(X, Z, A, B, mu: float) -> Move | None:
    """CASE_EDGE's arithmetic (alg. 11): relax ``X`` along the edge ``A-B`` within the friction cone.

    ``D``'s columns are ``X, Z, A, B`` and three zero columns (the caller
    places ``A`` and ``B`` in a triangle's slots); ``w`` is ``(w_A, w_B, 0)``.
    Returns ``None`` when sticking.
    """
    u, x, z = A - B, X - B, Z - B
    p = (u @ z) / (u @ u) * u
    if (x - p) @ (x - p) <= (mu * np.linalg.norm(z - p)) ** 2:
        return None
    Xj, Zj, Aj, Bj = (Jet.variable(point, slot, 15) for slot, point in enumerate((X, Z, A, B)))
    u, x, z = Aj - Bj, Xj - Bj, Zj - Bj
    uu = jets.dot(u, u)
    pj = (jets.dot(u, z) / uu) * u
    # mu |z - p| / |x - p|, not sqrt(mu^2 |z - p|^2 / ...): the latter's derivative is NaN at mu = 0.
    y = pj + (jets.norm(z - pj) * mu / jets.norm(x - pj)) * (x - pj)
    q = jets.dot(u, y) / uu
    if q.value <= 0:
        return Move(B.copy(), _selector(3), np.array([0.0, 1.0, 0.0]), end=1)
    if q.value >= 1:
        return Move(A.copy(), _selector(2), np.array([1.0, 0.0, 0.0]), end=0)
    Y = Bj + q * u
    return Move(Y.value, Y.grad, np.array([float(q), 1.0 - float(q), 0.0]))


def _selector(slot: int) -> np.ndarray:
    """``D`` of a point that is input ``slot`` itself (a vertex)."""
    D = np.zeros((3, 15))
    D[:, 3 * slot : 3 * slot + 3] = np.eye(3)
    return D


# --- inside tests (alg. 12) -----------------------------------------------------------------------------------


def _volume(x: np.ndarray, tri, point: np.ndarray) -> float:
    """``N . (point - P0)``: negative behind the oriented triangle."""
    P0, P1, P2 = x[tri]
    return float(cross3(P1 - P0, P2 - P0) @ (point - P0))


def inside_edge(mesh: TriangleMesh, x: np.ndarray, edge: tuple[int, int], Z: np.ndarray) -> bool:
    """INSIDE_EDGE: behind both triangles of a convex edge, behind either of a concave one."""
    ts = mesh.triangles_of_edge(edge)
    behind0 = _volume(x, mesh.triangles[ts[0]], Z) <= 0
    if len(ts) == 1:
        return behind0
    behind1 = _volume(x, mesh.triangles[ts[1]], Z) <= 0
    if behind0 == behind1:
        return behind0
    # The seed prints Vol(t1, q), identically zero; the second triangle's far vertex is tested against the first.
    far = next(int(q) for q in mesh.triangles[ts[1]] if q not in edge)
    return _volume(x, mesh.triangles[ts[0]], x[far]) > 0


def inside_vertex(mesh: TriangleMesh, x: np.ndarray, v: int, Z: np.ndarray) -> bool:
    """INSIDE_VERTEX: the signed solid angle of ``v``'s fan seen from ``Z`` is positive (Van Oosterom-Strackee)."""
    total = 0.0
    for t in mesh.triangles_of_vertex(v):
        R1, R2, R3 = x[np.roll(mesh.triangles[t], -list(mesh.triangles[t]).index(v))] - Z
        r1, r2, r3 = np.linalg.norm(R1), np.linalg.norm(R2), np.linalg.norm(R3)
        total += 2.0 * np.arctan2(R1 @ cross3(R2, R3), r1 * r2 * r3 + r1 * (R2 @ R3) + r2 * (R1 @ R3) + r3 * (R1 @ R2))
    return total > 0


# --- the walk -------------------------------------------------------------------------------------------------


@dataclass
class MeshRelaxation:
    """The outcome of :func:`relax_mesh`.

    Attributes
    ----------
    active : bool
        ``Z`` is inside the surface at the final primitive (and the walk met
        neither the particle's own primitives nor a boundary edge).
    e : int
        Final triangle; ``Y = sum_i w[i] x[triangles[e, i]]``.
    w : ndarray (3,)
    Y : ndarray (3,)
    chain : list of (ndarray (3, 15), int)
        One ``(D, triangle)`` per move, in order (the paper's ``diff_list``).
    path : tuple of (str, int or tuple)
        The cases visited: ``("initial", t)``, ``("triangle", t)``,
        ``("edge", (a, b))``, ``("vertex", v)``.
    """

    active: bool
    e: int = -1
    w: np.ndarray = field(default_factory=lambda: np.zeros(3))
    Y: np.ndarray = field(default_factory=lambda: np.zeros(3))
    chain: list = field(default_factory=list)
    path: tuple = ()

    @property
    def sticking(self) -> bool:
        return not self.chain


def _vertex_exit(mesh: TriangleMesh, x: np.ndarray, v: int, Z: np.ndarray):
    """CASE_VERTEX's choice: the first triangle whose wedge holds ``Z``'s direction, else an edge pointing at it."""
    C, z = x[v], Z - x[v]
    for t in mesh.triangles_of_vertex(v):
        _, a, b = np.roll(mesh.triangles[t], -list(mesh.triangles[t]).index(v))
        u, w = x[a] - C, x[b] - C
        n = cross3(u, w)
        alpha, beta = z @ cross3(w, n) / (n @ n), -(z @ cross3(u, n)) / (n @ n)
        if alpha > SMALL and beta > SMALL:
            return "triangle", int(t), _edge(v, a)
    for q in mesh.neighbors(v):
        if (x[q] - C) @ z >= SMALL:
            return "edge", _edge(v, q), None
    return None, None, None


def relax_mesh(mesh: TriangleMesh, x: np.ndarray, e0: int, w0: np.ndarray, p: int, mu: float) -> MeshRelaxation:
    """RELAX_MESH: relax particle ``p``'s attachment ``(e0, w0)`` on ``mesh`` at positions ``x``.

    Parameters
    ----------
    mesh : TriangleMesh
    x : ndarray (n, 3)
        Particle positions (the candidate configuration).
    e0, w0 : int, ndarray (3,)
        The stored attachment.
    p : int
        The particle; walking into a primitive that contains it ends the contact.
    mu : float
        Friction coefficient.

    Raises
    ------
    RuntimeError
        When the walk exceeds :func:`visit_cap` (the supplement proves it
        cannot; reaching it means a bug).
    """
    w0 = np.asarray(w0, dtype=float)
    walk = _Walk(mesh, x, p, x[p], mu, Y=w0 @ x[mesh.triangles[e0]], w=w0.copy(), e=int(e0), prim=int(e0))
    for _ in range(visit_cap(mesh)):
        walk.path.append((walk.case, walk.prim))
        result = _CASES[walk.case](walk)
        if result is not None:
            return result
    raise RuntimeError(
        f"mesh relaxation of particle {p} from triangle {e0} did not end within "
        f"{visit_cap(mesh)} case visits: {walk.path[:12]}..."
    )


@dataclass
class _Walk:
    """The relaxation between case visits: where it stands (``case`` at primitive ``prim``, having ``entered``
    the current triangle over that edge), the attachment so far and the moves made."""

    mesh: TriangleMesh
    x: np.ndarray
    p: int
    Z: np.ndarray
    mu: float
    Y: np.ndarray
    w: np.ndarray
    e: int
    prim: Any  # by case: a triangle or vertex index, or an edge's (i, j)
    case: str = "initial"
    entered: tuple | None = None
    chain: list = field(default_factory=list)
    path: list = field(default_factory=list)

    def ends(self, active: bool) -> MeshRelaxation:
        return MeshRelaxation(active, self.e, self.w, self.Y, self.chain, tuple(self.path))

    def lost(self) -> MeshRelaxation:
        """The contact ends: the walk met the particle's own primitive or left an open mesh."""
        return MeshRelaxation(False, path=tuple(self.path))


def _triangle_case(walk: _Walk) -> MeshRelaxation | None:
    """Cases initial and triangle (alg. 10): move within the triangle, then onto a vertex, back onto the edge it
    came in by, or over an edge into the next triangle."""
    mesh, x = walk.mesh, walk.x
    walk.e, tri = walk.prim, mesh.triangles[walk.prim]
    if walk.p in tri:
        return walk.lost()
    P0, P1, P2 = x[tri]  # named, not starred: a star before walk.mu hides the arity from the type checker
    inside, move = triangle_move(walk.Y, walk.Z, P0, P1, P2, walk.mu)
    if move is None:
        return walk.ends(inside)
    walk.Y, walk.w = move.Y, move.w
    walk.chain.append((move.D, walk.e))
    if move.exit is None:
        return walk.ends(inside)
    corner = int(np.argmax(walk.w))
    if walk.w[corner] > 1.0 - SMALL:  # landed on a vertex: take it exactly, with its derivative
        walk.chain[-1] = (_selector(2 + corner), walk.e)
        walk.case, walk.prim = "vertex", int(tri[corner])
        return None
    edge = _edge(*np.delete(tri, move.exit))
    if walk.case == "triangle" and edge == walk.entered:  # pushed back over the edge it came in by
        walk.case, walk.prim = "edge", edge
        return None
    nxt = int(mesh.across[walk.e, move.exit])
    if nxt < 0:  # slid off an open mesh's boundary
        return walk.lost()
    walk.w = _relabel(tri, walk.w, mesh.triangles[nxt])
    walk.case, walk.prim, walk.entered, walk.e = "triangle", nxt, edge, nxt
    return None


def _edge_case(walk: _Walk) -> MeshRelaxation | None:
    """Case edge (alg. 11): move along the edge, ending on it or at one of its vertices."""
    mesh, x, edge = walk.mesh, walk.x, walk.prim
    if walk.p in edge:
        return walk.lost()
    walk.e = mesh.triangles_of_edge(edge)[0]
    tri = mesh.triangles[walk.e]
    slots = [list(tri).index(edge[0]), list(tri).index(edge[1])]
    inside = inside_edge(mesh, x, edge, walk.Z)
    move = edge_move(walk.Y, walk.Z, x[edge[0]], x[edge[1]], walk.mu)
    if move is None:
        walk.w = _edge_weights(walk.Y, x[edge[0]], x[edge[1]], slots)
        return walk.ends(inside)
    D = np.zeros((3, 15))  # the edge move's columns (X, Z, P_a, P_b) placed at the triangle's vertex slots
    D[:, :6] = move.D[:, :6]
    for k, slot in enumerate(slots):
        D[:, 6 + 3 * slot : 9 + 3 * slot] = move.D[:, 6 + 3 * k : 9 + 3 * k]
    walk.chain.append((D, walk.e))
    walk.Y = move.Y
    walk.w = np.zeros(3)
    walk.w[slots] = move.w[:2]
    if move.end is None:
        return walk.ends(inside)
    walk.case, walk.prim = "vertex", edge[move.end]
    return None


def _vertex_case(walk: _Walk) -> MeshRelaxation | None:
    """Case point (alg. 11 part II): leave the vertex into the triangle or along the edge towards ``Z``, or stay."""
    mesh, x, v = walk.mesh, walk.x, walk.prim
    if v == walk.p:
        return walk.lost()
    walk.Y = x[v].copy()
    case, prim, entered = _vertex_exit(mesh, x, v, walk.Z)
    if case is None:  # Z's projection is at the vertex: stay, in the triangle of the last move
        walk.e = walk.chain[-1][1]
        walk.w = (mesh.triangles[walk.e] == v).astype(float)
        return walk.ends(inside_vertex(mesh, x, v, walk.Z))
    walk.case, walk.prim, walk.entered = case, prim, entered
    if walk.case == "triangle":
        walk.e = walk.prim
        walk.w = (mesh.triangles[walk.e] == v).astype(float)
    return None


_CASES = {"initial": _triangle_case, "triangle": _triangle_case, "edge": _edge_case, "vertex": _vertex_case}


def _relabel(tri: np.ndarray, w: np.ndarray, new_tri: np.ndarray) -> np.ndarray:
    """Weights of a point on the shared edge, moved from ``tri``'s slots to ``new_tri``'s (third one zero)."""
    out = np.zeros(3)
    for i, vertex in enumerate(tri):
        hit = np.flatnonzero(new_tri == vertex)
        if len(hit):
            out[hit[0]] = w[i]
    return out / out.sum()


def _edge_weights(Y: np.ndarray, A: np.ndarray, B: np.ndarray, slots: list[int]) -> np.ndarray:
    """Weights of ``Y`` (on the edge ``A-B``) in the triangle slots of ``A`` and ``B``."""
    u = A - B
    s = float(np.clip((Y - B) @ u / (u @ u), 0.0, 1.0))
    w = np.zeros(3)
    w[slots] = (s, 1.0 - s)
    return w
