"""Assemble the velocity-level LCP of eq. 6 (De et al.) from contacts.

Unknowns ``y = (gamma_nu, beta, lambda)``: normal impulses (``nc``), impulses
along ``s`` friction directions per contact (``s * nc``) and one slack per
contact (``nc``). With ``mu = 0`` only ``gamma_nu`` remains.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from qlsbench.errors import InputError
from qlsbench.physics.contacts import Contacts
from qlsbench.physics.lcp import LCP


def check_friction_params(mu: float, s: int) -> None:
    """Refuse a negative friction coefficient or a friction polygon that is not balanced."""
    if not np.isfinite(mu) or mu < 0:
        raise InputError(f"friction coefficient mu must be >= 0, got {mu!r}")
    if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 4 or s % 2:
        raise InputError(f"number of friction directions s must be an even integer >= 4, got {s!r}")


def friction_directions(contacts: Contacts, s: int) -> np.ndarray:
    """``(nc, s, 3)`` balanced directions ``cos(2 pi l/s) t1 + sin(2 pi l/s) t2``.

    An even ``s`` puts each direction's opposite in the set, so the polygon
    is symmetric and positively spans the tangent plane.
    """
    angles = 2 * np.pi * np.arange(s) / s
    return (np.cos(angles)[None, :, None] * contacts.t1[:, None, :]
            + np.sin(angles)[None, :, None] * contacts.t2[:, None, :])


def _generalised(body_i: np.ndarray, body_j: np.ndarray, dirs: np.ndarray, n_spheres: int) -> sp.csc_matrix:
    """Columns ``d`` with ``+dir`` on sphere ``j`` and ``-dir`` on sphere ``i`` (none for walls).

    ``dirs`` is ``(ncols, 3)``; column ``c`` belongs to contact ``body_i[c], body_j[c]``.
    """
    ncols = len(dirs)
    cols = np.repeat(np.arange(ncols), 3)
    rows_j = (3 * np.repeat(body_j, 3) + np.tile(np.arange(3), ncols))
    vals_j = dirs.reshape(-1)
    sphere_i = np.repeat(body_i >= 0, 3)
    rows_i = (3 * np.repeat(body_i, 3) + np.tile(np.arange(3), ncols))[sphere_i]
    rows = np.concatenate([rows_j, rows_i])
    data = np.concatenate([vals_j, -vals_j[sphere_i]])
    allcols = np.concatenate([cols, cols[sphere_i]])
    return sp.csc_matrix((data, (rows, allcols)), shape=(3 * n_spheres, ncols))


def direction_matrices(contacts: Contacts, n_spheres: int, s: int) -> tuple[sp.csc_matrix, sp.csc_matrix]:
    """``D_nu`` (``3N x nc``) and ``D_hat`` (``3N x s nc``, contact-major) of the paper."""
    D_nu = _generalised(contacts.body_i, contacts.body_j, contacts.normal, n_spheres)
    dirs = friction_directions(contacts, s).reshape(-1, 3)
    D_hat = _generalised(np.repeat(contacts.body_i, s), np.repeat(contacts.body_j, s), dirs, n_spheres)
    return D_nu, D_hat


@dataclass(frozen=True)
class ContactLCP:
    """An assembled contact LCP with what is needed to apply its solution.

    Attributes
    ----------
    lcp : LCP
        The problem ``(Q, r)``.
    D_nu, D_hat : scipy.sparse.csc_matrix
        Direction matrices (``D_hat`` is ``None`` when ``mu = 0``).
    inv_mass : numpy.ndarray
        ``(3N,)`` diagonal of ``M^-1``.
    nc, s : int
        Contacts and friction directions.
    mu : float
        Friction coefficient.
    """

    lcp: LCP
    D_nu: sp.csc_matrix
    D_hat: sp.csc_matrix | None
    inv_mass: np.ndarray
    nc: int
    s: int
    mu: float

    def impulses(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Split a solution into ``gamma_nu`` and ``beta``."""
        gamma = y[: self.nc]
        beta = y[self.nc: self.nc * (1 + self.s)] if self.D_hat is not None else None
        return gamma, beta

    def velocity_change(self, y: np.ndarray) -> np.ndarray:
        """``M^-1 (D_nu gamma + D_hat beta)`` as a flat ``(3N,)`` vector (eq. 5)."""
        gamma, beta = self.impulses(y)
        f = self.D_nu @ gamma
        if beta is not None:
            f = f + self.D_hat @ beta
        return self.inv_mass * f


def _symmetric_product(G: sp.csc_matrix, inv_mass: np.ndarray) -> sp.csr_matrix:
    """``G^T M^-1 G``, made exactly symmetric.

    The sparse product sums entry ``(i, j)`` and ``(j, i)`` in different
    orders; averaging with the transpose removes that rounding, so symmetric
    subsystems are recorded as symmetric.
    """
    K = (G.T @ sp.diags(inv_mass) @ G).tocsr()
    return ((K + K.T) * 0.5).tocsr()


def assemble(contacts: Contacts, masses: np.ndarray, v_known: np.ndarray, h: float, mu: float,
             s: int = 8) -> ContactLCP:
    """Assemble ``Q`` and ``r`` of eq. 6.

    The normal rows of ``r`` carry ``gap / h``: the constraint then reads
    ``gap + h * (normal velocity) >= 0``, so a contact found within the margin
    may close its gap in this step but not overshoot into penetration.

    Parameters
    ----------
    contacts : Contacts
        Contacts of the current configuration.
    masses : numpy.ndarray
        ``(N,)`` sphere masses.
    v_known : numpy.ndarray
        ``(N, 3)`` velocities after the external forces only.
    h : float
        Time step.
    mu : float
        Friction coefficient (0: frictionless LCP on ``gamma_nu`` alone).
    s : int
        Friction directions per contact (even, >= 4).
    """
    if not h > 0:
        raise InputError(f"time step h must be > 0, got {h!r}")
    check_friction_params(mu, s)
    n = len(masses)
    nc = contacts.count
    inv_mass = np.repeat(1.0 / masses, 3)
    v = v_known.reshape(-1)
    if mu == 0.0:
        D_nu = _generalised(contacts.body_i, contacts.body_j, contacts.normal, n)
        Q = _symmetric_product(D_nu, inv_mass)
        return ContactLCP(LCP(Q, D_nu.T @ v + contacts.gap / h), D_nu, None, inv_mass, nc, s, 0.0)
    D_nu, D_hat = direction_matrices(contacts, n, s)
    r_nu = D_nu.T @ v + contacts.gap / h
    G = sp.hstack([D_nu, D_hat], format="csc")
    K = _symmetric_product(G, inv_mass)  # [[Dn'WDn, Dn'WDh], [Dh'WDn, Dh'WDh]]
    E = sp.kron(sp.identity(nc), np.ones((s, 1)), format="csr")  # (s nc) x nc
    top = sp.hstack([K, sp.vstack([sp.csr_matrix((nc, nc)), E])])
    bottom = sp.hstack([mu * sp.identity(nc), -E.T, sp.csr_matrix((nc, nc))])
    Q = sp.vstack([top, bottom], format="csr")
    r = np.concatenate([r_nu, D_hat.T @ v, np.zeros(nc)])
    return ContactLCP(LCP(Q, r), D_nu, D_hat, inv_mass, nc, s, float(mu))
