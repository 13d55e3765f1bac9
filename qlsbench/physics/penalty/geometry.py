"""Rotations, attachment projection and the plane relaxation of alg. 3."""

from __future__ import annotations

import numpy as np

I3 = np.eye(3)


def skew(a: np.ndarray) -> np.ndarray:
    """The cross-product matrix: ``skew(a) @ b == cross(a, b)``."""
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def so3_exp(u: np.ndarray) -> np.ndarray:
    """The rotation by angle ``|u|`` about ``u`` (Rodrigues)."""
    theta = np.linalg.norm(u)
    K = skew(u)
    if theta < 1e-8:  # series, so that tiny angular velocities stay accurate
        return I3 + K + 0.5 * K @ K
    return I3 + np.sin(theta) / theta * K + (1.0 - np.cos(theta)) / theta**2 * K @ K


def so3_left_jacobian(u: np.ndarray) -> np.ndarray:
    """``J`` with ``exp(u + d) ~ exp(J d) exp(u)``; so ``d(exp(u) a)/du = -skew(exp(u) a) J``."""
    theta = np.linalg.norm(u)
    K = skew(u)
    if theta < 1e-5:
        return I3 + 0.5 * K + K @ K / 6.0
    return I3 + (1.0 - np.cos(theta)) / theta**2 * K + (theta - np.sin(theta)) / theta**3 * K @ K


def project_to_surface(X: np.ndarray, levelset) -> tuple[float, np.ndarray, np.ndarray]:
    """Closest-point projection onto a level set's zero contour (alg. 5, PROJECT_ATTACHMENT_TO_SURFACE).

    Returns
    -------
    phi : float
        Signed distance at ``X`` (``<= 0`` means penetrating).
    W : ndarray (3,)
        ``X - phi n``.
    dW_dX : ndarray (3, 3)
        ``I - n n^T - phi H``.
    """
    phi, n, H = levelset.evaluate(X)
    return phi, X - phi * n, I3 - np.outer(n, n) - phi * H


def relax_plane(Z: np.ndarray, X: np.ndarray, W: np.ndarray, mu: float):
    """Relax an attachment point inside the Coulomb cone (alg. 3, RELAX_PLANE).

    The particle is at ``Z``, its projection onto the surface is ``W`` and its
    previous attachment is ``X``. The penalty spring ``k (K - Z)`` has normal
    part ``k |Z - W|`` and tangential part ``k |K - W|``; keeping
    ``|K - W| <= mu |Z - W|`` is Coulomb's law.

    Parameters
    ----------
    Z, X, W : ndarray (3,)
    mu : float
        Friction coefficient.

    Returns
    -------
    K : ndarray (3,)
        ``X`` when it lies inside the cone (sticking), else the cone-boundary
        point ``W + mu |Z - W| (X - W)/|X - W|`` (sliding).
    dK_dZ, dK_dX, dK_dW : ndarray (3, 3)
        Derivatives of ``K``.
    sticking : bool
    """
    a = np.linalg.norm(Z - W)
    b = np.linalg.norm(X - W)
    q = mu * a
    if b <= q:
        return X.copy(), np.zeros((3, 3)), I3.copy(), np.zeros((3, 3)), True
    u = (Z - W) / a if a > 0 else np.zeros(3)
    v = (X - W) / b
    K = W + q * v
    dK_dX = q / b * (I3 - np.outer(v, v))
    dK_dZ = mu * np.outer(v, u)
    # K moves with a rigid translation of (Z, X, W), so the three derivatives add up to I.
    dK_dW = I3 - dK_dX - dK_dZ
    return K, dK_dZ, dK_dX, dK_dW, False


def project_to_moving_surface(X: np.ndarray, center: np.ndarray, R: np.ndarray, levelset_body):
    """Projection onto a rigid body's surface, with derivatives in the point and the body's pose.

    PROJECT_ATTACHMENT_TO_MOVING_SURFACE of the penalty paper: the body's
    level set is given in its own frame, the body sits at ``center`` with
    rotation ``R``, and ``W = X - phi n`` with ``n = R N`` the world normal.

    Parameters
    ----------
    X : ndarray (3,)
        World point.
    center : ndarray (3,)
        The body's origin (for a ball, its centre).
    R : ndarray (3, 3)
        Body-to-world rotation.
    levelset_body : level set
        Answers ``evaluate(U) -> (phi, N, H)`` in body coordinates.

    Returns
    -------
    phi : float
        Signed distance of ``X`` (``<= 0`` means penetrating).
    W : ndarray (3,)
        The projected point.
    dW_dX, dW_dc, dW_dtheta : ndarray (3, 3)
        Derivatives in ``X``, in ``center`` and in a left rotation
        perturbation ``R -> exp(theta) R``.
    """
    w = X - center
    phi, N, H = levelset_body.evaluate(R.T @ w)
    n = R @ N
    dW_dU = -np.outer(n, N) - phi * R @ H
    dW_dX = I3 + dW_dU @ R.T
    # U = R^T (X - c): moving c moves U like -X; turning the body by theta turns U by R^T skew(w) theta,
    # and turns the normal itself, which moves W by phi skew(n) theta.
    return phi, X - phi * n, dW_dX, I3 - dW_dX, dW_dU @ R.T @ skew(w) + phi * skew(n)
