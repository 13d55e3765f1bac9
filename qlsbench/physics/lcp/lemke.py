"""Lemke's complementary pivoting, a baseline and the exact fallback for small contact LCPs.

It works on the plain :class:`~qlsbench.physics.lcp.problem.LCP` record and return an
:class:`~qlsbench.physics.lcp.problem.LCPResult` whose ``residual`` is the natural
residual of the returned point on the original problem, so callers never have
to trust a solver's own notion of success.
"""

from __future__ import annotations

import numpy as np

from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.physics.lcp.problem import LCP, LCPResult

# Relative width inside which two min-ratio candidates count as tied; wide enough
# to catch rounding in degenerate contact problems, far below any real gap.
_TIE = 1e-9
# Rebuilding the tableau from the original data now and then stops rounding in
# the rank-one updates from accumulating over long pivot sequences. A rebuild
# costs O(m^3), so it happens at most every m pivots (O(m^2) each).
_REFACTOR_EVERY = 100
# Terminal points whose natural residual exceeds this (relative to the data)
# are reported as STALLED rather than CONVERGED.
_ACCEPT = 1e-8


def lemke(lcp: LCP, *, max_pivots: int | None = None, tol: float = 1e-12) -> LCPResult:
    """Solve an LCP with Lemke's complementary pivoting method.

    Uses the covering vector ``e = (1, ..., 1)`` on a dense tableau
    ``w - Q z - e z0 = r``, with a lexicographic minimum-ratio rule so that
    degenerate problems cannot cycle. At termination the solution is recomputed
    from the final basis by a direct solve of the principal subsystem, which
    makes it exact to rounding on well-posed problems.

    Parameters
    ----------
    lcp : LCP
        The problem ``0 <= y _|_ Q y + r >= 0``. Dense storage is used, so this
        is meant for ``m`` up to a few hundred.
    max_pivots : int, optional
        Pivot budget; default ``max(1000, 50 m)``.
    tol : float
        Relative pivot tolerance: entries of the entering column below
        ``tol * max|column|`` are treated as zero. Also the threshold below which
        a basic value counts as degenerate (relative to the largest one).

    Returns
    -------
    LCPResult
        ``CONVERGED`` when the artificial variable left the basis and the point
        checks out; ``FAILED`` on ray termination (no solution found: the LCP may
        be infeasible or ``Q`` not copositive-plus); ``MAX_ITER`` when the budget
        ran out; ``STALLED`` when the method terminated but rounding spoilt the
        point. ``iterations`` counts pivots.
    """
    m = lcp.size
    max_pivots = _check_lemke_params(m, max_pivots, tol)
    if m == 0 or np.all(lcp.r >= 0):
        y = np.zeros(m)
        return LCPResult(y, Status.CONVERGED, 0, lcp.natural_residual(y), info={"trivial": True})

    A = _lemke_system(lcp)
    T = A.copy()
    basis = np.arange(m)  # basis[i] = variable basic in row i: w_k = k, z_k = m + k, z0 = 2m
    z0 = 2 * m

    # The last row among those with the most negative r keeps (b, B^-1) lexico-
    # positive after the first pivot, which is what rules out cycling later.
    start = int(np.flatnonzero(lcp.r == lcp.r.min())[-1])
    _pivot(T, start, z0)
    leaving, basis[start] = int(basis[start]), z0
    pivots = 1
    refactor_every = max(_REFACTOR_EVERY, m)

    while True:
        entering = _complement(leaving, m)
        if pivots >= max_pivots:
            return _finish(
                lcp, T, basis, pivots, Status.MAX_ITER, f"Lemke reached max_pivots={max_pivots} without terminating"
            )
        row = _ratio_test(T, entering, basis, m, tol)
        if row is None:
            return _ray(lcp, T, basis, pivots, entering, tol)
        _pivot(T, row, entering)
        leaving, basis[row] = int(basis[row]), entering
        pivots += 1
        if leaving == z0:
            return _finish(lcp, T, basis, pivots, Status.CONVERGED, "")
        if pivots % refactor_every == 0:
            T = _refactor(A, basis, T)


def _check_lemke_params(m: int, max_pivots: int | None, tol: float) -> int:
    if not (np.isfinite(tol) and 0 < tol < 1):
        raise InputError(f"lemke: tol must be in (0, 1), got {tol}")
    if max_pivots is None:
        return max(1000, 50 * m)
    if int(max_pivots) < 1:
        raise InputError(f"lemke: max_pivots must be >= 1, got {max_pivots}")
    return int(max_pivots)


def _lemke_system(lcp: LCP) -> np.ndarray:
    """The constraint matrix ``[I, -Q, -e, r]`` whose columns are w, z, z0 and the rhs."""
    m = lcp.size
    return np.hstack([np.eye(m), -lcp.Q.toarray(), -np.ones((m, 1)), lcp.r[:, None]])


def _complement(var: int, m: int) -> int:
    return var + m if var < m else var - m


def _pivot(T: np.ndarray, row: int, col: int) -> None:
    T[row] /= T[row, col]
    factor = T[:, col].copy()
    factor[row] = 0.0
    T -= np.outer(factor, T[row])


