"""Penalty attachments: relaxation (PRECOMPUTE), force and force derivative of each touching pair.

Three kinds, each a function of the candidate configuration of one step:

* ``particle``: a particle against a fixed level set (alg. 5, the DI case);
* ``sphere``: a material point of a rigid sphere against a fixed level set;
* ``pair``: a material point of sphere ``s`` against the (analytic) level set
  of sphere ``i`` (alg. 7-8, the RR case specialised to spheres);
* ``particle_sphere``: a particle against a moving rigid body whose level set
  lives in the body's frame (alg. 6, the DR case; :func:`precompute_dr`).

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
    project_to_moving_surface,
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
        ``("particle", p, obstacle)``, ``("sphere", b, obstacle)``, ``("pair", s, i)`` or
        ``("particle_sphere", p, b)``.
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
    relaxation : MeshRelaxation or None
        A mesh contact's walk (its path of cases), kept for tests and diagnostics.
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
    relaxation: object = field(default=None, repr=False, compare=False)


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


# --- DR: a particle against a moving rigid body (alg. 6) ----------------------------------------------------
#
# The seed's alg. 6 is empty; this is alg. 5 with the surface made moving (as alg. 7's level-set branch does)
# and alg. 8's force pattern: the particle gets k (Y - Z), the body the opposite force at Y.


@dataclass
class RigidAttachment:
    """PRECOMPUTE_DR's result for one (particle, rigid body) pair at a candidate configuration.

    Derivatives are with respect to the pair's unknowns ``[dv_p (3), dv_b (3),
    domega_b (3)]``, so the step ``h`` is inside them.

    Attributes
    ----------
    Z, Y, center : ndarray (3,)
        The particle, its relaxed attachment on the body's surface, the body's centre.
    dY : ndarray (3, 9)
        ``dY/d(dv_p, dv_b, domega_b)``.
    k, h : float
        Penalty stiffness and time step.
    phi : float
        Signed distance of the particle from the body's surface.
    sticking : bool
    """

    Z: np.ndarray
    Y: np.ndarray
    center: np.ndarray
    dY: np.ndarray
    k: float
    h: float
    phi: float
    sticking: bool

    @property
    def F(self) -> np.ndarray:
        """The force on the particle, ``k (Y - Z)``."""
        return self.k * (self.Y - self.Z)


def precompute_dr(Z, body, anchor_body, mu, k, h) -> RigidAttachment | None:
    """PRECOMPUTE_DR: relax the attachment of particle ``Z`` on a moving rigid body; ``None`` when not touching.

    Parameters
    ----------
    Z : ndarray (3,)
        The particle's candidate position.
    body : tuple
        ``(center, R, u, levelset_body)``: the candidate centre and rotation
        ``R = exp(u) R^n`` with ``u = h omega``, and the level set in body coordinates.
    anchor_body : ndarray (3,)
        The previous attachment ``X`` in body coordinates; it moves with the body.
    mu, k, h : float
        Friction coefficient, penalty stiffness, time step.
    """
    center, R, u, levelset = body
    phi, W, W_Z, W_c, W_th = project_to_moving_surface(Z, center, R, levelset)
    if phi > 0:
        return None
    r_X = R @ anchor_body
    K, K_Z, K_X, K_W, sticking = relax_plane(Z, center + r_X, W, mu)
    _, Y, V_K, V_c, V_th = project_to_moving_surface(K, center, R, levelset)
    # Y depends on Z directly and on the pose through X = c + R X_body, W and the final projection;
    # dX/dc = I, dX/dtheta = -skew(R X_body), dtheta/d(domega) = h J_l(u).
    Y_Z = V_K @ (K_Z + K_W @ W_Z)
    Y_c = V_K @ (K_X + K_W @ W_c) + V_c
    Y_th = V_K @ (-K_X @ skew(r_X) + K_W @ W_th) + V_th
    dY = h * np.hstack([Y_Z, Y_c, Y_th @ so3_left_jacobian(u)])
    return RigidAttachment(Z, Y, center, dY, k, h, phi, sticking)


def force_dr(att: RigidAttachment) -> np.ndarray:
    """FORCE_DR: ``[F, -F, -(Y - c) x F]`` on ``(p, v_b, omega_b)``, ``F = k (Y - Z)``."""
    F = att.F
    return np.concatenate([F, -F, -np.cross(att.Y - att.center, F)])


def _point_jacobians(att: RigidAttachment):
    """``dZ`` and ``dc`` on the pair's unknowns: ``h`` on the particle's and the body's translation."""
    J_Z, J_c = np.zeros((3, 9)), np.zeros((3, 9))
    J_Z[:, :3] = att.h * I3
    J_c[:, 3:6] = att.h * I3
    return J_Z, J_c


def dr_jacobian(att: RigidAttachment) -> np.ndarray:
    """The dense ``(9, 9)`` block ``d force_dr / d(dv_p, dv_b, domega_b)``."""
    J_Z, J_c = _point_jacobians(att)
    dF = att.k * (att.dY - J_Z)
    return np.vstack([dF, -dF, -_torque_rows(att.F, dF, att.Y - att.center, att.dY - J_c)])


def force_diff_dr(att: RigidAttachment, du: np.ndarray) -> np.ndarray:
    """FORCE_DIFF_DR: the force differential along ``du = (du_p, du_v, du_omega)``, matrix-free."""
    F, h = att.F, att.h
    dY = att.dY @ du
    dF = att.k * (dY - h * du[:3])
    # the torque (Y - c) x F changes through both the arm and the force
    dtorque = np.cross(att.Y - att.center, dF) + np.cross(dY - h * du[3:6], F)
    return np.concatenate([dF, -dF, -dtorque])


def force_diff_transpose_dr(att: RigidAttachment, a: np.ndarray) -> np.ndarray:
    """FORCE_DIFF_TRANSPOSE_DR: the adjoint of :func:`force_diff_dr`, written out (not the block's transpose).

    With ``g_F = a_p - a_v - a_omega x (Y - c)`` the weight on ``dF`` and
    ``g_Y = k g_F + a_omega x F`` the weight on ``dY``:
    ``[dY_p^T g_Y - h k g_F,  dY_v^T g_Y - h a_omega x F,  dY_omega^T g_Y]``.
    """
    a_p, a_v, a_w = a[:3], a[3:6], a[6:9]
    F, k, h = att.F, att.k, att.h
    g_F = a_p - a_v - np.cross(a_w, att.Y - att.center)
    w_x_F = np.cross(a_w, F)
    g_Y = att.dY.T @ (k * g_F + w_x_F)
    return g_Y - h * np.concatenate([k * g_F, w_x_F, np.zeros(3)])


def particle_sphere_contact(key, dofs, Z, body, anchor_body, mu, k, h) -> ContactTerm | None:
    """A particle against a moving rigid body (DR) as a :class:`ContactTerm`; ``None`` when not touching.

    Arguments as in :func:`precompute_dr`; ``dofs`` are the particle's three
    followed by the body's six.
    """
    att = precompute_dr(Z, body, anchor_body, mu, k, h)
    if att is None:
        return None
    return ContactTerm(key, dofs, force_dr(att), dr_jacobian(att), Z, att.Y, att.sticking, -att.phi)
