"""Proximal-point min-map Newton: for LCPs where plain min-map Newton stalls.

Subproblem ``k`` is the LCP ``(Q + c_k I, r - c_k y_k)``, solved by the same
min-map Newton (:mod:`~qlsbench.physics.lcp.minmap`), so its reduced systems
are captured like plain Newton's; the shift ``c_k`` shrinks after each solved
subproblem and grows after a failed one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.physics.lcp.minmap import Capture, NewtonOptions, minmap_newton
from qlsbench.physics.lcp.problem import LCP, LCPResult


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
    max_seconds : float or None
        Wall-clock budget of one call; when it runs out no further subproblem
        starts and the best point so far is returned as ``max_iter`` with a
        message naming the budget. ``None`` (default) keeps the result
        independent of machine speed, as datasets require.
    """

    delta: float = 0.03
    shrink: float = 0.7
    min_delta: float = 1e-6
    max_delta: float = 1.0
    max_outer: int = 400
    inner_max_iter: int = 30
    patience: int = 10
    progress: float = 0.5
    max_seconds: float | None = None

    def __post_init__(self) -> None:
        if not 0 < self.min_delta <= self.delta <= self.max_delta:
            raise InputError(
                f"proximal shifts need 0 < min_delta <= delta <= max_delta, got {self.min_delta!r}, "
                f"{self.delta!r}, {self.max_delta!r}"
            )
        if not 0 < self.shrink <= 1:
            raise InputError(f"proximal shrink must be in (0, 1], got {self.shrink!r}")
        if self.max_outer < 1 or self.inner_max_iter < 1:
            raise InputError(
                f"proximal max_outer and inner_max_iter must be >= 1, got {self.max_outer!r}, {self.inner_max_iter!r}"
            )
        if self.patience < 1:
            raise InputError(f"proximal patience must be >= 1, got {self.patience!r}")
        if self.max_seconds is not None and not self.max_seconds > 0:
            raise InputError(f"proximal max_seconds must be > 0 or None, got {self.max_seconds!r}")
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

    def __init__(
        self, lcp: LCP, options: NewtonOptions, proximal: ProximalOptions, capture: Capture | None, target: float
    ) -> None:
        diagonal = lcp.Q.diagonal()
        self.reference = float(np.median(diagonal[diagonal > 0])) if np.any(diagonal > 0) else 1.0
        self.lcp, self.proximal, self.capture, self.target = lcp, proximal, capture, target
        self.inner = replace(options, max_iter=proximal.inner_max_iter)
        self.identity = sp.identity(lcp.size, format="csr")
        self.iterations = 0
        self.history: list[float] = []
        self.info = {"subproblems": 0, "failed_subproblems": 0, "final_shift": 0.0, "restarts": 0}
        budget = proximal.max_seconds
        self.deadline = None if budget is None else time.perf_counter() + budget

    @property
    def out_of_time(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline

    @property
    def exhausted(self) -> bool:
        return self.info["subproblems"] >= self.proximal.max_outer or self.out_of_time

    def subproblem(self, y: np.ndarray, shift: float) -> LCPResult:
        """Solve ``(Q + shift I, r - shift y)`` by min-map Newton from ``y``."""
        k, capture = self.info["subproblems"], self.capture
        hook = (
            None
            if capture is None
            else (lambda A, b, i: capture(A, b, {**i, "proximal_iter": k, "proximal_shift": shift}))
        )
        sub = LCP((self.lcp.Q + shift * self.identity).tocsr(), self.lcp.r - shift * y)
        inner = replace(self.inner, tol=_INNER_FRACTION * self.target / (1.0 + float(np.linalg.norm(sub.r))))
        result = minmap_newton(sub, y, options=inner, capture=hook)
        self.iterations += result.iterations
        self.info["subproblems"] += 1
        self.info["final_shift"] = shift
        if result.status != Status.CONVERGED:
            self.info["failed_subproblems"] += 1
        return result

    def run_pass(self, y: np.ndarray, patience: int | None) -> tuple[np.ndarray, float, Status]:
        """Proximal iterations from ``y``; ``patience=None`` never gives up on slow progress.

        Returns the iterate of smallest natural residual on the original LCP
        (the outer iteration is not monotone in it), that residual, and why the
        pass ended: ``converged``, ``max_iter`` (``max_outer`` subproblems),
        ``failed`` (a subproblem failed at the largest shift) or ``stalled``
        (no progress over ``patience`` subproblems).
        """
        p = self.proximal
        best_y, best = y, self.lcp.natural_residual(y)
        self.history.append(best)
        marks = [best]  # best residual of this pass after each subproblem, solved or failed
        delta = p.delta
        while best > self.target:
            if self.exhausted:
                return best_y, best, Status.MAX_ITER
            if (
                patience is not None
                and len(marks) > patience
                and marks[-1] > p.progress * marks[-1 - patience]
                and best > _FAR * self.target
            ):
                return best_y, best, Status.STALLED  # no progress over `patience` subproblems
            result = self.subproblem(y, delta * self.reference)
            if result.status != Status.CONVERGED:
                if delta >= p.max_delta:
                    return best_y, best, Status.FAILED  # even the largest shift failed
                delta = min(p.max_delta, 4.0 * delta)  # a larger shift is an easier subproblem
            else:
                y = result.y
                self.history.append(self.lcp.natural_residual(y))
                if self.history[-1] < best:
                    best_y, best = y, self.history[-1]
                delta = max(p.min_delta, p.shrink * delta)
            marks.append(best)
        return best_y, best, Status.CONVERGED


def proximal_minmap(
    lcp: LCP,
    y0: np.ndarray | None = None,
    *,
    options: NewtonOptions = NewtonOptions(),
    proximal: ProximalOptions = ProximalOptions(),
    capture: Capture | None = None,
) -> LCPResult:
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
        if end is Status.CONVERGED or run.exhausted:
            break
    if residual <= target:
        return LCPResult(y, Status.CONVERGED, run.iterations, residual, "", run.history, run.info)
    if run.out_of_time:
        status, message = Status.MAX_ITER, f"proximal time budget of {proximal.max_seconds} s ran out"
    elif run.exhausted:
        status, message = Status.MAX_ITER, f"no convergence in {proximal.max_outer} proximal subproblems"
    else:
        status, message = Status.STALLED, "a subproblem with the largest shift failed"
    return LCPResult(y, status, run.iterations, residual, f"{message} (residual {residual:.2e})", run.history, run.info)
