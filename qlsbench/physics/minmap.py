"""Minimum-map Newton method for LCPs (De et al., alg. 2 and eq. 9).

Root-finding on ``phi(y) = min(y, Q y + r)``. With the active set
``A = {i : (Q y + r)_i < y_i}`` and ``B`` its complement, the Newton step is
``dy_B = -phi_B`` and ``Q_AA dy_A = Q_AB phi_B - phi_A``: that reduced system is
the linear system the benchmark exports.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Callable

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from qlsbench.errors import InputError
from qlsbench.physics.lcp import LCP, LCPResult, LCPStatus

#: ``capture(A, b, info)`` receives each Newton subsystem ``A dy_A = b`` before it is solved.
Capture = Callable[[sp.csr_matrix, np.ndarray, dict], None]


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
    """

    tol: float = 1e-10
    max_iter: int = 100
    scale: bool = True
    regularization: float = 0.0
    armijo: float = 1e-4
    min_step: float = 1e-8

    def __post_init__(self) -> None:
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
    coo = Q.tocoo()
    return sp.csr_matrix((coo.data * (S[coo.row] * S[coo.col]), (coo.row, coo.col)), shape=Q.shape)


def _merit(Q, r, y):
    w = Q @ y + r
    phi = np.minimum(y, w)
    return w, phi, 0.5 * float(phi @ phi)


def _regularized(QAA: sp.csr_matrix, eps: float) -> sp.csr_matrix:
    return QAA if eps == 0 else (QAA + eps * sp.identity(QAA.shape[0], format="csr")).tocsr()


def _solve_reduced(QAA: sp.csr_matrix, rhs: np.ndarray, eps: float, info: dict) -> np.ndarray:
    """Newton step on the active set: ``(Q_AA + eps I) x = rhs``, else damped least squares.

    Friction makes ``Q_AA`` singular by construction: the ``s`` directions of a
    sticking contact span only a plane, so the impulses along them are not
    unique. When the LU solve fails or leaves a residual above 1e-8 of
    ``||rhs||`` (the system is inconsistent), the Levenberg-Marquardt step
    ``(Q_AA^T Q_AA + delta I) x = Q_AA^T rhs`` is taken instead: it is bounded
    and always a descent direction of ``0.5 ||phi||^2``.
    """
    n = QAA.shape[0]
    M = _regularized(QAA, eps)
    try:
        x = spla.splu(M.tocsc()).solve(rhs)
        if np.all(np.isfinite(x)) and np.linalg.norm(M @ x - rhs) <= 1e-8 * np.linalg.norm(rhs):
            return x
    except RuntimeError:  # exactly singular
        pass
    info["least_squares_steps"] += 1
    N = (QAA.T @ QAA).tocsc()
    delta = 1e-10 * max(float(N.diagonal().max(initial=0.0)), 1e-300)
    return spla.splu(N + delta * sp.identity(n, format="csc")).solve(QAA.T @ rhs)


