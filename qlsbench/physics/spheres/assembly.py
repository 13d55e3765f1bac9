"""Assemble the velocity-level LCP of eq. 6 (De et al.) from contacts.

Unknowns ``y = (gamma_nu, beta, lambda)``: normal impulses (``nc``), impulses
along ``s`` friction directions per contact (``s * nc``) and one slack per
contact (``nc``). With ``mu = 0`` only ``gamma_nu`` remains.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from qlsbench.checks import whole_number
from qlsbench.errors import InputError
from qlsbench.physics.lcp import LCP
from qlsbench.physics.spheres.contacts import Contacts


def check_friction_params(mu: float, s: int) -> None:
    """Refuse a negative friction coefficient or a friction polygon that is not balanced."""
    if not np.isfinite(mu) or mu < 0:
        raise InputError(f"friction coefficient mu must be >= 0, got {mu!r}")
    if whole_number(s, "number of friction directions s", low=4) % 2:
        raise InputError(f"number of friction directions s must be even, got {s!r}")


def friction_directions(contacts: Contacts, s: int) -> np.ndarray:
    """``(nc, s, 3)`` balanced directions ``cos(2 pi l/s) t1 + sin(2 pi l/s) t2``.

    An even ``s`` puts each direction's opposite in the set, so the polygon
    is symmetric and positively spans the tangent plane.
    """
    angles = 2 * np.pi * np.arange(s) / s
    return (
        np.cos(angles)[None, :, None] * contacts.t1[:, None, :]
        + np.sin(angles)[None, :, None] * contacts.t2[:, None, :]
    )


def _generalised(body_i: np.ndarray, body_j: np.ndarray, dirs: np.ndarray, n_spheres: int) -> sp.csc_matrix:
    """Columns ``d`` with ``+dir`` on sphere ``j`` and ``-dir`` on sphere ``i`` (none for walls).

    ``dirs`` is ``(ncols, 3)``; column ``c`` belongs to contact ``body_i[c], body_j[c]``.
    """
    ncols = len(dirs)
    cols = np.repeat(np.arange(ncols), 3)
    rows_j = 3 * np.repeat(body_j, 3) + np.tile(np.arange(3), ncols)
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
    """A contact LCP with what is needed to apply its solution; its matrix ``Q`` is built on first use.

    Contact-wise methods (:func:`~qlsbench.physics.spheres.nsgs.nsgs`) work on the
    contacts and velocities alone and never need ``Q``, whose sparse products
    cost more than the sweeps of most steps (10 ms of a 100-sphere frictional
    step); :attr:`lcp` builds it once when a matrix method asks.

    Attributes
    ----------
    r : numpy.ndarray
        The LCP's vector ``r``.
    D_nu, D_hat : scipy.sparse.csc_matrix
        Direction matrices (``D_hat`` is ``None`` when ``mu = 0``).
    inv_mass : numpy.ndarray
        ``(3N,)`` diagonal of ``M^-1``.
    nc, s : int
        Contacts and friction directions.
    mu : float
        Friction coefficient.
    contacts : Contacts
        The contacts the problem was assembled from (bodies and frames, for
        contact-wise methods such as :func:`~qlsbench.physics.spheres.nsgs.nsgs`).
    v_known : numpy.ndarray
        ``(3N,)`` velocities before the contact impulses.
    normal_offset : numpy.ndarray
        ``(nc,)`` what the normal rows of ``r`` add to the relative normal
        velocity (``gap / h``, or the restitution term of an impact).
    """

    r: np.ndarray
    D_nu: sp.csc_matrix
    D_hat: sp.csc_matrix | None
    inv_mass: np.ndarray
    nc: int
    s: int
    mu: float
    contacts: Contacts
    v_known: np.ndarray
    normal_offset: np.ndarray

    @cached_property
    def lcp(self) -> LCP:
        """The problem ``(Q, r)`` (``Q`` assembled here, once)."""
        return LCP(_lcp_matrix(self.D_nu, self.D_hat, self.inv_mass, self.mu, self.s), self.r)

    @property
    def size(self) -> int:
        """Unknowns of the LCP."""
        return len(self.r)

    def impulses(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Split a solution into ``gamma_nu`` and ``beta``."""
        gamma = y[: self.nc]
        beta = y[self.nc : self.nc * (1 + self.s)] if self.D_hat is not None else None
        return gamma, beta

    def velocity_change(self, y: np.ndarray) -> np.ndarray:
        """``M^-1 (D_nu gamma + D_hat beta)`` as a flat ``(3N,)`` vector (eq. 5)."""
        gamma, beta = self.impulses(y)
        f = self.D_nu @ gamma
        if beta is not None:
            f = f + self.D_hat @ beta
        return self.inv_mass * f

    def global_form(self) -> tuple[sp.csr_matrix, sp.csr_matrix, np.ndarray, np.ndarray, np.ndarray]:
        """The step's frictional contact problem in FCLIB's global form, ``M v = H r + f``, ``u = H^T v + w``.

        ``H`` has three columns per contact, its frame ``(normal, t1, t2)`` on sphere ``j`` and minus it on
        sphere ``i`` (none for a wall), so ``u`` is the relative velocity in the contact frame; ``f = M v_known``;
        ``w`` carries this step's normal offset (``gap / h`` or the impact term) on the normal rows; ``mu`` is
        the Coulomb coefficient of every contact, the cone the polygon of ``s`` directions approximates.
        Returns ``(M, H, f, w, mu)``.
        """
        c = self.contacts
        frames = np.stack([c.normal, c.t1, c.t2], axis=1).reshape(-1, 3)  # rows 3k, 3k+1, 3k+2: contact k
        H = _generalised(np.repeat(c.body_i, 3), np.repeat(c.body_j, 3), frames, len(self.inv_mass) // 3)
        M = sp.diags(1.0 / self.inv_mass, format="csr")
        w = np.zeros(3 * self.nc)
        w[0::3] = self.normal_offset
        return M, H.tocsr(), M @ self.v_known, w, np.full(self.nc, self.mu)

    def global_solution(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The LCP unknowns ``y`` in the variables of :meth:`global_form`: ``(v, u, r)``.

        ``r`` holds each contact's impulse in its frame ``(normal, t1, t2)``: ``gamma`` and the polygon's impulses
        ``beta`` summed along their directions, so ``H r = D_nu gamma + D_hat beta`` and ``v = v_known + M^-1 H r``
        (``M v = H r + f``) is the velocity the step applies; ``u = H^T v + w``. As ``sum(beta) <= mu gamma``
        and the polygon is inscribed in the Coulomb cone, ``r`` lies in the cone.
        """
        gamma, beta = self.impulses(y)
        r = np.zeros((self.nc, 3))
        r[:, 0] = gamma
        if beta is not None:  # the directions of friction_directions, in (t1, t2) coordinates
            angles = 2 * np.pi * np.arange(self.s) / self.s
            per_contact = beta.reshape(self.nc, self.s)
            r[:, 1], r[:, 2] = per_contact @ np.cos(angles), per_contact @ np.sin(angles)
        _, H, _, w, _ = self.global_form()
        v = self.v_known + self.velocity_change(y)
        return v, H.T @ v + w, r.reshape(-1)

    def natural_residual(self, y: np.ndarray) -> float:
        """``||min(y, Q y + r)||_2`` without ``Q``: ``Q y + r`` read off the velocities ``y`` gives.

        Equal to ``self.lcp.natural_residual(y)`` up to rounding (the products are summed in another order).
        """
        v = self.v_known + self.velocity_change(y)
        w = self.D_nu.T @ v + self.normal_offset
        if self.D_hat is not None:
            gamma, beta = self.impulses(y)
            assert beta is not None  # impulses has friction's beta whenever D_hat is there
            slide = self.D_hat.T @ v + np.repeat(y[self.nc * (1 + self.s) :], self.s)
            w = np.concatenate([w, slide, self.mu * gamma - beta.reshape(self.nc, self.s).sum(axis=1)])
        return float(np.linalg.norm(np.minimum(y, w)))


def _symmetric_product(G: sp.csc_matrix, inv_mass: np.ndarray) -> sp.csr_matrix:
    """``G^T M^-1 G``, made exactly symmetric.

    The sparse product sums entry ``(i, j)`` and ``(j, i)`` in different
    orders; averaging with the transpose removes that rounding, so symmetric
    subsystems are recorded as symmetric.
    """
    K = (G.T @ sp.diags(inv_mass) @ G).tocsr()
    return ((K + K.T) * 0.5).tocsr()


def _lcp_matrix(
    D_nu: sp.csc_matrix, D_hat: sp.csc_matrix | None, inv_mass: np.ndarray, mu: float, s: int
) -> sp.csr_matrix:
    """``Q`` of eq. 6: ``D_nu^T M^-1 D_nu`` without friction, else the block matrix with ``D_hat``, ``E`` and ``mu``."""
    if D_hat is None:
        return _symmetric_product(D_nu, inv_mass)
    nc = D_nu.shape[1]
    G = sp.hstack([D_nu, D_hat], format="csc")
    K = _symmetric_product(G, inv_mass)  # [[Dn'WDn, Dn'WDh], [Dh'WDn, Dh'WDh]]
    E = sp.kron(sp.identity(nc), np.ones((s, 1)), format="csr")  # (s nc) x nc
    top = sp.hstack([K, sp.vstack([sp.csr_matrix((nc, nc)), E])])
    bottom = sp.hstack([mu * sp.identity(nc), -E.T, sp.csr_matrix((nc, nc))])
    return sp.vstack([top, bottom], format="csr")


def assemble(
    contacts: Contacts,
    masses: np.ndarray,
    v_known: np.ndarray,
    h: float,
    mu: float,
    s: int = 8,
    *,
    normal_offset: np.ndarray | None = None,
) -> ContactLCP:
    """Assemble ``Q`` and ``r`` of eq. 6 (``Q`` on first use of the result's ``lcp``).

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
    normal_offset : numpy.ndarray, optional
        ``(nc,)`` term added to the normal rows of ``r`` in place of
        ``gap / h``. The CD-Lagrange impact law passes ``e D_nu^T v^-``, so the
        normal rows read ``D_nu^T (v^+ + e v^-) >= 0`` (see
        :func:`assemble_impact`).
    """
    if not h > 0:
        raise InputError(f"time step h must be > 0, got {h!r}")
    check_friction_params(mu, s)
    n = len(masses)
    nc = contacts.count
    inv_mass = np.repeat(1.0 / masses, 3)
    v = v_known.reshape(-1)
    offset = contacts.gap / h if normal_offset is None else np.asarray(normal_offset, dtype=float)
    if mu == 0.0:
        D_nu = _generalised(contacts.body_i, contacts.body_j, contacts.normal, n)
        return ContactLCP(D_nu.T @ v + offset, D_nu, None, inv_mass, nc, s, 0.0, contacts, v, offset)
    D_nu, D_hat = direction_matrices(contacts, n, s)
    r = np.concatenate([D_nu.T @ v + offset, D_hat.T @ v, np.zeros(nc)])
    return ContactLCP(r, D_nu, D_hat, inv_mass, nc, s, float(mu), contacts, v, offset)


def normal_velocities(contacts: Contacts, velocities: np.ndarray) -> np.ndarray:
    """``D_nu^T v``: relative normal velocity of each contact (positive: separating)."""
    v = np.asarray(velocities, dtype=float).reshape(-1, 3)
    rel = v[contacts.body_j].copy()
    on_sphere = contacts.body_i >= 0
    rel[on_sphere] -= v[contacts.body_i[on_sphere]]
    return np.sum(rel * contacts.normal, axis=1)


def assemble_impact(
    contacts: Contacts,
    masses: np.ndarray,
    v_free: np.ndarray,
    v_before: np.ndarray,
    restitution: float,
    h: float,
    mu: float,
    s: int = 8,
) -> ContactLCP:
    """The CD-Lagrange impact LCP ``0 <= gamma _|_ D_nu^T (v^+ + e v^-) >= 0`` (seed 000, eqs. 44, 48-50).

    ``v^+ = v^S + M^-1 (D_nu gamma + D_hat beta)`` is the velocity after the
    impulses, ``v^S`` (``v_free``) the velocity with the smooth forces of the
    step applied and ``v^-`` (``v_before``) the velocity entering the step.
    Newton's restitution law refers to the approach: the normal rows use
    ``e min(0, D_nu^T v^-)``, so a closed contact that was already
    separating gets ``D_nu^T v^+ >= 0`` rather than permission to approach at
    ``e`` times its separating speed. Friction rows are those of eq. 6 with
    no restitution (tangential impulses stop sliding, they do not bounce).

    Parameters
    ----------
    contacts : Contacts
        Closed contacts (gap ``<= 0``).
    masses : numpy.ndarray
        ``(N,)`` sphere masses.
    v_free, v_before : numpy.ndarray
        ``(N, 3)`` velocities ``v^S`` and ``v^-``.
    restitution : float
        Newton's ``e`` in ``[0, 1]``.
    h, mu, s : float, float, int
        Time step, friction coefficient and friction directions (as :func:`assemble`).
    """
    if not (np.isfinite(restitution) and 0.0 <= restitution <= 1.0):
        raise InputError(f"restitution e must be in [0, 1], got {restitution!r}")
    approach = np.minimum(normal_velocities(contacts, v_before), 0.0)
    return assemble(contacts, masses, v_free, h, mu, s, normal_offset=restitution * approach)
