"""Minimum-map Newton method for LCPs (De et al., alg. 2 and eq. 9).

Root-finding on ``phi(y) = min(y, Q y + r)``. With the active set
``A = {i : (Q y + r)_i < y_i}`` and ``B`` its complement, the Newton step is
``dy_B = -phi_B`` and ``Q_AA dy_A = Q_AB phi_B - phi_A``: that reduced system is
the linear system the benchmark exports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.physics.lcp.krylov import conjugate_gradient
from qlsbench.physics.lcp.problem import LCP, LCPResult

#: How the reduced systems are solved (:attr:`NewtonOptions.lu`).
LU_MODES = ("symmetric", "colamd", "cg")
#: ``lu="cg"``: the relative residual each reduced system is solved to, and the iteration cap before the
#: factorisation takes over. An inexact Newton method: on a settled 10,000-sphere pile the steps took as many Newton
#: iterations at 1e-3 as with the exact factorisation (9-11), with 67 CG iterations a system against 306 at 1e-12.
CG_RTOL, CG_MAX_ITER = 1e-3, 2000
#: ``capture(A, b, info)`` receives each Newton subsystem ``A dy_A = b`` before it is solved.
Capture = Callable[[sp.csr_matrix, np.ndarray, dict], None]
#: ``linear(A, b, info) -> x`` solves each Newton subsystem in place of the built-in factorisation: a solver
#: put inside the loop (``qlsbench.bench.in_loop``). It may raise to end the run; the line search judges its answer.
LinearSolve = Callable[[sp.csr_matrix, np.ndarray, dict], np.ndarray]


@dataclass(frozen=True)
class NewtonOptions:
    """Settings of :func:`minmap_newton`.

    Attributes
    ----------
    tol : float
        Stop when ``||min(y, Q y + r)|| <= tol * (1 + ||r||)`` on the unscaled problem.
    max_iter : int
        Newton iteration cap.
    scale : bool
        Solve the equivalent LCP ``(S Q S, S r)`` in ``y = S y_hat`` with
        ``S = diag(Q)^-1/2`` (1 where the diagonal is not positive). Contact
        problems mix masses and lengths across many orders of magnitude;
        unscaled Newton stagnates on real granular data.
    regularization : float
        ``epsilon`` added to the diagonal of each reduced system ``Q_AA``
        (Tikhonov). It changes the step, not the problem: the solution is
        still that of the original LCP.
    armijo : float
        Sufficient-decrease constant of the line search on ``0.5 ||phi||^2``.
    min_step : float
        Smallest step length tried before falling back to the gradient.
    lu : str
        How reduced systems are factorised. ``"symmetric"``: an exactly
        symmetric one (every frictionless one) by SuperLU in symmetric mode
        (minimum degree on ``A + A^T``, diagonal pivots), about 3x faster than
        COLAMD on the 2,500-unknown systems of a 1000-sphere pile; if that
        leaves a residual, and for non-symmetric systems, COLAMD with partial
        pivoting. ``"colamd"``: COLAMD always (dataset v1; the two round
        differently, so the iterates and the captured systems differ in
        their last bits). ``"cg"``: an exactly symmetric system by
        conjugate gradients to :data:`CG_RTOL` (an inexact Newton step; the
        line search and the stopping rule are unchanged, so the answer meets
        the same tolerance), by the factorisations of ``"symmetric"`` when CG
        does not get there in :data:`CG_MAX_ITER` iterations, and every other
        system as ``"symmetric"`` does. About 6x faster a step on settled
        piles of 10,000 spheres and more (:mod:`~qlsbench.physics.lcp.krylov`);
        the iterates and captured systems differ from the factorisations' by
        up to the CG tolerance, so the datasets keep ``"symmetric"``.
    """

    tol: float = 1e-10
    max_iter: int = 100
    scale: bool = True
    regularization: float = 0.0
    armijo: float = 1e-4
    min_step: float = 1e-8
    lu: str = "symmetric"

    def __post_init__(self) -> None:
        if self.lu not in LU_MODES:
            raise InputError(f"Newton lu must be one of {', '.join(LU_MODES)}, got {self.lu!r}")
        if not self.tol > 0:
            raise InputError(f"Newton tol must be > 0, got {self.tol!r}")
        if self.max_iter < 1:
            raise InputError(f"Newton max_iter must be >= 1, got {self.max_iter!r}")
        if self.regularization < 0:
            raise InputError(f"regularization must be >= 0, got {self.regularization!r}")


def _scaling(Q: sp.csr_matrix) -> np.ndarray:
    d = Q.diagonal()
    s = np.ones_like(d)
    pos = d > 0
    s[pos] = 1.0 / np.sqrt(d[pos])
    return s


def _scaled(Q: sp.csr_matrix, S: np.ndarray) -> sp.csr_matrix:
    """``diag(S) Q diag(S)``, entry by entry as ``Q_ij * (S_i * S_j)``.

    Multiplying in that order keeps a symmetric ``Q`` exactly symmetric;
    ``(S_i Q_ij) S_j`` and ``(S_j Q_ji) S_i`` round differently.
    """
    if isinstance(Q, sp.csr_matrix) and Q.has_canonical_format:  # the same matrix without the round trip via COO
        rows = np.repeat(np.arange(Q.shape[0]), np.diff(Q.indptr))
        data = Q.data * (S[rows] * S[Q.indices])
        return sp.csr_matrix((data, Q.indices.copy(), Q.indptr.copy()), shape=Q.shape)
    coo = Q.tocoo()
    return sp.csr_matrix((coo.data * (S[coo.row] * S[coo.col]), (coo.row, coo.col)), shape=Q.shape)


def _merit(Q, r, y):
    w = Q @ y + r
    phi = np.minimum(y, w)
    return w, phi, 0.5 * float(phi @ phi)


def _regularized(QAA: sp.csr_matrix, eps: float) -> sp.csr_matrix:
    return QAA if eps == 0 else (QAA + eps * sp.identity(QAA.shape[0], format="csr")).tocsr()


def _lu_solve(M: sp.csc_matrix, rhs: np.ndarray, symmetric: bool) -> np.ndarray | None:
    """``M^-1 rhs`` by SuperLU, or ``None`` when it fails or leaves a residual above 1e-8 of ``||rhs||``."""
    options = (
        {"permc_spec": "MMD_AT_PLUS_A", "diag_pivot_thresh": 0.0, "options": {"SymmetricMode": True}}
        if symmetric
        else {}
    )
    try:
        x = spla.splu(M, **options).solve(rhs)
    except RuntimeError:  # exactly singular
        return None
    if np.all(np.isfinite(x)) and np.linalg.norm(M @ x - rhs) <= 1e-8 * np.linalg.norm(rhs):
        return x
    return None


def _solve_reduced(
    QAA: sp.csr_matrix, rhs: np.ndarray, eps: float, info: dict, symmetric: bool = False, cg: bool = False
) -> np.ndarray:
    """Newton step on the active set: ``(Q_AA + eps I) x = rhs``, else damped least squares.

    ``cg`` tries conjugate gradients first and ``symmetric`` SuperLU's symmetric mode (see
    :attr:`NewtonOptions.lu`); ``info`` counts the CG iterations and the systems CG left to the factorisation.
    Friction makes ``Q_AA`` singular by construction: the ``s`` directions of a
    sticking contact span only a plane, so the impulses along them are not
    unique. When the LU solve fails or leaves a residual above 1e-8 of
    ``||rhs||`` (the system is inconsistent), the Levenberg-Marquardt step
    ``(Q_AA^T Q_AA + delta I) x = Q_AA^T rhs`` is taken instead: it is bounded
    and always a descent direction of ``0.5 ||phi||^2``.
    """
    n = QAA.shape[0]
    if cg:
        by_cg, iterations, converged = conjugate_gradient(QAA, rhs, rtol=CG_RTOL, max_iter=CG_MAX_ITER, shift=eps)
        info["cg_iterations"] += iterations
        if converged:
            return by_cg
        info["cg_fallbacks"] += 1
    M = _regularized(QAA, eps).tocsc()
    for mode in (True, False) if symmetric else (False,):
        x = _lu_solve(M, rhs, mode)
        if x is not None:
            return x
    info["least_squares_steps"] += 1
    N = (QAA.T @ QAA).tocsc()
    delta = 1e-10 * max(float(N.diagonal().max(initial=0.0)), 1e-300)
    return spla.splu(N + delta * sp.identity(n, format="csc")).solve(QAA.T @ rhs)


def minmap_newton(
    lcp: LCP,
    y0: np.ndarray | None = None,
    *,
    options: NewtonOptions = NewtonOptions(),
    capture: Capture | None = None,
    linear: LinearSolve | None = None,
) -> LCPResult:
    """Solve an LCP by the minimum-map Newton method with a projected Armijo line search.

    Parameters
    ----------
    lcp : LCP
        The problem.
    y0 : numpy.ndarray, optional
        Starting point (projected onto ``y >= 0``); zero by default, as in alg. 1.
    options : NewtonOptions
        Tolerance, cap, scaling and regularisation.
    capture : callable, optional
        ``capture(A, b, info)`` is called with every reduced system before it is
        solved, ``A = Q_AA + regularization * I``; ``info`` holds ``newton_iter``,
        ``active_size`` and the options.
    linear : callable, optional
        ``linear(A, b, info) -> x`` solves that system instead of SuperLU (no
        least-squares safeguard: what it returns is the Newton direction).

    Returns
    -------
    LCPResult
        ``info`` records ``scale``, ``regularization``, ``least_squares_steps``
        (reduced systems solved in the least-squares sense), ``gradient_steps``
        (safeguard uses) and ``line_search_halvings``; with ``lu="cg"`` on a
        symmetric problem also ``cg_iterations`` and ``cg_fallbacks``.
    """
    Q, r = lcp.Q, lcp.r
    m = lcp.size
    S = _scaling(Q) if options.scale else np.ones(m)
    Qs = _scaled(Q, S) if options.scale else Q
    rs = S * r
    y = np.zeros(m) if y0 is None else np.maximum(np.asarray(y0, dtype=float), 0.0) / S
    target = options.tol * (1.0 + float(np.linalg.norm(r)))
    history: list[float] = []
    info = {
        "scale": options.scale,
        "regularization": options.regularization,
        "least_squares_steps": 0,
        "gradient_steps": 0,
        "line_search_halvings": 0,
    }
    status, message = Status.MAX_ITER, f"no convergence in {options.max_iter} Newton iterations"
    w, phi, psi = _merit(Qs, rs, y)
    # Symmetric mode and CG only where they apply: the scaled frictionless Q is symmetric to the last bit (see
    # _scaled); a frictional one goes to COLAMD whatever the mode.
    symmetric_lu = options.lu in ("symmetric", "cg") and (Qs != Qs.T).nnz == 0
    cg = options.lu == "cg" and symmetric_lu
    if cg:
        info.update(cg_iterations=0, cg_fallbacks=0)
    # What defines a captured system; how it is factorised (``lu``) does not.
    settings = {k: v for k, v in asdict(options).items() if k != "lu"}
    it = 0
    for it in range(options.max_iter + 1):
        residual = float(np.linalg.norm(np.minimum(S * y, (Q @ (S * y)) + r)))
        history.append(residual)
        if residual <= target:
            status, message = Status.CONVERGED, ""
            break
        if it == options.max_iter:
            break
        active = w < y
        dy = np.where(active, 0.0, -phi)
        if active.any():
            rows = Qs[active]
            QAA = rows[:, active]
            # the inactive columns' sum as a product with phi zeroed on the active set: the same sum in the same
            # order (a +0.0 term changes no partial sum), without slicing the columns a second time
            rhs = rows @ np.where(active, 0.0, phi) - phi[active]
            context = {"newton_iter": it, "active_size": int(active.sum()), **settings}
            if capture is not None:  # the system as the method solves it, Tikhonov term included
                capture(_regularized(QAA, options.regularization), rhs, context)
            if linear is None:
                dy[active] = _solve_reduced(QAA, rhs, options.regularization, info, symmetric_lu, cg)
            else:
                dy[active] = linear(_regularized(QAA, options.regularization), rhs, context)
        y, w, phi, psi, ok = _line_search(Qs, rs, y, dy, phi, psi, active, options, info)
        if not ok:
            status, message = Status.STALLED, "line search found no decrease of ||min(y, Qy + r)||"
            history.append(float(np.linalg.norm(np.minimum(S * y, (Q @ (S * y)) + r))))
            break
    y_out = S * y
    return LCPResult(y_out, status, it, lcp.natural_residual(y_out), message, history, info)


def _line_search(Q, r, y, dy, phi, psi, active, options, info):
    """Projected Armijo search on ``0.5 ||phi||^2``: along the Newton step, else the gradient.

    The directional derivative of the merit function along ``d`` is
    ``phi . (Phi d)`` with ``Phi d = (Q d)_A`` on active rows and ``d_B`` on the
    others; the exact Newton step gives ``-2 psi``. When the Newton step is not
    a descent direction (regularised solve) or finds no sufficient decrease,
    the steepest-descent direction ``-Phi^T phi`` is tried.
    """

    def slope(d):
        return float(phi @ np.where(active, Q @ d, d))

    def gradient():
        info["gradient_steps"] += 1
        return -(Q[active].T @ phi[active]) - np.where(active, 0.0, phi)

    newton_slope = slope(dy)
    directions = [dy] if newton_slope < -1e-14 * max(psi, 1e-300) else []
    for d in directions + [None]:
        d = gradient() if d is None else d
        g = slope(d)
        t = 1.0
        while t >= options.min_step:
            trial = y + t * d
            # The projected point is preferred (y >= 0 holds at a solution), but
            # projection bends the step away from the direction whose slope
            # Armijo tests: on frictional problems it blocks progress, so the
            # plain point is accepted when only it decreases the merit enough.
            for y_new in (np.maximum(trial, 0.0), trial):
                w_new, phi_new, psi_new = _merit(Q, r, y_new)
                if psi_new <= psi + options.armijo * t * g:
                    return y_new, w_new, phi_new, psi_new, True
            t *= 0.5
            info["line_search_halvings"] += 1
    return y, Q @ y + r, phi, psi, False
