"""Baseline LCP solvers: Lemke's complementary pivoting and projected Gauss-Seidel.

Both work on the plain :class:`~qlsbench.physics.lcp.LCP` record and return an
:class:`~qlsbench.physics.lcp.LCPResult` whose ``residual`` is the natural
residual of the returned point on the original problem, so callers never have
to trust a solver's own notion of success.

Also reads the small classic test problems shipped as Siconos ``.dat`` dumps.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from qlsbench.errors import DatasetError, InputError
from qlsbench.physics.lcp import LCP, LCPResult, LCPStatus

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


# --------------------------------------------------------------------------- Lemke


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
        return LCPResult(y, LCPStatus.CONVERGED, 0, lcp.natural_residual(y), info={"trivial": True})

    A = _lemke_system(lcp)
    T = A.copy()
    basis = np.arange(m)  # basis[i] = variable basic in row i: w_k = k, z_k = m + k, z0 = 2m
    z0 = 2 * m

    # The last row among those with the most negative r keeps (b, B^-1) lexico-
    # positive after the first pivot, which is what rules out cycling later.
    row = int(np.flatnonzero(lcp.r == lcp.r.min())[-1])
    _pivot(T, row, z0)
    leaving, basis[row] = int(basis[row]), z0
    pivots = 1
    refactor_every = max(_REFACTOR_EVERY, m)

    while True:
        entering = _complement(leaving, m)
        if pivots >= max_pivots:
            return _finish(lcp, T, basis, pivots, LCPStatus.MAX_ITER,
                           f"Lemke reached max_pivots={max_pivots} without terminating")
        row = _ratio_test(T, entering, basis, m, tol)
        if row is None:
            return _ray(lcp, T, basis, pivots, entering, tol)
        _pivot(T, row, entering)
        leaving, basis[row] = int(basis[row]), entering
        pivots += 1
        if leaving == z0:
            return _finish(lcp, T, basis, pivots, LCPStatus.CONVERGED, "")
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
    return _ACCEPT * (1.0 + np.linalg.norm(lcp.r) + np.linalg.norm(lcp.Q @ y))


def _finish(lcp: LCP, T: np.ndarray, basis: np.ndarray, pivots: int,
            status: LCPStatus, message: str) -> LCPResult:
    m = lcp.size
    y, z0 = _z_values(T, basis, m)
    residual = lcp.natural_residual(y)
    refined = False
    if status is LCPStatus.CONVERGED:
        y_ref = _refined(lcp, basis, m)
        if y_ref is not None and (res_ref := lcp.natural_residual(y_ref)) <= residual:
            y, residual, refined = y_ref, res_ref, True
        if residual > _accept_scale(lcp, y):
            status = LCPStatus.STALLED
            message = (f"Lemke terminated after {pivots} pivots but the point fails the check "
                       f"(natural residual {residual:.3e}): rounding misled the pivoting; the "
                       "LCP may be infeasible or too ill-conditioned")
    info = {"z0": z0, "refined": refined, "n_active": int(np.count_nonzero(y))}
    return LCPResult(y, status, pivots, residual, message, info=info)


def _ray(lcp: LCP, T: np.ndarray, basis: np.ndarray, pivots: int, entering: int,
         tol: float) -> LCPResult:
    m = lcp.size
    y, z0 = _z_values(T, basis, m)
    # A degenerate ray can start at a point where z0 already sits at zero: that
    # point solves the LCP even though z0 never left the basis.
    if z0 <= tol * max(np.abs(T[:, -1]).max(), 1.0):
        result = _finish(lcp, T, basis, pivots, LCPStatus.CONVERGED, "")
        if result.status is LCPStatus.CONVERGED:
            result.info["ray_with_z0_zero"] = True
            return result
    name = f"z[{entering - m}]" if entering >= m else f"w[{entering}]"
    message = (f"Lemke ray termination after {pivots} pivots: entering {name} is unblocked "
               f"(z0 = {z0:.3e}); the LCP may be infeasible or Q not copositive-plus")
    return LCPResult(y, LCPStatus.FAILED, pivots, lcp.natural_residual(y), message,
                     info={"z0": z0, "refined": False})


# --------------------------------------------------------------------------- PGS


def pgs(lcp: LCP, *, tol: float = 1e-10, max_sweeps: int = 10_000, omega: float = 1.0,
        y0=None) -> LCPResult:
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
            return LCPResult(y, LCPStatus.FAILED, sweep, res,
                             f"PGS diverged at sweep {sweep} (omega={omega})", history,
                             {"omega": omega})
        if res <= target:
            return LCPResult(y, LCPStatus.CONVERGED, sweep, res, "", history, {"omega": omega})
    return LCPResult(y, LCPStatus.MAX_ITER, max_sweeps, history[-1],
                     f"PGS reached max_sweeps={max_sweeps} with residual {history[-1]:.3e}",
                     history, {"omega": omega})


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
        raise InputError(f"pgs: Q[{i}, {i}] = {diag[i]:g} in row {i}; projected Gauss-Seidel "
                         "needs a positive diagonal")
    return diag


def _start_point(y0, m: int) -> np.ndarray:
    if y0 is None:
        return np.zeros(m)
    y = np.array(y0, dtype=np.float64).reshape(-1)
    if y.shape != (m,) or not np.all(np.isfinite(y)):
        raise InputError(f"pgs: y0 must be a finite vector of length {m}, got shape "
                         f"{np.shape(y0)}")
    return np.maximum(y, 0.0)


def _sweep(indptr, indices, data, r, diag, omega, y) -> None:
    for i in range(r.shape[0]):
        lo, hi = indptr[i], indptr[i + 1]
        w_i = r[i] + data[lo:hi] @ y[indices[lo:hi]]
        y[i] = max(0.0, y[i] - omega * w_i / diag[i])


# --------------------------------------------------------------------------- .dat files


def read_lcp_dat(path) -> LCP:
    """Read a classic LCP test problem written by Siconos (``lcp_*.dat``).

    Layout (Siconos ``LinearComplementarityProblem`` dump): the size ``n``; then
    a dense ``NumericsMatrix``: storage type ``0``, ``size0``, ``size1``, the
    pair ``size0 size1`` again, and the ``n*n`` entries in column-major order
    (so each printed line is a *column* of ``M``); then ``q``. Anything after
    ``q`` (remarks, references) is ignored.

    Parameters
    ----------
    path : str or path-like
        The ``.dat`` file.

    Returns
    -------
    LCP
        ``LCP(M, q)``.

    Raises
    ------
    DatasetError
        If the file is missing, not a dense dump, or has too few numbers.
    """
    path = Path(path)
    try:
        tokens = path.read_text().split()
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: cannot read LCP file ({exc})") from exc
    header = _dat_ints(tokens[:6], path)
    n, storage, size0, size1, rep0, rep1 = header
    if storage != 0:
        raise DatasetError(f"{path}: matrix storage type {storage} is not dense (0)")
    if n < 1 or not (size0 == size1 == rep0 == rep1 == n):
        raise DatasetError(f"{path}: header sizes {header} are inconsistent with n = {n}")
    values = _dat_floats(tokens[6:6 + n * n + n], n * n + n, path)
    M = values[: n * n].reshape((n, n), order="F")
    try:
        return LCP(M, values[n * n:])
    except InputError as exc:
        raise DatasetError(f"{path}: {exc}") from exc


def _dat_ints(tokens: list[str], path: Path) -> list[int]:
    if len(tokens) < 6:
        raise DatasetError(f"{path}: header needs 6 integers (n, storage, size0, size1, size0, size1)")
    try:
        return [int(t) for t in tokens]
    except ValueError as exc:
        raise DatasetError(f"{path}: header is not integer ({exc})") from exc


def _dat_floats(tokens: list[str], count: int, path: Path) -> np.ndarray:
    if len(tokens) < count:
        raise DatasetError(f"{path}: expected {count} numbers for M and q, found {len(tokens)}")
    try:
        return np.array([float(t) for t in tokens])
    except ValueError as exc:
        raise DatasetError(f"{path}: non-numeric entry in M or q ({exc})") from exc
