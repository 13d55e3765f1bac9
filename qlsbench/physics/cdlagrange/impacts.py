"""The CD-Lagrange impact integrator for single-node bodies (seed 000, app. A, eqs. 38-50).

Asynchronous central differences: positions ``Q_n`` at integer steps,
velocities ``Qdot_{n+1/2}`` at half steps,

    Q_{n+1}        = Q_n + h Qdot_{n+1/2}                              (45)
    F_{n+1}        = -dV/dQ (Q_{n+1})                                  (47)
    Qdot^S         = Qdot_{n+1/2} + h M^-1 F_{n+1}     (free velocity)
    lambda_k       = -H_k (N_k Qdot^S + e min(0, N_k Qdot_{n+1/2})),  I = sum_k N_k^T max(0, lambda_k)   (44, 48-49)
    Qdot_{n+3/2}   = Qdot^S + M^-1 I                                   (50)

for every contact ``k`` whose gap ``g_k(Q_{n+1}) = N_k Q_{n+1} + g0_k`` is
``<= 0``, with ``H_k = (N_k M^-1 N_k^T)^-1`` (eq. 43, the known-H case of the
paper). Newton's restitution law then gives ``N_k Qdot_{n+3/2} = -e N_k
Qdot_{n+1/2}`` for an isolated contact. ``N_k`` is the gap gradient; the
paper's projection ``L`` is ``N`` up to sign (``L = 1`` for the ball,
``L = (1, -1)`` for the cradle, whose ``N = (-1, 1)``). The paper's contact matrix
``A`` (eq. 42) and mass ratio ``H = [A M^-1 A^T]^-1`` (eq. 43, element-wise)
are :func:`contact_matrix` and :func:`mass_ratio`; their diagonal is the
per-contact ``H_k`` used here. Extraction notes: eq.
49 as printed has ``Q_{n+1/2}`` where the free velocity belongs, and eq. 47
drops the minus sign of ``F = -dV/dQ``. Restitution refers to an approach:
a contact still closed but already separating (``N_k Qdot_{n+1/2} > 0``)
gets ``N_k Qdot_{n+3/2} >= 0``, not leave to approach at ``e`` times its
separating speed (the ``min(0, .)``; it changes nothing at a first impact).

Simultaneous contacts: ``sequential`` applies the contacts one after
another, each with the velocity the previous ones left (what the paper does
for three bodies: the physical Newton's-cradle result); ``simultaneous``
solves all of them as one LCP ``0 <= lam _|_ D lam + N Qdot^S + e min(0, N Qdot^-) >= 0``,
``D = N M^-1 N^T``, by the DEM-C min-map Newton. Many spheres in 3-D use the
same law through the DEM-C simulator (``StepOptions(integrator="cd_lagrange")``,
:func:`qlsbench.physics.spheres.stepping.step_cd_lagrange`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from qlsbench.checks import POSITIVE, whole_number
from qlsbench.errors import InputError
from qlsbench.physics.lcp import LCP
from qlsbench.physics.lcp.methods import solve_lcp


@dataclass
class ImpactSystem:
    """Single-node bodies in generalised coordinates with unilateral contacts.

    Parameters
    ----------
    mass : ndarray (K,)
        Diagonal of ``M``.
    force : callable
        ``Q -> -dV/dQ``.
    potential : callable
        ``Q -> V`` (for the energy column).
    normals : ndarray (C, K)
        Gap gradients ``N_k``; contact ``k`` is closed when ``N_k Q + gap0_k <= 0``.
    gap0 : ndarray (C,)
    restitution : float
        Newton's ``e`` in ``[0, 1]``.
    """

    mass: np.ndarray
    force: Callable[[np.ndarray], np.ndarray]
    potential: Callable[[np.ndarray], float]
    normals: np.ndarray
    gap0: np.ndarray
    restitution: float

    def __post_init__(self):
        self.mass = np.asarray(self.mass, dtype=float).reshape(-1)
        self.normals = np.asarray(self.normals, dtype=float).reshape(-1, len(self.mass))
        self.gap0 = np.asarray(self.gap0, dtype=float).reshape(-1)
        if not 0.0 <= self.restitution <= 1.0:
            raise InputError(f"restitution e must be in [0, 1], got {self.restitution!r}")
        if not np.all(self.mass > 0):
            raise InputError("masses must be > 0")

    def gaps(self, Q: np.ndarray) -> np.ndarray:
        return self.normals @ Q + self.gap0

    def energy(self, Q: np.ndarray, Qdot: np.ndarray) -> float:
        return 0.5 * float(self.mass @ Qdot**2) + float(self.potential(Q))


def contact_matrix(gaps: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """The paper's contact matrix ``A_n`` of eq. 42 for ``K`` single-node bodies.

    ``[A]_ii = -1`` for a body with a closed gap (``g_i < 0``), ``[A]_ij = 1``
    for bodies ``i`` and ``j`` in contact with each other; the entries sum to
    zero for two-body contacts. A body touching a fixed wall only (the
    bouncing ball) has its ``-1`` with no partner.

    Parameters
    ----------
    gaps : ndarray (K,)
        ``[g_n]_i``, the gap of each body.
    pairs : ndarray (P, 2)
        Bodies in contact with each other (both must have ``g < 0``).
    """
    gaps = np.asarray(gaps, dtype=float).reshape(-1)
    A = np.diag(np.where(gaps < 0, -1.0, 0.0))
    for i, j in np.asarray(pairs, dtype=int).reshape(-1, 2):
        A[i, j] = A[j, i] = 1.0
    return A


def mass_ratio(A: np.ndarray, mass: np.ndarray) -> np.ndarray:
    """``[H]_ij = [A M^-1 A^T]_ij^-1`` (eq. 43), the inverse taken element-wise (0 where the product is 0).

    For two bodies in contact its diagonal is ``m_i m_j / (m_i + m_j)``, the
    reduced mass of eq. 41, which is what :func:`impulses` computes per contact
    as ``(N_k M^-1 N_k^T)^-1`` (the known-H case).
    """
    product = np.asarray(A, dtype=float) @ np.diag(1.0 / np.asarray(mass, dtype=float)) @ np.asarray(A, dtype=float).T
    H = np.zeros_like(product)
    nonzero = product != 0
    H[nonzero] = 1.0 / product[nonzero]
    return H


def impulses(
    system: ImpactSystem, closed: np.ndarray, v_free: np.ndarray, v_before: np.ndarray, mode: str = "sequential"
) -> np.ndarray:
    """Velocity after the impulses of the closed contacts (eqs. 44, 48-50).

    Parameters
    ----------
    system : ImpactSystem
    closed : ndarray of int
        Indices of contacts with gap ``<= 0``.
    v_free : ndarray (K,)
        ``Qdot^S``, the velocity with the smooth forces applied.
    v_before : ndarray (K,)
        ``Qdot_{n+1/2}``, the pre-impact velocity the restitution law refers to.
    mode : str
        ``sequential`` or ``simultaneous``.
    """
    inv_m, e, v = 1.0 / system.mass, system.restitution, v_free.copy()
    if mode == "sequential":
        # Each contact's restitution refers to the velocity it meets: the pre-impact velocity plus the
        # impulses of the contacts resolved before it.
        before = v_before.copy()
        for k in closed:
            n = system.normals[k]
            H = 1.0 / float(n @ (inv_m * n))
            lam = -H * (n @ v + e * min(0.0, n @ before))
            dv = inv_m * n * max(0.0, lam)
            v += dv
            before += dv
        return v
    if mode != "simultaneous":
        raise InputError(f"impact mode must be 'sequential' or 'simultaneous', got {mode!r}")
    if len(closed):
        N = system.normals[closed]
        lcp = LCP(N @ (inv_m[:, None] * N.T), N @ v_free + e * np.minimum(0.0, N @ v_before))
        result = solve_lcp(lcp, "minmap")
        v += inv_m * (N.T @ result.y)
    return v


def integrate(system: ImpactSystem, Q0, Qdot0, h: float, steps: int, mode: str = "sequential") -> pd.DataFrame:
    """Run the CD-Lagrange scheme; one row per step ``n = 0..steps``.

    Columns: ``t``; ``q_i`` (``Q_n``) and ``qdot_i`` (``Qdot_{n+1/2}``, the
    velocity leaving ``t_n``) per body ``i``; ``contact`` (a contact closed at
    ``Q_n`` and pushed); ``energy``, ``1/2 Qdot_{n+1/2}^T M Qdot_{n+1/2} +
    V((Q_n + Q_{n+1})/2)`` (kinetic and potential at the same half step).
    """
    POSITIVE.check(h, "h (time step)")
    whole_number(steps, "steps", low=1)
    K = len(system.mass)
    Q = np.asarray(Q0, dtype=float).reshape(K).copy()
    v = np.asarray(Qdot0, dtype=float).reshape(K).copy()
    qs, vs, contact = np.empty((steps + 1, K)), np.empty((steps + 1, K)), np.zeros(steps + 1, dtype=bool)
    qs[0], vs[0] = Q, v
    for n in range(steps):
        Q = Q + h * v  # (45)
        v_free = v + h * system.force(Q) / system.mass
        closed = np.flatnonzero(system.gaps(Q) <= 0.0)
        v = impulses(system, closed, v_free, v, mode) if len(closed) else v_free
        contact[n + 1] = bool(np.any(v != v_free))
        qs[n + 1], vs[n + 1] = Q, v
    energy = [system.energy(qs[n] + 0.5 * h * vs[n], vs[n]) for n in range(steps + 1)]
    columns: dict[str, np.ndarray | list[float]] = {"t": h * np.arange(steps + 1)}
    for i in range(K):
        columns[f"q_{i}"], columns[f"qdot_{i}"] = qs[:, i], vs[:, i]
    columns["contact"], columns["energy"] = contact, energy
    return pd.DataFrame(columns)
