"""The stabilised Newton solver for non-symmetric systems (alg. 2) and its Wolfe line search.

Each iteration solves ``H dz = -g`` with GMRES on the matrix-free operator,
checks the direction against the gradient ``a = H^T g`` of
``h(t) = 1/2 |g(z + t dz)|^2`` (uphill: reverse; nearly orthogonal: take the
gradient direction) and picks the step length by a line search satisfying the
strong Wolfe conditions (Nocedal and Wright, alg. 3.5-3.6).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.sparse.linalg import gmres

from qlsbench.errors import InputError
from qlsbench.outcomes import Status

#: ``g`` this close to the left null space of ``H`` (relative) is a stationary point of ``|g|^2``.
STATIONARY = 1e-10


@dataclass(frozen=True)
class PenaltyNewtonOptions:
    """Settings of :func:`newton_solve`.

    Parameters
    ----------
    tol : float
        Newton tolerance ``tau`` on ``|g|``, relative to ``scale`` (the caller
        passes the size of one step's gravity impulse, so ``tol`` is
        dimensionless). Alg. 2 also stops when ``|H^T g| < tau``, at a
        stationary point of ``|g|^2``; ``H`` is not dimensionless, though (with
        light cloth particles ``|H^T g|`` is ~1 % of ``|g|``, and that test
        stopped at ``|g|`` 100 times ``tau``), so here the test is
        ``|H^T g| < 1e-10 |g| m_max`` (:data:`STATIONARY`, ``m_max`` the largest
        mass, see ``gradient_scale``), and stopping there is reported as
        ``stalled``, not ``converged``.
    max_iter : int
        Newton iterations before giving up.
    gmres_rtol : float
        Relative residual GMRES stops at.
    angle_tol : float
        ``tau_a``: a direction with ``dz . a > tau_a |dz| |a|`` is uphill.
    c1, c2 : float
        Wolfe constants (sufficient decrease, curvature).
    """

    tol: float = 1e-9
    max_iter: int = 50
    gmres_rtol: float = 1e-10
    angle_tol: float = 1e-4
    c1: float = 1e-4
    c2: float = 0.9

    def __post_init__(self):
        for name in ("tol", "gmres_rtol", "angle_tol"):
            if not getattr(self, name) > 0:
                raise InputError(f"Newton option {name} must be > 0, got {getattr(self, name)!r}")
        if self.max_iter < 1:
            raise InputError(f"Newton option max_iter must be >= 1, got {self.max_iter!r}")
        if not 0 < self.c1 < self.c2 < 1:
            raise InputError(f"Wolfe constants need 0 < c1 < c2 < 1, got c1={self.c1}, c2={self.c2}")


@dataclass
class NewtonReport:
    """What :func:`newton_solve` did."""

    status: (
        Status  #: ``converged``, ``stalled`` (at a stationary point of ``|g|^2`` above the tolerance) or ``max_iter``
    )
    iterations: int
    residual: float
    gradient: float
    gmres_iterations: int
    reversed_directions: int
    gradient_directions: int


def wolfe_line_search(
    phi: Callable[[float], float],
    dphi: Callable[[float], float],
    phi0: float,
    dphi0: float,
    c1: float = 1e-4,
    c2: float = 0.9,
    alpha_max: float = 8.0,
    max_evals: int = 40,
) -> float:
    """A step length satisfying the strong Wolfe conditions for a descent direction (``dphi0 < 0``).

    Bracketing by doubling, then zoom by bisection (N&W alg. 3.5 and 3.6).
    When the evaluation budget runs out, returns the best point that gave
    sufficient decrease, or the smallest step tried.
    """
    evals = 0
    best = (phi0, 0.0)

    def armijo(alpha, value):
        return value <= phi0 + c1 * alpha * dphi0

    def zoom(lo, phi_lo, hi):
        nonlocal evals, best
        while evals < max_evals:
            alpha = 0.5 * (lo + hi)
            value = phi(alpha)
            evals += 1
            if not armijo(alpha, value) or value >= phi_lo:
                hi = alpha
                continue
            best = min(best, (value, alpha))
            slope = dphi(alpha)
            if abs(slope) <= -c2 * dphi0:
                return alpha
            if slope * (hi - lo) >= 0:
                hi = lo
            lo, phi_lo = alpha, value
        return best[1] if best[1] > 0 else lo if lo > 0 else alpha

    prev, phi_prev, alpha = 0.0, phi0, 1.0
    while evals < max_evals:
        value = phi(alpha)
        evals += 1
        if not armijo(alpha, value) or (prev > 0 and value >= phi_prev):
            return zoom(prev, phi_prev, alpha)
        best = min(best, (value, alpha))
        slope = dphi(alpha)
        if abs(slope) <= -c2 * dphi0:
            return alpha
        if slope >= 0:
            return zoom(alpha, value, prev)
        if alpha >= alpha_max:
            return alpha
        prev, phi_prev, alpha = alpha, value, min(2.0 * alpha, alpha_max)
    return best[1] if best[1] > 0 else alpha


def newton_solve(
    evaluate: Callable,
    z0: np.ndarray,
    options: PenaltyNewtonOptions,
    scale: float = 1.0,
    gradient_scale: float = 1.0,
    capture: Callable | None = None,
    linear: Callable | None = None,
) -> tuple[np.ndarray, Any, NewtonReport]:
    """Solve ``g(z) = 0`` (alg. 2, NEWTON_SOLVE).

    Parameters
    ----------
    evaluate : callable
        ``z -> Evaluation`` with ``g``, ``matvec``, ``rmatvec`` and ``operator()``.
    z0 : ndarray
        Initial guess.
    options : PenaltyNewtonOptions
    scale : float
        What ``options.tol`` is relative to.
    gradient_scale : float
        The stationarity test is ``|H^T g| < STATIONARY |g| gradient_scale``
        (the stepper passes the largest mass, the scale of ``H``).
    capture : callable, optional
        Called as ``capture(evaluation, rhs, dz, newton_iter, gmres_info)``
        with every linear system ``H dz = rhs`` the solver forms.
    linear : callable, optional
        ``linear(H, rhs, info) -> dz`` on the assembled ``H`` instead of GMRES
        (a solver in the loop; it may raise to end the run).

    Returns
    -------
    z : ndarray
    evaluation : Evaluation
        At the returned ``z``.
    report : NewtonReport
    """
    tau = options.tol * scale
    z = np.asarray(z0, dtype=float).copy()
    ev = evaluate(z)
    gmres_total = reversed_count = gradient_count = 0
    for it in range(options.max_iter + 1):
        b = ev.g
        a = ev.rmatvec(b)
        m, norm_b = float(np.linalg.norm(a)), float(np.linalg.norm(b))
        if norm_b < tau or m < STATIONARY * norm_b * gradient_scale:
            status = Status.CONVERGED if norm_b < tau else Status.STALLED
            return z, ev, NewtonReport(status, it, norm_b, m, gmres_total, reversed_count, gradient_count)
        if it == options.max_iter:
            break
        counter = [0]
        if linear is None:
            dz, info = gmres(
                ev.operator(),
                -b,
                rtol=options.gmres_rtol,
                atol=0.0,
                restart=min(len(b), 200),
                maxiter=20,
                callback=lambda _, c=counter: c.__setitem__(0, c[0] + 1),
                callback_type="pr_norm",
            )
        else:  # a solver in the loop, on the assembled system the dataset exports
            dz, info = linear(ev.matrix(), -b, {"newton_iter": it}), 0
        gmres_total += counter[0]
        if capture is not None:
            capture(ev, -b, dz, it, info)
        size, along = np.linalg.norm(dz), dz @ a
        if along > size * options.angle_tol * m:
            dz = -dz  # uphill: look backwards
            reversed_count += 1
        elif along >= -size * options.angle_tol * m:
            dz = -(size / m) * a  # neither up- nor downhill: the gradient direction
            gradient_count += 1
        cache: dict = {}

        def at(t, cache=cache, z=z, dz=dz):  # this iteration's point and direction, bound now
            if t not in cache:
                cache[t] = evaluate(z + t * dz)
            return cache[t]

        def slope(t, dz=dz):  # the merit's derivative along this iteration's direction
            return float(at(t).g @ at(t).matvec(dz))

        phi0 = 0.5 * norm_b**2
        dphi0 = float(a @ dz)
        alpha = wolfe_line_search(
            lambda t: 0.5 * float(at(t).g @ at(t).g),
            slope,
            phi0,
            dphi0,
            options.c1,
            options.c2,
        )
        z = z + alpha * dz
        ev = cache.get(alpha) or evaluate(z)
    return (
        z,
        ev,
        NewtonReport(
            Status.MAX_ITER,
            options.max_iter,
            float(np.linalg.norm(ev.g)),
            float(np.linalg.norm(ev.rmatvec(ev.g))),
            gmres_total,
            reversed_count,
            gradient_count,
        ),
    )
