"""Projected Gauss-Seidel (and projected SOR), a baseline LCP method.

Works on the plain :class:`~qlsbench.physics.lcp.problem.LCP` record; the
returned ``residual`` is the natural residual of the returned point.
"""

from __future__ import annotations

import numpy as np

from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.physics.lcp.problem import LCP, LCPResult


def pgs(lcp: LCP, *, tol: float = 1e-10, max_sweeps: int = 10_000, omega: float = 1.0, y0=None) -> LCPResult:
    """Projected Gauss-Seidel (projected SOR for ``omega != 1``).

    Sweeps the rows in order, setting ``y_i <- max(0, y_i - omega (Q y + r)_i / Q_ii)``
    with the freshest values. Converges for symmetric positive (semi)definite ``Q``
    with ``0 < omega < 2``; it is a baseline, not a fast method.

    Parameters
    ----------
    lcp : LCP
        The problem; every diagonal entry of ``Q`` must be positive.
    tol : float
        Stop when ``||min(y, Q y + r)|| <= tol * (1 + ||r||)``.
    max_sweeps : int
        Sweep budget.
    omega : float
        Relaxation factor in ``(0, 2)``.
    y0 : array_like, optional
        Starting point (projected onto ``y >= 0``); default zeros.

    Returns
    -------
    LCPResult
        ``iterations`` counts sweeps and ``history`` holds the natural residual
        after each sweep.

    Raises
    ------
    InputError
        On a non-positive diagonal entry (naming the row) or a bad parameter.
    """
    _check_pgs_params(tol, max_sweeps, omega)
    Q, r, m = lcp.Q, lcp.r, lcp.size
    diag = _positive_diagonal(lcp)
    y = _start_point(y0, m)
    indptr, indices, data = Q.indptr, Q.indices, Q.data
    target = tol * (1.0 + np.linalg.norm(r))
    history: list[float] = []
    for sweep in range(1, max_sweeps + 1):
        _sweep(indptr, indices, data, r, diag, omega, y)
        res = lcp.natural_residual(y)
        history.append(res)
        if not np.isfinite(res):
            return LCPResult(
                y,
                Status.FAILED,
                sweep,
                res,
                f"PGS diverged at sweep {sweep} (omega={omega})",
                history,
                {"omega": omega},
            )
        if res <= target:
            return LCPResult(y, Status.CONVERGED, sweep, res, "", history, {"omega": omega})
    return LCPResult(
        y,
        Status.MAX_ITER,
        max_sweeps,
        history[-1],
        f"PGS reached max_sweeps={max_sweeps} with residual {history[-1]:.3e}",
        history,
        {"omega": omega},
    )


def _check_pgs_params(tol: float, max_sweeps: int, omega: float) -> None:
    if not (np.isfinite(tol) and tol > 0):
        raise InputError(f"pgs: tol must be positive, got {tol}")
    if int(max_sweeps) < 1:
        raise InputError(f"pgs: max_sweeps must be >= 1, got {max_sweeps}")
    if not 0 < omega < 2:
        raise InputError(f"pgs: omega must be in (0, 2), got {omega}")


def _positive_diagonal(lcp: LCP) -> np.ndarray:
    diag = lcp.Q.diagonal()
    bad = np.flatnonzero(~(diag > 0))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"pgs: Q[{i}, {i}] = {diag[i]:g} in row {i}; projected Gauss-Seidel needs a positive diagonal")
    return diag


def _start_point(y0, m: int) -> np.ndarray:
    if y0 is None:
        return np.zeros(m)
    y = np.array(y0, dtype=np.float64).reshape(-1)
    if y.shape != (m,) or not np.all(np.isfinite(y)):
        raise InputError(f"pgs: y0 must be a finite vector of length {m}, got shape {np.shape(y0)}")
    return np.maximum(y, 0.0)


def _sweep(indptr, indices, data, r, diag, omega, y) -> None:
    for i in range(r.shape[0]):
        lo, hi = indptr[i], indptr[i + 1]
        w_i = r[i] + data[lo:hi] @ y[indices[lo:hi]]
        y[i] = max(0.0, y[i] - omega * w_i / diag[i])