def _ratio_test(T: np.ndarray, col: int, basis: np.ndarray, m: int, tol: float) -> int | None:
    """Row that blocks the entering column first, or ``None`` for a ray.

    Ties are broken lexicographically on the rows of ``B^-1`` (the w-columns of
    the tableau) divided by the pivot entry; if the artificial variable is among
    the tied rows it is preferred, since its leaving ends the method.
    """
    a = T[:, col]
    amax = np.abs(a).max()
    if not amax > 0:
        return None
    cand = np.flatnonzero(a > tol * amax)
    if cand.size == 0:
        return None
    b = T[cand, -1]
    # Basic values that are zero up to rounding must tie exactly, or the
    # degenerate rows would be ordered by noise instead of the lexicographic rule.
    b = np.where(b > tol * max(np.abs(T[:, -1]).max(), 1e-300), b, 0.0)
    ratios = b / a[cand]
    keep = cand[ratios <= ratios.min() * (1 + _TIE)]
    z0_rows = keep[basis[keep] == 2 * m]
    if z0_rows.size:
        return int(z0_rows[0])
    if keep.size == 1:
        return int(keep[0])
    lex = T[keep, :m] / a[keep, None]
    # One tie width for all columns: an entry that is zero in exact arithmetic
    # shows up as +-1e-16 noise, which must not outrank a true zero.
    width = _TIE * np.abs(lex).max()
    alive = np.arange(keep.size)
    for j in range(m):
        if alive.size == 1:
            break
        vals = lex[alive, j]
        alive = alive[vals <= vals.min() + width]
    return int(keep[alive[0]])


def _refactor(A: np.ndarray, basis: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Recompute ``B^-1 A`` for the current basis; keep the old tableau if B is singular."""
    try:
        return np.linalg.solve(A[:, basis], A)
    except np.linalg.LinAlgError:
        return T


def _z_values(T: np.ndarray, basis: np.ndarray, m: int) -> tuple[np.ndarray, float]:
    """Nonbasic variables are zero; read ``z`` and ``z0`` off the rhs column."""
    y = np.zeros(m)
    rhs = T[:, -1]
    zrows = (basis >= m) & (basis < 2 * m)
    y[basis[zrows] - m] = rhs[zrows]
    z0_rows = np.flatnonzero(basis == 2 * m)
    z0 = float(rhs[z0_rows[0]]) if z0_rows.size else 0.0
    return np.maximum(y, 0.0), z0


def _refined(lcp: LCP, basis: np.ndarray, m: int) -> np.ndarray | None:
    """Solve ``Q_aa y_a = -r_a`` for the basic z-set ``a``: the exact complementary point."""
    active = np.sort(basis[(basis >= m) & (basis < 2 * m)] - m)
    y = np.zeros(m)
    if active.size == 0:
        return y
    Qaa = lcp.Q[active][:, active].toarray()
    try:
        y[active] = np.linalg.solve(Qaa, -lcp.r[active])
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(y)):
        return None
    return np.maximum(y, 0.0)


def _accept_scale(lcp: LCP, y: np.ndarray) -> float:
    return _ACCEPT * (1.0 + float(np.linalg.norm(lcp.r)) + float(np.linalg.norm(lcp.Q @ y)))


def _finish(lcp: LCP, T: np.ndarray, basis: np.ndarray, pivots: int, status: Status, message: str) -> LCPResult:
    m = lcp.size
    y, z0 = _z_values(T, basis, m)
    residual = lcp.natural_residual(y)
    refined = False
    if status is Status.CONVERGED:
        y_ref = _refined(lcp, basis, m)
        if y_ref is not None and (res_ref := lcp.natural_residual(y_ref)) <= residual:
            y, residual, refined = y_ref, res_ref, True
        if residual > _accept_scale(lcp, y):
            status = Status.STALLED
            message = (
                f"Lemke terminated after {pivots} pivots but the point fails the check "
                f"(natural residual {residual:.3e}): rounding misled the pivoting; the "
                "LCP may be infeasible or too ill-conditioned"
            )
    info = {"z0": z0, "refined": refined, "n_active": int(np.count_nonzero(y))}
    return LCPResult(y, status, pivots, residual, message, info=info)


def _ray(lcp: LCP, T: np.ndarray, basis: np.ndarray, pivots: int, entering: int, tol: float) -> LCPResult:
    m = lcp.size
    y, z0 = _z_values(T, basis, m)
    # A degenerate ray can start at a point where z0 already sits at zero: that
    # point solves the LCP even though z0 never left the basis.
    if z0 <= tol * max(np.abs(T[:, -1]).max(), 1.0):
        result = _finish(lcp, T, basis, pivots, Status.CONVERGED, "")
        if result.status is Status.CONVERGED:
            result.info["ray_with_z0_zero"] = True
            return result
    name = f"z[{entering - m}]" if entering >= m else f"w[{entering}]"
    message = (
        f"Lemke ray termination after {pivots} pivots: entering {name} is unblocked "
        f"(z0 = {z0:.3e}); the LCP may be infeasible or Q not copositive-plus"
    )
    return LCPResult(y, Status.FAILED, pivots, lcp.natural_residual(y), message, info={"z0": z0, "refined": False})
