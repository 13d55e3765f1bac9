"""Gauss-Seidel on the exact Coulomb cone: the reference that the ``s``-facet polygon of eq. 6 approximates.

The stepper's contact problem (:class:`~qlsbench.physics.spheres.assembly.ContactLCP`) replaces the
Coulomb disk ``|P_t| <= mu gamma`` by a regular ``s``-gon inscribed in it. This module solves the same
contacts, with the same normal rows, on the disk itself, so the two answers differ only by the facets.

Holding every other contact fixed, contact ``c`` sees ``u = u_free + w P`` with ``w = 1/m_i + 1/m_j``:
the spheres do not rotate, so its Delassus block is ``w`` times the 3x3 identity (see
:mod:`~qlsbench.physics.spheres.nsgs`). Its local problem then separates:

* normal: ``gamma = max(0, -(u_free_n + offset) / w)``, as in the polygon's LCP;
* tangent: maximal dissipation ``min w/2 |P_t|^2 + P_t . u_free_t`` over the disk of radius
  ``mu gamma``, whose solution is the projection of ``-u_free_t / w`` onto that disk (a radial scaling).

A sweep over the contacts is Siconos' ``fc3d`` NSGS with this local solver, on the velocity-level
problem the stepper states (the normal rows are not coupled to the sliding speed: the associated
law the polygonal LCP also solves, so the comparison is of cones, not of formulations).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from qlsbench.checks import POSITIVE, whole_number
from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.physics.spheres.assembly import ContactLCP

# one contact's relative velocity and its frame components, read the same way as the polygon's sweeps read them
from qlsbench.physics.spheres.nsgs import _along, _relative

#: What the sweeps read of the contacts: body_i, body_j, normal, t1, t2 and the normal rows' offset.
_Geometry = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class ExactConeResult:
    """The impulses and velocities of an exact-cone solve.

    Attributes
    ----------
    normal : numpy.ndarray
        ``(nc,)`` normal impulses ``gamma``.
    tangent : numpy.ndarray
        ``(nc, 2)`` friction impulses in each contact's ``(t1, t2)`` frame; ``|tangent| <= mu normal``.
    velocities : numpy.ndarray
        ``(N, 3)`` sphere velocities after the impulses (``v_known`` plus their change).
    status : Status
        ``converged`` when the residual met the tolerance, else ``max_iter``.
    sweeps : int
        Sweeps run.
    residual : float
        :func:`exact_cone_residual` of the answer.
    """

    normal: np.ndarray
    tangent: np.ndarray
    velocities: np.ndarray
    status: Status
    sweeps: int
    residual: float


def exact_cone_nsgs(
    problem: ContactLCP,
    *,
    tol: float = 1e-10,
    max_sweeps: int = 200_000,
) -> ExactConeResult:
    """Solve ``problem``'s contacts on the exact Coulomb cone by nonsmooth Gauss-Seidel sweeps, from zero.

    Parameters
    ----------
    problem : ContactLCP
        The stepper's contact problem; its friction coefficient ``mu`` is used, its facet count ``s`` not.
    tol : float
        Stop when :func:`exact_cone_residual` ``<= tol (1 + ||u_free||)``, ``u_free`` the contacts'
        relative velocities before any impulse (normal rows with their offsets).
    max_sweeps : int
        Sweep cap.

    Returns
    -------
    ExactConeResult
    """
    POSITIVE.check(tol, "exact-cone tol")
    whole_number(max_sweeps, "exact-cone max_sweeps", low=1)
    mu = float(problem.mu)
    if not np.isfinite(mu) or mu < 0:
        raise InputError(f"exact-cone friction coefficient mu must be >= 0, got {mu!r}")
    geometry, inv_mass = _geometry(problem)
    v = problem.v_known.reshape(-1, 3).copy()
    gamma, tangent = np.zeros(problem.nc), np.zeros((problem.nc, 2))
    scale = 1.0 + float(np.linalg.norm(_residuals(*geometry, inv_mass, mu, v, gamma, tangent)))
    sweeps, residual = _sweep_until(*geometry, inv_mass, mu, v, gamma, tangent, tol * scale, max_sweeps)
    # the sweeps moved v one contact at a time; recompute it from the impulses so rounding does not accumulate
    v = _velocities(problem, gamma, tangent)
    residual = float(np.linalg.norm(_residuals(*geometry, inv_mass, mu, v, gamma, tangent)))
    status = Status.CONVERGED if residual <= tol * scale else Status.MAX_ITER
    return ExactConeResult(gamma, tangent, v, status, int(sweeps), residual)


def exact_cone_residual(problem: ContactLCP, normal: np.ndarray, tangent: np.ndarray) -> float:
    """The exact cone's natural residual of impulses ``(normal, tangent)`` on ``problem``'s contacts.

    Per contact, in velocity units: ``min(w gamma, u_n + offset)`` and ``w (P_t - proj(P_t - u_t / w))``,
    ``proj`` onto the disk of radius ``mu gamma`` and ``u`` the relative velocity after all impulses. Both
    vanish exactly at a solution (maximal dissipation: ``P_t`` is the disk's point that minimises
    ``P_t . u_t``).
    """
    normal = np.asarray(normal, dtype=np.float64)
    tangent = np.asarray(tangent, dtype=np.float64).reshape(-1, 2)
    if normal.shape != (problem.nc,) or tangent.shape != (problem.nc, 2):
        raise InputError(f"exact-cone impulses must be ({problem.nc},) and ({problem.nc}, 2)")
    geometry, inv_mass = _geometry(problem)
    v = _velocities(problem, normal, tangent)
    return float(np.linalg.norm(_residuals(*geometry, inv_mass, problem.mu, v, normal, tangent)))


def _geometry(problem: ContactLCP) -> tuple[_Geometry, np.ndarray]:
    """The contacts' arrays the sweeps read (pairs, frames, normal offsets) and each sphere's inverse mass."""
    c = problem.contacts
    offset = np.asarray(problem.normal_offset, dtype=np.float64)
    return (c.body_i, c.body_j, c.normal, c.t1, c.t2, offset), problem.inv_mass[::3].copy()


def _velocities(problem: ContactLCP, normal: np.ndarray, tangent: np.ndarray) -> np.ndarray:
    """``v_known + M^-1 H P``: the sphere velocities the contact impulses give, ``(N, 3)``."""
    c = problem.contacts
    force = normal[:, None] * c.normal + tangent[:, :1] * c.t1 + tangent[:, 1:] * c.t2
    out = np.zeros((len(problem.v_known) // 3, 3))
    np.add.at(out, c.body_j, force)
    inner = c.body_i >= 0
    np.add.at(out, c.body_i[inner], -force[inner])
    return problem.v_known.reshape(-1, 3) + problem.inv_mass.reshape(-1, 3) * out


@numba.njit(cache=True, inline="always")
def _frame(normal, t1, t2, c, r0, r1, r2):
    """``r`` in contact ``c``'s frame ``(n, t1, t2)``."""
    return _along(normal, c, r0, r1, r2), _along(t1, c, r0, r1, r2), _along(t2, c, r0, r1, r2)


