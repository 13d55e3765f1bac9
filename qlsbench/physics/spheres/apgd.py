"""Accelerated projected gradient (APGD, Mazhar et al., ACM TOG 2015) on the stepper's frictional contact problem.

The contact problem of eq. 6 in each contact's frame: impulses ``P_c = (gamma, P_t)`` and relative velocities
``u = W P + q``, ``W = H^T M^-1 H`` (the Delassus operator, applied through the sphere velocities, never formed)
and ``q`` the free relative velocity with the normal rows' offset. ``u`` is the gradient of
``f(P) = 1/2 P^T W P + q^T P``, the cone complementarity problem's objective, and APGD is Nesterov's accelerated
projected gradient on it with the adaptive restart of O'Donoghue and Candes (the momentum is dropped when the
step points uphill) and Mazhar et al.'s keep-the-best answer.

What differs from Mazhar et al. and why:

* The projection. Their convex cone complementarity problem (Anitescu's relaxation) projects ``P_c`` jointly on
  the friction cone; its solutions give a sliding contact a separating normal velocity ``mu |u_t|``, which is
  not the LCP the stepper, its datasets and NSGS solve. Here the normal impulse is projected first,
  ``gamma = max(0, .)``, and the friction onto the polygon of radius ``mu gamma`` (the ``s``-gon of eq. 6,
  :func:`~qlsbench.physics.spheres.nsgs._polygon_point`). The fixed points of this map are exactly the solutions
  of eq. 6's LCP (normal complementarity, and maximal dissipation at the given normal impulse), so the answer
  is judged by the same natural residual as NSGS's and min-map Newton's.
* The metric. Each contact's Delassus block is ``w_c`` times the identity (the spheres do not rotate), and a
  contact's step is scaled by ``1 / w_c`` (Jacobi preconditioning), so a light sphere's contacts and a wall's
  take steps of their own size. The step length is ``1 / L`` with ``L`` a power-iteration estimate of the
  largest eigenvalue of ``D^-1 W`` (``D = diag(w_c)``), raised by 10 %; no backtracking, which would cost a
  second product with ``W`` per iteration.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from qlsbench.checks import POSITIVE, whole_number
from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.physics.lcp import LCPResult
from qlsbench.physics.spheres.assembly import ContactLCP
from qlsbench.physics.spheres.exact_cone import ExactConeResult
from qlsbench.physics.spheres.nsgs import _along, _polygon_point, _relative, nsgs

#: Power iterations that estimate the step, and the margin put on the estimate (it is a lower bound).
_POWER_ITERATIONS, _MARGIN = 30, 1.1
#: :func:`apgd_polished`'s rounds: APGD iterations per round, then NSGS sweeps from its best answer. On the
#: 1,000-sphere pile's hard step APGD alone plateaus at 3.7x the tolerance after 37,800 iterations (12 s), with
#: 86 % of the residual on 10 of 3,500 contacts; NSGS from APGD's point clears them in tens of sweeps. Chosen by
#: measurement on the pile's 100 steps (iterations of the slowest step, and the median step's 805; the median
#: step never ends a round): 1000/50 27,150; 1000/100 22,840; 2000/50 12,070; 2000/100 37,800 and unconverged;
#: 3000/30 8,810; 3000/50 6,110; 4000/20 16,090; 4000/30 8,070; 4000/50 8,110; 5000/50 10,110.
POLISH_EVERY, POLISH_SWEEPS = 3000, 50


@dataclass(frozen=True)
class APGDOptions:
    """Settings of :func:`apgd`.

    Attributes
    ----------
    max_iter : int
        Iteration cap (each iteration applies ``W`` once, at the cost of about one NSGS sweep).
    check_every : int
        Iterations between two evaluations of the natural residual (each applies ``W`` once more).
    restart : bool
        Adaptive restart: drop the momentum when the gradient mapping at the extrapolated point has a positive
        component along the last step (O'Donoghue and Candes' gradient scheme).
    """

    max_iter: int = 200_000
    check_every: int = 10
    restart: bool = True

    def __post_init__(self) -> None:
        whole_number(self.max_iter, "APGD max_iter", low=1)
        whole_number(self.check_every, "APGD check_every", low=1)


def apgd(
    problem: ContactLCP,
    y0: np.ndarray | None = None,
    *,
    tol: float = 1e-10,
    options: APGDOptions | None = None,
) -> LCPResult:
    """Solve a frictional contact LCP by APGD with adaptive restart (module docstring).

    Parameters
    ----------
    problem : ContactLCP
        A frictional contact LCP (``problem.mu > 0``) of eq. 6.
    y0 : numpy.ndarray, optional
        Start in the LCP's layout ``(gamma, beta, lambda)``; zero by default.
    tol : float
        Stop when ``||min(y, Q y + r)|| <= tol (1 + ||r||)``, NSGS's and min-map Newton's rule.
    options : APGDOptions, optional
        Iteration cap, residual checks and restart.

    Returns
    -------
    LCPResult
        ``y`` in the LCP's layout (the best answer seen, by natural residual), ``iterations`` the gradient
        steps, ``info`` with ``restarts`` and ``lipschitz`` (the step's ``L``).
    """
    options = APGDOptions() if options is None else options
    POSITIVE.check(tol, "APGD tol")
    if problem.D_hat is None or not problem.mu > 0:
        raise InputError("APGD solves frictional contact LCPs (mu > 0); a frictionless one goes to min-map Newton")
    nc, s = problem.nc, problem.s
    y = np.zeros(problem.size) if y0 is None else np.maximum(np.asarray(y0, dtype=np.float64), 0.0)
    if y.shape != (problem.size,):
        raise InputError(f"APGD start y0 has shape {y.shape}, expected ({problem.size},)")
    geometry, inv_mass, v_known = _arrays(problem)
    angles = 2.0 * np.pi * np.arange(s) / s
    cos, sin = np.cos(angles), np.sin(angles)
    x = _frame_impulses(y, nc, s, cos, sin)
    lipschitz = _MARGIN * _largest_eigenvalue(geometry, inv_mass, nc)
    target = tol * (1.0 + float(np.linalg.norm(problem.r)))
    best, iterations, restarts = _loop(
        *geometry,
        inv_mass,
        v_known,
        float(problem.mu),
        s,
        cos,
        sin,
        x,
        1.0 / lipschitz,
        target,
        options.max_iter,
        options.check_every,
        options.restart,
    )
    answer = _lcp_layout(best, geometry, inv_mass, v_known, float(problem.mu), s, cos, sin)
    residual = problem.natural_residual(answer)
    info = {"restarts": int(restarts), "lipschitz": float(lipschitz)}
    if residual <= target:
        return LCPResult(answer, Status.CONVERGED, int(iterations), residual, "", [residual], info)
    message = f"APGD: residual {residual:.2e} above {target:.2e} after {iterations} iterations"
    return LCPResult(answer, Status.MAX_ITER, int(iterations), residual, message, [residual], info)


def apgd_polished(
    problem: ContactLCP,
    y0: np.ndarray | None = None,
    *,
    tol: float = 1e-10,
    max_iter: int = 200_000,
    every: int = POLISH_EVERY,
    sweeps: int = POLISH_SWEEPS,
) -> LCPResult:
    """APGD in rounds, each round short of ``tol`` followed by a few NSGS sweeps (the stepper's ``apgd`` finish).

    APGD's error on a hard step sits on a handful of contacts that its global step moves slowly (see
    :data:`POLISH_EVERY`); NSGS solves contacts one by one, exactly, and from a point APGD has brought close it
    clears them in tens of sweeps, while from the warm start it needs tens of thousands. Each round runs ``every``
    APGD iterations; if they miss ``tol``, ``sweeps`` NSGS sweeps start from APGD's best answer, and the next
    round's APGD starts where NSGS stopped (its momentum and step estimated afresh).

    Parameters
    ----------
    problem : ContactLCP
        A frictional contact LCP (``problem.mu > 0``).
    y0 : numpy.ndarray, optional
        Start in the LCP's layout; zero by default.
    tol : float
        :func:`apgd`'s and :func:`~qlsbench.physics.spheres.nsgs.nsgs`'s rule.
    max_iter : int
        Cap on APGD iterations and NSGS sweeps together (one costs about what the other does).
    every, sweeps : int
        APGD iterations per round, and NSGS sweeps after each round short of ``tol``.

    Returns
    -------
    LCPResult
        The last method's answer; ``iterations`` counts both methods' iterations, ``info["rounds"]`` the
        rounds run.
    """
    whole_number(max_iter, "APGD max_iter", low=1)
    whole_number(every, "APGD polish every", low=1)
    whole_number(sweeps, "APGD polish sweeps", low=1)
    y, used, rounds = y0, 0, 0
    while True:
        rounds += 1
        result = apgd(problem, y, tol=tol, options=APGDOptions(max_iter=min(every, max_iter - used)))
        used += result.iterations
        if result.status == Status.CONVERGED or used >= max_iter:
            break
        result = nsgs(problem, result.y, tol=tol, max_sweeps=min(sweeps, max_iter - used))
        used += result.iterations
        if result.status == Status.CONVERGED or used >= max_iter:
            break
        y = result.y
    message = "" if result.status == Status.CONVERGED else f"{result.message} ({rounds} rounds, {used} iterations)"
    info = {**result.info, "rounds": rounds}
    return LCPResult(result.y, result.status, used, result.residual, message, [result.residual], info)


#: What the iterations read of the contacts: body_i, body_j, normal, t1, t2 and the normal rows' offset.
_Geometry = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _arrays(problem: ContactLCP) -> tuple[_Geometry, np.ndarray, np.ndarray]:
    """The contacts' arrays (pairs, frames, normal offsets), each sphere's inverse mass and ``v_known``."""
    c = problem.contacts
    offset = np.asarray(problem.normal_offset, dtype=np.float64)
    geometry = (c.body_i, c.body_j, c.normal, c.t1, c.t2, offset)
    return geometry, problem.inv_mass[::3].copy(), problem.v_known.reshape(-1, 3).copy()


def _frame_impulses(y: np.ndarray, nc: int, s: int, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """``(nc, 3)`` impulses ``(gamma, P_t1, P_t2)`` of an LCP-layout ``y`` (its beta summed along the facets)."""
    beta = y[nc : nc * (1 + s)].reshape(nc, s)
    return np.column_stack([y[:nc], beta @ cos, beta @ sin])


def _largest_eigenvalue(geometry: _Geometry, inv_mass: np.ndarray, nc: int) -> float:
    """A power-iteration estimate of the largest eigenvalue of ``D^-1 W`` (a lower bound)."""
    bi, bj, n, t1, t2, _ = geometry
    weight = _weights(bi, bj, inv_mass)
    vector = np.random.default_rng(0).standard_normal((nc, 3))
    value = 1.0
    for _ in range(_POWER_ITERATIONS):
        vector /= np.sqrt(np.sum(weight[:, None] * vector**2))
        image = _delassus(bi, bj, n, t1, t2, inv_mass, vector) / weight[:, None]
        value = float(np.sum(weight[:, None] * vector * image))  # Rayleigh quotient in the D metric
        vector = image
    return max(value, 1e-300)


@numba.njit(cache=True)
def _weights(body_i, body_j, inv_mass):
    """Each contact's Delassus block ``w_c = 1/m_i + 1/m_j`` (``1/m_j`` against a wall)."""
    out = np.empty(body_i.shape[0])
    for c in range(body_i.shape[0]):
        i, j = body_i[c], body_j[c]
        out[c] = inv_mass[j] + (inv_mass[i] if i >= 0 else 0.0)
    return out


@numba.njit(cache=True)
def _spread(body_i, body_j, normal, t1, t2, inv_mass, x, v):
    """Add ``M^-1 H x`` to the sphere velocities ``v`` (in place)."""
    for c in range(body_i.shape[0]):
        i, j = body_i[c], body_j[c]
        for k in range(3):
            change = x[c, 0] * normal[c, k] + x[c, 1] * t1[c, k] + x[c, 2] * t2[c, k]
            v[j, k] += inv_mass[j] * change
            if i >= 0:
                v[i, k] -= inv_mass[i] * change


@numba.njit(cache=True)
def _contact_velocities(body_i, body_j, normal, t1, t2, offset, v, u):
    """Each contact's relative velocity in its frame, the normal row with its offset: ``u = H^T v + w``."""
    for c in range(body_i.shape[0]):
        r0, r1, r2 = _relative(v, body_i[c], body_j[c])
        u[c, 0] = _along(normal, c, r0, r1, r2) + offset[c]
        u[c, 1] = _along(t1, c, r0, r1, r2)
        u[c, 2] = _along(t2, c, r0, r1, r2)


def _delassus(bi, bj, n, t1, t2, inv_mass, x):
    """``W x`` (no free velocity, no offset)."""
    v = np.zeros((inv_mass.shape[0], 3))
    _spread(bi, bj, n, t1, t2, inv_mass, x, v)
    out = np.empty_like(x)
    _contact_velocities(bi, bj, n, t1, t2, np.zeros(bi.shape[0]), v, out)
    return out


@numba.njit(cache=True)
def _gradient(body_i, body_j, normal, t1, t2, offset, inv_mass, v_known, x, v, u):
    """``u = W x + q``: the contact velocities the impulses ``x`` give (``v`` is overwritten with the spheres')."""
    v[:] = v_known
    _spread(body_i, body_j, normal, t1, t2, inv_mass, x, v)
    _contact_velocities(body_i, body_j, normal, t1, t2, offset, v, u)


@numba.njit(cache=True, inline="always")
def _project(g, p1, p2, mu, s, cos, sin):
    """Normal impulse onto ``>= 0``, then the friction onto the polygon of radius ``mu gamma`` (``s == 0``: the
    disk, the exact Coulomb cone)."""
    g = max(g, 0.0)
    if mu * g <= 0.0:
        return g, 0.0, 0.0
    if s == 0:
        norm = np.sqrt(p1 * p1 + p2 * p2)
        if norm <= mu * g:
            return g, p1, p2
        return g, p1 * mu * g / norm, p2 * mu * g / norm
    sector, b0, b1 = _polygon_point(p1, p2, mu * g, s, cos, sin)
    nxt = (sector + 1) % s
    return g, b0 * cos[sector] + b1 * cos[nxt], b0 * sin[sector] + b1 * sin[nxt]


@numba.njit(cache=True)
def _residual(x, u, mu, s, cos, sin):
    """``||min(y, Q y + r)||`` of the LCP-layout ``y`` of the impulses ``x`` whose contact velocities are ``u``
    (``s == 0``: :func:`_natural_map`, the exact cone's)."""
    if s == 0:
        return _natural_map(x, u, mu)
    total = 0.0
    for c in range(x.shape[0]):
        g = x[c, 0]
        m = min(g, u[c, 0])
        total += m * m
        slide = 0.0
        for k in range(s):
            slide = max(slide, -(cos[k] * u[c, 1] + sin[k] * u[c, 2]))
        used = 0.0
        if mu * g > 0.0:
            sector, b0, b1 = _polygon_point(x[c, 1], x[c, 2], mu * g, s, cos, sin)
            nxt = (sector + 1) % s
            for k in range(s):
                b = b0 if k == sector else (b1 if k == nxt else 0.0)
                used += b
                m = min(b, cos[k] * u[c, 1] + sin[k] * u[c, 2] + slide)
                total += m * m
        else:
            for k in range(s):
                m = min(0.0, cos[k] * u[c, 1] + sin[k] * u[c, 2] + slide)
                total += m * m
        m = min(slide, mu * g - used)
        total += m * m
    return np.sqrt(total)


@numba.njit(cache=True)
def _loop(
    body_i,
    body_j,
    normal,
    t1,
    t2,
    offset,
    inv_mass,
    v_known,
    mu,
    s,
    cos,
    sin,
    x0,
    step,
    target,
    max_iter,
    check_every,
    restart,
):
    """APGD's iterations from ``x0``: the best answer (by natural residual), the iterations and the restarts."""
    nc = x0.shape[0]
    weight = _weights(body_i, body_j, inv_mass)
    v, u = np.empty_like(v_known), np.empty((nc, 3))
    x = np.empty_like(x0)
    for c in range(nc):
        x[c, 0], x[c, 1], x[c, 2] = _project(x0[c, 0], x0[c, 1], x0[c, 2], mu, s, cos, sin)
    previous, y, best = x.copy(), x.copy(), x.copy()
    _gradient(body_i, body_j, normal, t1, t2, offset, inv_mass, v_known, x, v, u)
    best_residual = _residual(x, u, mu, s, cos, sin)
    theta, restarts, done = 1.0, 0, 0
    while best_residual > target and done < max_iter:
        _gradient(body_i, body_j, normal, t1, t2, offset, inv_mass, v_known, y, v, u)
        uphill = 0.0
        for c in range(nc):
            a = step / weight[c]
            g, p1, p2 = _project(y[c, 0] - a * u[c, 0], y[c, 1] - a * u[c, 1], y[c, 2] - a * u[c, 2], mu, s, cos, sin)
            previous[c, 0], previous[c, 1], previous[c, 2] = x[c, 0], x[c, 1], x[c, 2]
            x[c, 0], x[c, 1], x[c, 2] = g, p1, p2
            for k in range(3):  # the gradient mapping (y - x) / a against the step taken, in the D metric
                uphill += weight[c] * (y[c, k] - x[c, k]) * (x[c, k] - previous[c, k])
        done += 1
        following = 0.5 * (-theta * theta + theta * np.sqrt(theta * theta + 4.0))
        momentum = theta * (1.0 - theta) / (theta * theta + following)
        theta = following
        if restart and uphill > 0.0:
            momentum, theta = 0.0, 1.0
            restarts += 1
        for c in range(nc):
            for k in range(3):
                y[c, k] = x[c, k] + momentum * (x[c, k] - previous[c, k])
        if done % check_every == 0 or done == max_iter:
            _gradient(body_i, body_j, normal, t1, t2, offset, inv_mass, v_known, x, v, u)
            residual = _residual(x, u, mu, s, cos, sin)
            if residual < best_residual:
                best_residual = residual
                best[:] = x
    return best, done, restarts


@numba.njit(cache=True)
def _natural_map(x, u, mu):
    """Siconos' fc3d error before its scaling: ``||r - proj_K(r - (u + mu |u_t| e_n))||`` over the contacts,
    ``K`` the exact cone ``|P_t| <= mu gamma`` (De Saxce's natural map; zero exactly at a Coulomb solution)."""
    total = 0.0
    for c in range(x.shape[0]):
        slide = np.sqrt(u[c, 1] * u[c, 1] + u[c, 2] * u[c, 2])
        zn, z1, z2 = x[c, 0] - u[c, 0] - mu * slide, x[c, 1] - u[c, 1], x[c, 2] - u[c, 2]
        t = np.sqrt(z1 * z1 + z2 * z2)
        if mu * zn >= t:
            pn, p1, p2 = zn, z1, z2
        elif mu * t <= -zn:
            pn, p1, p2 = 0.0, 0.0, 0.0
        else:
            pn = (zn + mu * t) / (1.0 + mu * mu)
            p1, p2 = mu * pn * z1 / t, mu * pn * z2 / t
        total += (x[c, 0] - pn) ** 2 + (x[c, 1] - p1) ** 2 + (x[c, 2] - p2) ** 2
    return np.sqrt(total)


def apgd_exact_cone(
    problem: ContactLCP,
    start: np.ndarray | None = None,
    *,
    tol: float = 1e-10,
    options: APGDOptions | None = None,
) -> ExactConeResult:
    """APGD on ``problem``'s contacts with the exact Coulomb cone instead of the polygon, stopped on Siconos'
    merit: the natural map's residual (:func:`_natural_map`) ``<= tol ||q||``, ``q`` the contacts' velocities
    before any impulse (the measure and scaling of Siconos' ``fc3d_compute_error``). Its problem and stopping
    rule are those of Siconos' fc3d solvers, so the two can be timed side by side.

    Parameters
    ----------
    problem : ContactLCP
        The stepper's contact problem; its ``mu`` is used, its facet count not.
    start : numpy.ndarray, optional
        ``(nc, 3)`` impulses ``(gamma, P_t1, P_t2)`` in the contact frames; zero by default.
    tol, options
        As :func:`apgd`.

    Returns
    -------
    ExactConeResult
        ``residual`` is the scaled natural-map residual (Siconos' error), ``sweeps`` the iterations.
    """
    options = APGDOptions() if options is None else options
    POSITIVE.check(tol, "APGD tol")
    x = np.zeros((problem.nc, 3)) if start is None else np.asarray(start, dtype=np.float64)
    if x.shape != (problem.nc, 3):
        raise InputError(f"APGD start has shape {x.shape}, expected ({problem.nc}, 3)")
    geometry, inv_mass, v_known = _arrays(problem)
    mu, empty = float(problem.mu), np.empty(0)
    v, u = np.empty_like(v_known), np.empty((problem.nc, 3))
    _gradient(*geometry, inv_mass, v_known, np.zeros((problem.nc, 3)), v, u)
    norm = float(np.linalg.norm(u))
    scale = norm if norm > np.finfo(float).eps else 1.0
    lipschitz = _MARGIN * _largest_eigenvalue(geometry, inv_mass, problem.nc)
    best, iterations, _ = _loop(
        *geometry, inv_mass, v_known, mu, 0, empty, empty, x, 1.0 / lipschitz, tol * scale,
        options.max_iter, options.check_every, options.restart,
    )  # fmt: skip
    _gradient(*geometry, inv_mass, v_known, best, v, u)
    residual = float(_natural_map(best, u, mu)) / scale
    status = Status.CONVERGED if residual <= tol else Status.MAX_ITER
    return ExactConeResult(best[:, 0].copy(), best[:, 1:].copy(), v.copy(), status, int(iterations), residual)


def _lcp_layout(x, geometry: _Geometry, inv_mass, v_known, mu, s, cos, sin) -> np.ndarray:
    """The LCP-layout ``y = (gamma, beta, lambda)`` of frame impulses ``x`` (inside their polygons)."""
    nc = x.shape[0]
    v, u = np.empty_like(v_known), np.empty((nc, 3))
    _gradient(*geometry, inv_mass, v_known, x, v, u)
    beta, slide = _split(x, u, mu, s, cos, sin)
    return np.concatenate([x[:, 0], beta.ravel(), slide])


@numba.njit(cache=True)
def _split(x, u, mu, s, cos, sin):
    """Each contact's facet weights ``beta`` (at most two, the friction's sector) and sliding multiplier."""
    nc = x.shape[0]
    beta, slide = np.zeros((nc, s)), np.zeros(nc)
    for c in range(nc):
        if mu * x[c, 0] > 0.0:
            sector, b0, b1 = _polygon_point(x[c, 1], x[c, 2], mu * x[c, 0], s, cos, sin)
            beta[c, sector], beta[c, (sector + 1) % s] = b0, b1
        for k in range(s):
            slide[c] = max(slide[c], -(cos[k] * u[c, 1] + sin[k] * u[c, 2]))
    return beta, slide


__all__ = ["APGDOptions", "apgd", "apgd_exact_cone"]