def minmap_newton(lcp: LCP, y0: np.ndarray | None = None, *, options: NewtonOptions = NewtonOptions(),
                  capture: Capture | None = None) -> LCPResult:
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

    Returns
    -------
    LCPResult
        ``info`` records ``scale``, ``regularization``, ``least_squares_steps``
        (reduced systems solved in the least-squares sense), ``gradient_steps``
        (safeguard uses) and ``line_search_halvings``.
    """
    Q, r = lcp.Q, lcp.r
    m = lcp.size
    S = _scaling(Q) if options.scale else np.ones(m)
    Qs = _scaled(Q, S) if options.scale else Q
    rs = S * r
    y = np.zeros(m) if y0 is None else np.maximum(np.asarray(y0, dtype=float), 0.0) / S
    target = options.tol * (1.0 + float(np.linalg.norm(r)))
    history: list[float] = []
    info = {"scale": options.scale, "regularization": options.regularization, "least_squares_steps": 0,
            "gradient_steps": 0, "line_search_halvings": 0}
    status, message = LCPStatus.MAX_ITER, f"no convergence in {options.max_iter} Newton iterations"
    w, phi, psi = _merit(Qs, rs, y)
    it = 0
    for it in range(options.max_iter + 1):
        residual = float(np.linalg.norm(np.minimum(S * y, (Q @ (S * y)) + r)))
        history.append(residual)
        if residual <= target:
            status, message = LCPStatus.CONVERGED, ""
            break
        if it == options.max_iter:
            break
        active = w < y
        dy = np.where(active, 0.0, -phi)
        if active.any():
            QAA = Qs[active][:, active]
            rhs = Qs[active][:, ~active] @ phi[~active] - phi[active]
            if capture is not None:  # the system as the method solves it, Tikhonov term included
                capture(_regularized(QAA, options.regularization), rhs,
                        {"newton_iter": it, "active_size": int(active.sum()), **asdict(options)})
            dy[active] = _solve_reduced(QAA, rhs, options.regularization, info)
        y, w, phi, psi, ok = _line_search(Qs, rs, y, dy, phi, psi, active, options, info)
        if not ok:
            status, message = LCPStatus.STALLED, "line search found no decrease of ||min(y, Qy + r)||"
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


@dataclass(frozen=True)
class ProximalOptions:
    """Settings of :func:`proximal_minmap`.

    Shifts are relative to the median positive diagonal of ``Q`` (a typical
    inverse effective mass), so one setting fits piles of any mass scale.

    Attributes
    ----------
    delta : float
        First shift ``delta`` of every pass.
    shrink : float
        Factor applied to ``delta`` after each solved subproblem: large shifts
        make early subproblems easy, small ones make the outer iteration fast.
    min_delta : float
        Floor of ``delta``.
    max_delta : float
        Ceiling of ``delta`` when a subproblem fails and the shift is raised.
    max_outer : int
        Cap on subproblems, over all passes.
    inner_max_iter : int
        Newton iterations per subproblem before it counts as failed.
    patience : int
        A warm-started pass is abandoned for a pass from zero when its best
        residual has not fallen by the factor ``progress`` over this many
        subproblems (see :func:`proximal_minmap`).
    progress : float
        The decrease, in ``(0, 1)``, that ``patience`` subproblems must achieve.
    """

    delta: float = 0.03
    shrink: float = 0.7
    min_delta: float = 1e-6
    max_delta: float = 1.0
    max_outer: int = 100
    inner_max_iter: int = 30
    patience: int = 10
    progress: float = 0.5

    def __post_init__(self) -> None:
        if not 0 < self.min_delta <= self.delta <= self.max_delta:
            raise InputError(f"proximal shifts need 0 < min_delta <= delta <= max_delta, got {self.min_delta!r}, "
                             f"{self.delta!r}, {self.max_delta!r}")
        if not 0 < self.shrink <= 1:
            raise InputError(f"proximal shrink must be in (0, 1], got {self.shrink!r}")
        if self.max_outer < 1 or self.inner_max_iter < 1:
            raise InputError(f"proximal max_outer and inner_max_iter must be >= 1, got {self.max_outer!r}, "
                             f"{self.inner_max_iter!r}")
        if self.patience < 1:
            raise InputError(f"proximal patience must be >= 1, got {self.patience!r}")
        if not 0 < self.progress < 1:
            raise InputError(f"proximal progress must be in (0, 1), got {self.progress!r}")


#: Each subproblem is solved to this fraction of the outer target ``tol * (1 + ||r||)``. The residual on
#: ``(Q, r)`` after a subproblem is at most its own residual plus ``c_k ||y_{k+1} - y_k||``, so with an inner target
#: as loose as the outer one a pass can sit just above the outer target for good: ``y_k`` already passes the
#: subproblem's test and Newton returns it unchanged (seen as 2-4x the target for 100 subproblems).
_INNER_FRACTION = 0.1
_FAR = 1e3


class _ProximalRun:
    """Proximal passes over one LCP that share one subproblem budget, one record and one capture hook."""

    def __init__(self, lcp: LCP, options: NewtonOptions, proximal: ProximalOptions, capture: Capture | None,
                 target: float) -> None:
        diagonal = lcp.Q.diagonal()
        self.reference = float(np.median(diagonal[diagonal > 0])) if np.any(diagonal > 0) else 1.0
        self.lcp, self.proximal, self.capture, self.target = lcp, proximal, capture, target
        self.inner = replace(options, max_iter=proximal.inner_max_iter)
        self.identity = sp.identity(lcp.size, format="csr")
        self.iterations = 0
        self.history: list[float] = []
        self.info = {"subproblems": 0, "failed_subproblems": 0, "final_shift": 0.0, "restarts": 0}

    @property
    def exhausted(self) -> bool:
        return self.info["subproblems"] >= self.proximal.max_outer

    def subproblem(self, y: np.ndarray, shift: float) -> LCPResult:
        """Solve ``(Q + shift I, r - shift y)`` by min-map Newton from ``y``."""
        k, capture = self.info["subproblems"], self.capture
        hook = None if capture is None else (
            lambda A, b, i: capture(A, b, {**i, "proximal_iter": k, "proximal_shift": shift}))
        sub = LCP((self.lcp.Q + shift * self.identity).tocsr(), self.lcp.r - shift * y)
        inner = replace(self.inner, tol=_INNER_FRACTION * self.target / (1.0 + float(np.linalg.norm(sub.r))))
        result = minmap_newton(sub, y, options=inner, capture=hook)
        self.iterations += result.iterations
        self.info["subproblems"] += 1
        self.info["final_shift"] = shift
        if result.status != LCPStatus.CONVERGED:
            self.info["failed_subproblems"] += 1
        return result

    def run_pass(self, y: np.ndarray, patience: int | None) -> tuple[np.ndarray, float, str]:
        """Proximal iterations from ``y``; ``patience=None`` never gives up on slow progress.

        Returns the iterate of smallest natural residual on the original LCP
        (the outer iteration is not monotone in it), that residual, and why the
        pass ended: ``converged``, ``budget`` (``max_outer`` reached),
        ``stalled`` (a subproblem failed at the largest shift) or ``stagnated``.
        """
        p = self.proximal
        best_y, best = y, self.lcp.natural_residual(y)
        self.history.append(best)
        marks = [best]  # best residual of this pass after each subproblem, solved or failed
        delta = p.delta
        while best > self.target:
            if self.exhausted:
                return best_y, best, "budget"
            if (patience is not None and len(marks) > patience and marks[-1] > p.progress * marks[-1 - patience]
                    and best > _FAR * self.target):
                return best_y, best, "stagnated"
            result = self.subproblem(y, delta * self.reference)
            if result.status != LCPStatus.CONVERGED:
                if delta >= p.max_delta:
                    return best_y, best, "stalled"
                delta = min(p.max_delta, 4.0 * delta)  # a larger shift is an easier subproblem
            else:
                y = result.y
                self.history.append(self.lcp.natural_residual(y))
                if self.history[-1] < best:
                    best_y, best = y, self.history[-1]
                delta = max(p.min_delta, p.shrink * delta)
            marks.append(best)
        return best_y, best, "converged"


def proximal_minmap(lcp: LCP, y0: np.ndarray | None = None, *, options: NewtonOptions = NewtonOptions(),
                    proximal: ProximalOptions = ProximalOptions(), capture: Capture | None = None) -> LCPResult:
    """Solve an LCP by proximal-point iterations, each subproblem by min-map Newton.

    Subproblem ``k`` is the LCP ``(Q + c_k I, r - c_k y_k)`` with ``y_{k+1}``
    its solution; a fixed point solves ``(Q, r)``. The shift makes each
    subproblem strictly complementary and its reduced systems nonsingular,
    which is what plain min-map Newton lacks on frictional piles: sticking
    contacts leave friction impulses that are not unique and both ``y_i`` and
    ``w_i`` zero, and Newton stalls there. ``c_k`` shrinks after each solved
    subproblem and grows after a failed one.

    A warm start can doom a pass: on a row where the subproblem's solution
    has ``y_i > 0`` it holds ``w_i + c_k (y_i - y_k,i) = 0``, so one
    subproblem moves ``y_i`` by ``|w_i| / c_k``. Frictional LCPs have
    unknowns that are neither unique nor bounded (the sliding-speed
    multiplier of a contact with zero normal impulse may take any value), and
    warm starts carry them from step to step: 8 spheres gave values near 7e5
    where the solution needs about 1, with ``w_i`` near 1e-3 and ``c_k`` at
    its floor, thousands of subproblems away. So a warm-started pass whose
    best residual does not fall by the factor ``proximal.progress`` within
    ``proximal.patience`` subproblems is abandoned for one pass from zero
    (the start of alg. 1, which has no such components), within the same
    ``max_outer`` budget. With the default settings ten subproblems cut
    ``c_k`` thirty-fold (``0.7^10``); a pass whose residual does not even
    halve meanwhile is not being helped by smaller shifts. The returned point
    is the iterate of smallest residual over both passes. Everything is
    deterministic.

    Parameters
    ----------
    lcp : LCP
        The problem.
    y0 : numpy.ndarray, optional
        Starting point (projected onto ``y >= 0``); zero by default.
    options : NewtonOptions
        ``tol`` is the stopping test on the original problem, as in
        :func:`minmap_newton`; the other settings apply to each subproblem,
        which gets ``proximal.inner_max_iter`` iterations and a tolerance
        that puts its target at a tenth of the outer one.
    proximal : ProximalOptions
        Shifts, caps and the restart test.
    capture : callable, optional
        Called with every reduced system of every subproblem, as
        :func:`minmap_newton` forms it for ``Q + c_k I`` (scaled by
        ``diag(Q + c_k I)^-1/2``, then ``regularization`` added); ``info`` adds
        ``proximal_iter`` (``k``, counted over both passes) and
        ``proximal_shift`` (``c_k``) to the Newton keys.

    Returns
    -------
    LCPResult
        ``CONVERGED`` only when the returned ``y`` meets ``options.tol`` on the
        original problem; otherwise ``MAX_ITER`` (``max_outer`` subproblems
        ran) or ``STALLED`` (a subproblem failed at the largest shift), with
        the residual in the message. ``iterations`` counts Newton iterations
        over all subproblems; ``history`` holds the residual at the start of
        each pass and after each solved subproblem; ``info`` holds
        ``subproblems``, ``failed_subproblems``, ``final_shift`` and
        ``restarts`` (1 when the pass from zero ran).

    Raises
    ------
    InputError
        When ``y0`` does not have one entry per unknown.
    """
    m = lcp.size
    target = options.tol * (1.0 + float(np.linalg.norm(lcp.r)))
    starts = [np.zeros(m)]
    if y0 is not None:
        warm = np.maximum(np.asarray(y0, dtype=float), 0.0)
        if warm.shape != (m,):
            raise InputError(f"proximal start y0 has shape {warm.shape}, expected ({m},)")
        if np.any(warm):
            starts.insert(0, warm)
    run = _ProximalRun(lcp, options, proximal, capture, target)
    y, residual = starts[0], lcp.natural_residual(starts[0])
    for i, start in enumerate(starts):
        run.info["restarts"] = i
        last = i == len(starts) - 1
        candidate, candidate_residual, end = run.run_pass(start, None if last else proximal.patience)
        if candidate_residual < residual:
            y, residual = candidate, candidate_residual
        if end == "converged" or run.exhausted:
            break
    if residual <= target:
        return LCPResult(y, LCPStatus.CONVERGED, run.iterations, residual, "", run.history, run.info)
    if run.exhausted:
        status, message = LCPStatus.MAX_ITER, f"no convergence in {proximal.max_outer} proximal subproblems"
    else:
        status, message = LCPStatus.STALLED, "a subproblem with the largest shift failed"
    return LCPResult(y, status, run.iterations, residual, f"{message} (residual {residual:.2e})", run.history,
                     run.info)