@numba.njit(cache=True, inline="always")
def _disk(x1, x2, radius):
    """Project ``(x1, x2)`` onto the disk of ``radius`` about the origin."""
    norm = np.sqrt(x1 * x1 + x2 * x2)
    if norm <= radius:
        return x1, x2
    if radius <= 0.0:
        return 0.0, 0.0
    return x1 * radius / norm, x2 * radius / norm


@numba.njit(cache=True)
def _update(body_i, body_j, normal, t1, t2, offset, inv_mass, mu, v, gamma, tangent, c):
    """Solve contact ``c`` exactly with the others fixed; ``v`` follows the impulse change."""
    i, j = body_i[c], body_j[c]
    w = inv_mass[j] + (inv_mass[i] if i >= 0 else 0.0)
    g0, p1, p2 = gamma[c], tangent[c, 0], tangent[c, 1]
    r0, r1, r2 = _relative(v, i, j)
    un, u1, u2 = _frame(normal, t1, t2, c, r0, r1, r2)
    # the relative velocity without this contact's own impulse
    un, u1, u2 = un - w * g0, u1 - w * p1, u2 - w * p2
    g = max(-(un + offset[c]) / w, 0.0)
    q1, q2 = _disk(-u1 / w, -u2 / w, mu * g)
    gamma[c], tangent[c, 0], tangent[c, 1] = g, q1, q2
    dg, d1, d2 = g - g0, q1 - p1, q2 - p2
    for k in range(3):
        change = dg * normal[c, k] + d1 * t1[c, k] + d2 * t2[c, k]
        v[j, k] += inv_mass[j] * change
        if i >= 0:
            v[i, k] -= inv_mass[i] * change


@numba.njit(cache=True)
def _residuals(body_i, body_j, normal, t1, t2, offset, inv_mass, mu, v, gamma, tangent):
    """Each contact's three residual rows (see :func:`exact_cone_residual`), flattened."""
    out = np.zeros(3 * body_i.shape[0])
    for c in range(body_i.shape[0]):
        i, j = body_i[c], body_j[c]
        w = inv_mass[j] + (inv_mass[i] if i >= 0 else 0.0)
        r0, r1, r2 = _relative(v, i, j)
        un, u1, u2 = _frame(normal, t1, t2, c, r0, r1, r2)
        out[3 * c] = min(w * gamma[c], un + offset[c])
        p1, p2 = tangent[c, 0], tangent[c, 1]
        q1, q2 = _disk(p1 - u1 / w, p2 - u2 / w, mu * gamma[c])
        out[3 * c + 1], out[3 * c + 2] = w * (p1 - q1), w * (p2 - q2)
    return out


@numba.njit(cache=True)
def _sweep_until(body_i, body_j, normal, t1, t2, offset, inv_mass, mu, v, gamma, tangent, target, count):
    """At most ``count`` sweeps, stopping once the residual meets ``target``: sweeps run and the residual."""
    residual = np.inf
    for sweep in range(1, count + 1):
        for c in range(body_i.shape[0]):
            _update(body_i, body_j, normal, t1, t2, offset, inv_mass, mu, v, gamma, tangent, c)
        rows = _residuals(body_i, body_j, normal, t1, t2, offset, inv_mass, mu, v, gamma, tangent)
        residual = np.sqrt(np.sum(rows**2))
        if residual <= target:
            return sweep, residual
    return count, residual


__all__ = ["ExactConeResult", "exact_cone_nsgs", "exact_cone_residual"]
