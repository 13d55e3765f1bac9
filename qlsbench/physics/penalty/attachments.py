"""Penalty attachments: relaxation (PRECOMPUTE), force and force derivative of each touching pair.

Three kinds, each a function of the candidate configuration of one step:

* ``particle``: a particle against a fixed level set (alg. 5, the DI case);
* ``sphere``: a material point of a rigid sphere against a fixed level set;
* ``pair``: a material point of sphere ``s`` against the (analytic) level set
  of sphere ``i`` (alg. 7-8, the RR case specialised to spheres).

Every kind returns a :class:`ContactTerm`: the generalised force on the
pair's velocity degrees of freedom and its dense Jacobian ``B = df/d(dv)``
with respect to them. Backward Euler's operator ``H = M - h df/d(dv)`` and its
transpose apply these small blocks (``B`` and ``B^T``, alg. 5's FORCE_DIFF and
FORCE_DIFF_TRANSPOSE) without forming ``H``.

The Jacobians follow the chain rule of the paper's routines: the particle
point ``Z`` moves with the step's velocities (``dZ/d(dv) = h`` for a particle;
``h [I, -skew(r) J_l(h omega)]`` for a point of a rotating sphere), the
surface projection ``W(Z)``, the relaxed point ``K(Z, X, W)`` and its
projection ``Y(K)``; the force is ``k (Y - Z)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from qlsbench.physics.penalty.geometry import (
    I3,
    project_to_surface,
    relax_plane,
    skew,
    so3_left_jacobian,
)

ZERO3 = np.zeros((3, 3))


@dataclass
class ContactTerm:
    """One active attachment evaluated at a candidate configuration.

    Attributes
    ----------
    key : tuple
        ``("particle", p, obstacle)``, ``("sphere", b, obstacle)`` or ``("pair", s, i)``.
    dofs : ndarray of int
        Velocity indices the force acts on.
    force : ndarray
        Generalised force on ``dofs``.
    jacobian : ndarray
        ``d force / d dv[dofs]``.
    Z, Y : ndarray (3,)
        The body point and its relaxed attachment on the other surface.
    sticking : bool
        Whether the attachment sits inside the friction cone.
    update : dict
        What UPDATE_ATTACHMENT stores if this configuration is accepted.
    """

    key: tuple
    dofs: np.ndarray
    force: np.ndarray
    jacobian: np.ndarray
    Z: np.ndarray
    Y: np.ndarray
    sticking: bool
    penetration: float
    update: dict = field(default_factory=dict)


def rigid_point(center: np.ndarray, step_rotation: np.ndarray, u: np.ndarray, offset: np.ndarray, h: float):
    """A material point ``center + exp(u) offset`` of a sphere and its Jacobian on the sphere's ``(v, omega)``.

    ``u = h omega_new`` and ``center = x^n + h v_new``, so ``dZ/dv = h I`` and
    ``dZ/domega = -h skew(exp(u) offset) J_l(u)``.
    """
    r = step_rotation @ offset
    J = np.hstack([h * I3, -h * skew(r) @ so3_left_jacobian(u)])
    return center + r, r, J


def seed_sphere_contact(obstacle, center: np.ndarray, radius: float, shift: np.ndarray | float = 0.0):
    """A sphere's material point against a level set: the deepest point and its anchor.

    The point is ``center - radius n(center)``; the anchor is the surface
    projection of that point moved by ``shift`` (zero for a new contact; the
    old tangential offset ``Y - Z`` when an attachment is re-seeded).

    Returns
    -------
    offset, anchor : ndarray (3,)
        World offset of the point from the centre, and the anchor.
    """
    _, n, _ = obstacle.evaluate(center)
    offset = -radius * n
    return offset, project_to_surface(center + offset + shift, obstacle)[1]


def seed_pair_contact(cs: np.ndarray, rs: float, ci: np.ndarray, ri: float, shift: np.ndarray | float = 0.0):
    """Sphere ``s``'s point nearest sphere ``i`` and its anchor on ``i`` (moved by ``shift``, as above).

    Returns
    -------
    offset, anchor_offset : ndarray (3,)
        World offsets from ``cs`` and from ``ci``.
    """
    e = ci - cs
    offset = rs * e / np.linalg.norm(e)
    moved = cs + offset + shift - ci
    return offset, ri * moved / np.linalg.norm(moved)


def _relaxed_attachment(Z, X, W, mu, levelset):
    K, dK_dZ, dK_dX, dK_dW, sticking = relax_plane(Z, X, W, mu)
    _, Y, dY_dK = project_to_surface(K, levelset)
    return K, Y, dY_dK, dK_dZ, dK_dX, dK_dW, sticking


def particle_contact(key, dofs, Z, anchor, levelset, mu, k, h) -> ContactTerm | None:
    """A particle at candidate position ``Z`` against a fixed level set; ``None`` when not penetrating."""
    phi, W, dW_dZ = project_to_surface(Z, levelset)
    if phi > 0:
        return None
    _, Y, dY_dK, dK_dZ, _, dK_dW, sticking = _relaxed_attachment(Z, anchor, W, mu, levelset)
    J_Z = h * I3
    J_Y = dY_dK @ (dK_dZ + dK_dW @ dW_dZ) @ J_Z
    F = k * (Y - Z)
    return ContactTerm(key, dofs, F, k * (J_Y - J_Z), Z, Y, sticking, -phi, {"anchor": Y})


def _torque_rows(F, dF, r, J_r):
    """Rows of ``d(r x F)``: ``skew(r) dF - skew(F) dr``."""
    return skew(r) @ dF - skew(F) @ J_r


def sphere_contact(key, dofs, center, step_rotation, u, offset, anchor, levelset, mu, k, h) -> ContactTerm | None:
    """A material point of a rigid sphere against a fixed level set."""
    Z, r, J_Z = rigid_point(center, step_rotation, u, offset, h)
    phi, W, dW_dZ = project_to_surface(Z, levelset)
    if phi > 0:
        return None
    _, Y, dY_dK, dK_dZ, _, dK_dW, sticking = _relaxed_attachment(Z, anchor, W, mu, levelset)
    J_Y = dY_dK @ (dK_dZ + dK_dW @ dW_dZ) @ J_Z
    F = k * (Y - Z)
    dF = k * (J_Y - J_Z)
    J_c = np.hstack([h * I3, ZERO3])
    force = np.concatenate([F, np.cross(r, F)])
    jac = np.vstack([dF, _torque_rows(F, dF, r, J_Z - J_c)])
    return ContactTerm(key, dofs, force, jac, Z, Y, sticking, -phi, {"anchor": Y, "Z": Z})


def _sphere_surface(c, radius, P):
    """Projection of ``P`` onto the sphere ``|x - c| = radius`` and its derivatives in ``P`` and ``c``."""
    d = P - c
    dist = np.linalg.norm(d)
    e = d / dist
    dP = radius / dist * (I3 - np.outer(e, e))
    return dist - radius, c + radius * e, dP, I3 - dP


def pair_contact(key, dofs, s_point, i_body, mu, k, h) -> ContactTerm | None:
    """Sphere ``s``'s material point against sphere ``i``'s surface (RR, alg. 7-8, for spheres).

    Parameters
    ----------
    s_point : tuple
        ``(center, step_rotation, u, offset)`` of sphere ``s`` and its material point.
    i_body : tuple
        ``(center, step_rotation, u, radius, anchor_offset)`` of sphere ``i``;
        the attachment moves with ``i`` as ``center + exp(u) anchor_offset``.
    """
    cs, Rs, us, offset = s_point
    ci, Ri, ui, radius_i, anchor_offset = i_body
    Z, r_s, JZ6 = rigid_point(cs, Rs, us, offset, h)
    X, sigma, JX6 = rigid_point(ci, Ri, ui, anchor_offset, h)
    zero = np.zeros((3, 6))
    J_Z = np.hstack([JZ6, zero])
    J_X = np.hstack([zero, JX6])
    J_ci = np.hstack([zero, h * I3, ZERO3])
    J_cs = np.hstack([h * I3, ZERO3, zero])
    phi, W, dW_dZ, dW_dc = _sphere_surface(ci, radius_i, Z)
    if phi > 0:
        return None
    K, dK_dZ, dK_dX, dK_dW, sticking = relax_plane(Z, X, W, mu)
    J_W = dW_dZ @ J_Z + dW_dc @ J_ci
    J_K = dK_dZ @ J_Z + dK_dX @ J_X + dK_dW @ J_W
    _, Y, dY_dK, dY_dc = _sphere_surface(ci, radius_i, K)
    J_Y = dY_dK @ J_K + dY_dc @ J_ci
    F = k * (Y - Z)
    dF = k * (J_Y - J_Z)
    arm_i = Y - ci
    force = np.concatenate([F, np.cross(r_s, F), -F, -np.cross(arm_i, F)])
    jac = np.vstack([dF, _torque_rows(F, dF, r_s, J_Z - J_cs), -dF, -_torque_rows(F, dF, arm_i, J_Y - J_ci)])
    return ContactTerm(key, dofs, force, jac, Z, Y, sticking, -phi, {"anchor": Y, "Z": Z})
