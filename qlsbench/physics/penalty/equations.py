"""Backward Euler in ``dv`` (alg. 1): the residual ``g(dv)`` and its matrix-free Jacobian ``H``.

``g(dv) = M dv - h f(x^n + h (v^n + dv))`` and ``H = dg/d(dv) = M - h df/d(dv)``
(the paper's ``M - h^2 df/dx``: the extra ``h`` is inside ``df/d(dv)``).
:func:`evaluate` is a pure function of the model's start-of-step state, its
registered attachments and ``dv``: a contact first touching during the step
is attached where the body point was at the start of the step, so the line
search may evaluate ``g`` anywhere without changing what it evaluates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from qlsbench.physics.penalty.attachments import (
    ContactTerm,
    pair_contact,
    particle_contact,
    particle_sphere_contact,
    seed_pair_contact,
    seed_sphere_contact,
    sphere_contact,
)
from qlsbench.physics.penalty.attachments_mesh import detect_crossings, particle_mesh_contact
from qlsbench.physics.penalty.geometry import I3, project_to_moving_surface, project_to_surface, so3_exp
from qlsbench.physics.penalty.levelsets import SphereObstacle
from qlsbench.physics.penalty.model import PenaltyModel


@dataclass
class Candidate:
    """Positions and velocities after a step with velocity change ``dv``."""

    xp: np.ndarray
    vp: np.ndarray
    xs: np.ndarray
    vs: np.ndarray
    omega: np.ndarray
    u: np.ndarray
    step_rotation: np.ndarray


def candidate(model: PenaltyModel, dv: np.ndarray, h: float) -> Candidate:
    """The configuration ``x^{n+1} = x^n + h (v^n + dv)``, ``R^{n+1} = exp(h omega^{n+1}) R^n``."""
    P, S = model.n_particles, model.n_spheres
    vp = model.particles.v + dv[: 3 * P].reshape(P, 3)
    sdv = dv[3 * P :].reshape(S, 6)
    vs = model.spheres.v + sdv[:, :3]
    omega = model.spheres.omega + sdv[:, 3:]
    u = h * omega
    rot = np.array([so3_exp(ub) for ub in u]).reshape(S, 3, 3)
    return Candidate(model.particles.x + h * vp, vp, model.spheres.x + h * vs, vs, omega, u, rot)


def _spring_terms(model: PenaltyModel, xp: np.ndarray, h: float):
    """Spring forces per spring and their ``d/d(dv)`` blocks ``h K_e`` (force on the first particle)."""
    pts = model.particles
    if not len(pts.springs):
        return np.zeros((0, 3)), np.zeros((0, 3, 3))
    d = xp[pts.springs[:, 1]] - xp[pts.springs[:, 0]]
    length = np.linalg.norm(d, axis=1)
    e = d / length[:, None]
    force = (pts.stiffness * (length - pts.rest))[:, None] * e
    ee = e[:, :, None] * e[:, None, :]
    ratio = (1.0 - pts.rest / length)[:, None, None]
    blocks = pts.stiffness[:, None, None] * (ee + ratio * (I3 - ee))
    return force, h * blocks


def _particle_contacts(model, cand, h) -> list[ContactTerm]:
    terms = []
    for o, obstacle in enumerate(model.obstacles):
        for p in model.touching(o, obstacle.distance(cand.xp)):
            key = ("particle", int(p), o)
            att = model.attachments.get(key)
            anchor = att["anchor"] if att else project_to_surface(model.particles.x[p], obstacle)[1]
            term = particle_contact(
                key, np.arange(3 * p, 3 * p + 3), cand.xp[p], anchor, obstacle, model.friction(o), model.stiffness, h
            )
            if term is not None:
                terms.append(term)
    return terms


def _sphere_contacts(model, cand, h) -> list[ContactTerm]:
    terms, sph = [], model.spheres
    for o, obstacle in enumerate(model.obstacles):
        for b in np.flatnonzero(obstacle.distance(cand.xs) <= sph.radius):
            key = ("sphere", int(b), o)
            att = model.attachments.get(key)
            if att:
                offset, anchor = sph.R[b] @ att["offset_body"], att["anchor"]
            else:  # the sphere's deepest point at the start of the step, attached where it was
                offset, anchor = seed_sphere_contact(obstacle, sph.x[b], sph.radius[b])
            term = sphere_contact(
                key,
                model.sphere_dofs(b),
                cand.xs[b],
                cand.step_rotation[b],
                cand.u[b],
                offset,
                anchor,
                obstacle,
                model.friction(o),
                model.stiffness,
                h,
            )
            if term is not None:
                terms.append(term)
    return terms


def _pair_contacts(model, cand, h) -> list[ContactTerm]:
    terms, sph = [], model.spheres
    S = model.n_spheres
    for s in range(S):
        for i in range(s + 1, S):
            if np.linalg.norm(cand.xs[s] - cand.xs[i]) > sph.radius[s] + sph.radius[i]:
                continue
            key = ("pair", s, i)
            att = model.attachments.get(key)
            if att:
                offset, anchor_offset = sph.R[s] @ att["offset_body"], sph.R[i] @ att["anchor_body"]
            else:
                offset, anchor_offset = seed_pair_contact(sph.x[s], sph.radius[s], sph.x[i], sph.radius[i])
            dofs = np.concatenate([model.sphere_dofs(s), model.sphere_dofs(i)])
            term = pair_contact(
                key,
                dofs,
                (cand.xs[s], cand.step_rotation[s], cand.u[s], offset),
                (cand.xs[i], cand.step_rotation[i], cand.u[i], sph.radius[i], anchor_offset),
                model.mu,
                model.stiffness,
                h,
            )
            if term is not None:
                terms.append(term)
    return terms


def _particle_sphere_contacts(model, cand, h) -> list[ContactTerm]:
    """DR contacts: every particle inside a sphere at the candidate configuration."""
    terms: list[ContactTerm] = []
    sph = model.spheres
    if not (model.n_particles and model.n_spheres):
        return terms
    gap = np.linalg.norm(cand.xp[:, None, :] - cand.xs[None, :, :], axis=2) - sph.radius[None, :]
    for p, b in zip(*np.nonzero(gap <= 0.0)):
        p, b = int(p), int(b)
        ball = SphereObstacle(np.zeros(3), sph.radius[b])  # the sphere's level set in its own frame
        key = ("particle_sphere", p, b)
        att = model.attachments.get(key)
        if att:
            anchor_body = att["anchor_body"]
        else:  # first touch: attach where the particle's start position projects onto the start pose
            W = project_to_moving_surface(model.particles.x[p], sph.x[b], sph.R[b], ball)[1]
            anchor_body = sph.R[b].T @ (W - sph.x[b])
        R = cand.step_rotation[b] @ sph.R[b]
        dofs = np.concatenate([np.arange(3 * p, 3 * p + 3), model.sphere_dofs(b)])
        term = particle_sphere_contact(
            key, dofs, cand.xp[p], (cand.xs[b], R, cand.u[b], ball), anchor_body, model.mu, model.stiffness, h
        )
        if term is not None:
            terms.append(term)
    return terms


def _particle_mesh_contacts(model, cand, h) -> list[ContactTerm]:
    """DD contacts: registered pairs relaxed from their stored attachment, then new crossings (brief 4.4)."""
    terms = []
    for s, mesh in enumerate(model.surfaces):
        registered = sorted(key[1] for key in model.attachments if key[0] == "particle_mesh" and key[2] == s)
        pairs = [(p, model.attachments[("particle_mesh", p, s)]) for p in registered]
        # A surface's own particles lie in its triangles' planes; they touch it only with self-collision on.
        skip = set(registered) | (set() if mesh.self_collision else set(mesh.vertices.tolist()))
        others = np.array([p for p in range(model.n_particles) if p not in skip], dtype=np.int64)
        pairs += [(p, {"e0": t, "w0": w0}) for p, t, w0 in detect_crossings(mesh, model.particles.x, cand.xp, others)]
        for p, att in pairs:
            term = particle_mesh_contact(
                ("particle_mesh", p, s), mesh, cand.xp, p, att["e0"], att["w0"], model.mu, model.stiffness, h
            )
            if term is not None:
                terms.append(term)
    return terms


@dataclass
class Evaluation:
    """``g`` at one ``dv`` with what is needed to apply ``H`` and ``H^T`` there.

    Attributes
    ----------
    dv, g : ndarray
    candidate : Candidate
    contacts : list of ContactTerm
    """

    dv: np.ndarray
    g: np.ndarray
    h: float
    mass: np.ndarray
    springs: np.ndarray
    spring_blocks: np.ndarray
    n_particles: int
    candidate: Candidate
    contacts: list

    def __post_init__(self):
        # Contacts of one kind share a block size; stacking them makes each product one einsum.
        self._groups = []
        for size in sorted({len(t.dofs) for t in self.contacts}):
            chosen = [t for t in self.contacts if len(t.dofs) == size]
            self._groups.append((np.array([t.dofs for t in chosen]), np.array([t.jacobian for t in chosen])))

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.g), len(self.g))

    def _force_diff(self, du: np.ndarray, transpose: bool) -> np.ndarray:
        out = np.zeros_like(du)
        if len(self.springs):
            P = self.n_particles
            dup = du[: 3 * P].reshape(P, 3)
            t = np.einsum("sab,sb->sa", self.spring_blocks, dup[self.springs[:, 1]] - dup[self.springs[:, 0]])
            outp = out[: 3 * P].reshape(P, 3)
            np.add.at(outp, self.springs[:, 0], t)
            np.add.at(outp, self.springs[:, 1], -t)
        for idx, blocks in self._groups:
            spec = "cji,cj->ci" if transpose else "cij,cj->ci"
            np.add.at(out, idx, np.einsum(spec, blocks, du[idx]))
        return out

    def matvec(self, du: np.ndarray) -> np.ndarray:
        """``H du`` (BACKWARD_EULER_EQUATIONS_DIFF)."""
        du = np.asarray(du, dtype=float).reshape(-1)
        return self.mass * du - self.h * self._force_diff(du, transpose=False)

    def rmatvec(self, du: np.ndarray) -> np.ndarray:
        """``H^T du`` (BACKWARD_EULER_EQUATIONS_DIFF_TRANSPOSE)."""
        du = np.asarray(du, dtype=float).reshape(-1)
        return self.mass * du - self.h * self._force_diff(du, transpose=True)

    def operator(self) -> LinearOperator:
        """``H`` as a scipy ``LinearOperator`` with ``matvec`` and ``rmatvec``."""
        return LinearOperator(self.shape, matvec=self.matvec, rmatvec=self.rmatvec, dtype=float)

    def matrix(self) -> sp.csr_matrix:
        """``H`` assembled explicitly (from the same blocks the operator applies).

        The spring part is symmetric in exact arithmetic; it is symmetrised
        after assembly so that summation order cannot make it otherwise, and
        the ``symmetric`` flag of an exported system reflects the contacts.
        """
        n = len(self.g)
        rows, cols, vals = [], [], []
        for k, (a, b) in enumerate(self.springs):
            block = -self.h * self.spring_blocks[k]
            for (r, c), sign in (((a, b), 1), ((a, a), -1), ((b, a), 1), ((b, b), -1)):
                rr, cc = np.meshgrid(3 * r + np.arange(3), 3 * c + np.arange(3), indexing="ij")
                rows.append(rr.ravel())
                cols.append(cc.ravel())
                vals.append((sign * block).ravel())
        springs = _coo(rows, cols, vals, n)
        rows, cols, vals = [], [], []
        for idx, blocks in self._groups:
            rows.append(np.repeat(idx, idx.shape[1], axis=1).ravel())
            cols.append(np.tile(idx, (1, idx.shape[1])).ravel())
            vals.append((-self.h * blocks).ravel())
        # DD blocks overlap on shared mesh vertices; scipy may sum duplicates in any order, and a symmetric
        # (sticking) system would come out non-symmetric in the last bit. Summed in a fixed order instead;
        # scenes without DD contacts keep scipy's sum (and their exported bytes).
        overlapping = any(t.key[0] == "particle_mesh" for t in self.contacts)
        contacts = (_summed_in_order if overlapping else _coo)(rows, cols, vals, n)
        return (sp.diags(self.mass) + 0.5 * (springs + springs.T) + contacts).tocsr()


def _coo(rows, cols, vals, n) -> sp.csr_matrix:
    if not rows:
        return sp.csr_matrix((n, n))
    return sp.coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n)).tocsr()


def _summed_in_order(rows, cols, vals, n) -> sp.csr_matrix:
    """Like :func:`_coo`, with the duplicates of each entry summed in the order given (a stable sort)."""
    if not rows:
        return sp.csr_matrix((n, n))
    r, c, v = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    order = np.lexsort((c, r))
    r, c, v = r[order], c[order], v[order]
    start = np.flatnonzero(np.r_[True, (np.diff(r) != 0) | (np.diff(c) != 0)])
    return sp.csr_matrix((np.add.reduceat(v, start), (r[start], c[start])), shape=(n, n))


def evaluate(model: PenaltyModel, dv: np.ndarray, h: float) -> Evaluation:
    """BACKWARD_EULER_EQUATIONS at ``dv``: forces, attachments relaxed, ``g = M dv - h f``.

    Parameters
    ----------
    model : PenaltyModel
        The state at the start of the step (not modified).
    dv : ndarray (model.ndof,)
        Velocity change over the step.
    h : float
        Time step.
    """
    dv = np.asarray(dv, dtype=float).reshape(-1)
    cand = candidate(model, dv, h)
    P = model.n_particles
    f = np.zeros(model.ndof)
    fp = f[: 3 * P].reshape(P, 3)
    fp += model.particles.mass[:, None] * model.gravity
    f[3 * P :].reshape(-1, 6)[:, :3] += model.spheres.mass[:, None] * model.gravity
    spring_force, spring_blocks = _spring_terms(model, cand.xp, h)
    if len(spring_force):
        np.add.at(fp, model.particles.springs[:, 0], spring_force)
        np.add.at(fp, model.particles.springs[:, 1], -spring_force)
    # New kinds go last, so the order (and the exported bytes) of the older ones stay as they were.
    contacts = (
        _particle_contacts(model, cand, h)
        + _sphere_contacts(model, cand, h)
        + _pair_contacts(model, cand, h)
        + _particle_mesh_contacts(model, cand, h)
    )
    contacts += _particle_sphere_contacts(model, cand, h)
    for term in contacts:
        f[term.dofs] += term.force
    mass = model.mass_vector()
    return Evaluation(dv, mass * dv - h * f, h, mass, model.particles.springs, spring_blocks, P, cand, contacts)
