"""The classical side of the advantage map, measured: the best of several classical solvers to the accuracy a
quantum solver would deliver.

A quantum solver returns ``x`` to a fidelity ``1 - epsilon`` at best; a classical solver that stops as soon as it
has that accuracy is the fair opponent, not one run to machine precision. Each method runs on a ladder of
relative-residual tolerances (``epsilon``, ``epsilon / 10``, ... down to ``1e-12``) and the first run whose
solution has fidelity at least ``1 - epsilon`` and relative residual at most ``epsilon`` counts: its wall time
(set-up included: factorisation, preconditioner, multigrid hierarchy) and the peak memory it added. A method
that reaches neither on the ladder is recorded as not reaching the target.

The methods, one line each in :data:`METHODS`: SuperLU, conjugate gradients with a Jacobi and with an algebraic
multigrid preconditioner (pyamg's smoothed aggregation; symmetric positive definite matrices), MINRES with Jacobi
(symmetric), GMRES with an incomplete LU (any matrix). CHOLMOD (scikit-sparse) is not among them: it needs
SuiteSparse's headers to build, which this project's install does not bring.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from qlsbench.errors import InputError
from qlsbench.problems import state_fidelity

#: The tightest relative-residual tolerance tried (the loosest is the target epsilon itself).
TIGHTEST = 1e-12


@dataclass(frozen=True)
class Method:
    """A classical solver: what it is, which matrices it takes, and a run to a relative residual ``rtol``."""

    label: str
    takes: str  # "any", "symmetric" or "spd"
    run: Callable[[sp.csr_matrix, np.ndarray, float], tuple[np.ndarray, int]]


def _splu(A, b, rtol):
    return spla.splu(sp.csc_matrix(A)).solve(b), 1


def _counted(solve, A, b, rtol, **kwargs):
    """``solve``'s solution and its iterations (callback calls); ``kwargs`` are the method's own (MINRES takes
    no ``atol``, the others are given ``atol=0`` so the relative tolerance alone decides)."""
    calls = [0]

    def count(_):
        calls[0] += 1

    x, _info = solve(A, b, rtol=rtol, maxiter=20 * A.shape[0] + 100, callback=count, **kwargs)
    return x, calls[0]


def _jacobi(A):
    d = A.diagonal()
    d = np.where(d != 0, d, 1.0)
    return spla.LinearOperator(A.shape, matvec=lambda v: v / d, dtype=A.dtype)


def _cg_jacobi(A, b, rtol):
    return _counted(spla.cg, A, b, rtol, atol=0.0, M=_jacobi(A))


def _cg_amg(A, b, rtol):
    import pyamg

    ml = pyamg.smoothed_aggregation_solver(sp.csr_matrix(A))
    return _counted(spla.cg, A, b, rtol, atol=0.0, M=ml.aspreconditioner(cycle="V"))


def _minres_jacobi(A, b, rtol):
    return _counted(spla.minres, A, b, rtol, M=_jacobi(A))


def _gmres_ilu(A, b, rtol):
    ilu = spla.spilu(sp.csc_matrix(A), drop_tol=1e-4, fill_factor=10)
    M = spla.LinearOperator(A.shape, matvec=ilu.solve, dtype=A.dtype)
    return _counted(spla.gmres, A, b, rtol, atol=0.0, M=M, restart=50, callback_type="pr_norm")


#: The methods, by name.
METHODS = {
    "splu": Method("SuperLU (sparse direct)", "any", _splu),
    "cg-jacobi": Method("CG, Jacobi", "spd", _cg_jacobi),
    "cg-amg": Method("CG, smoothed-aggregation AMG (pyamg)", "spd", _cg_amg),
    "minres-jacobi": Method("MINRES, Jacobi", "symmetric", _minres_jacobi),
    "gmres-ilu": Method("GMRES(50), ILU", "any", _gmres_ilu),
}


def matrix_kind(A: sp.spmatrix) -> str:
    """``"spd"``, ``"symmetric"`` or ``"any"``: the most a method may assume of ``A``."""
    A = sp.csr_matrix(A)
    asym = spla.norm(A - A.T)
    if asym > 1e-12 * spla.norm(A):
        return "any"
    try:  # a Cholesky-free test: the smallest eigenvalue's sign
        lowest = spla.eigsh(A, k=1, which="SA", return_eigenvectors=False, tol=1e-6, v0=np.ones(A.shape[0]))[0]
    except spla.ArpackNoConvergence:
        return "symmetric"
    return "spd" if lowest > 0 else "symmetric"


def applicable(kind: str) -> list[str]:
    """The methods that take a matrix of ``kind``."""
    order = {"any": 0, "symmetric": 1, "spd": 2}
    return [name for name, m in METHODS.items() if order[m.takes] <= order[kind]]


def _ladder(epsilon: float) -> list[float]:
    rungs, rtol = [], epsilon
    while rtol >= TIGHTEST * (1 - 1e-9):
        rungs.append(rtol)
        rtol /= 10
    return rungs


def time_to_accuracy(method: str, A, b, x_ref, epsilon: float) -> dict[str, float | int | str | bool]:
    """Run ``method`` down the tolerance ladder until ``x`` has fidelity ``>= 1 - epsilon`` and relative residual
    ``<= epsilon``; the run that got there (module docstring).

    Returns
    -------
    dict
        ``method``, ``epsilon``, ``reached``, ``rtol`` (the rung that reached it), ``seconds`` (that run),
        ``iterations``, ``fidelity``, ``rel_residual`` and ``peak_mb`` (resident memory the run added, from the
        process's high-water mark).
    """
    if method not in METHODS:
        raise InputError(f"classical method {method!r} is unknown; known: {', '.join(METHODS)}")
    if not 0 < epsilon < 1:
        raise InputError(f"classical method {method}: epsilon must be in (0, 1), got {epsilon!r}")
    A = sp.csr_matrix(A)
    bnorm = np.linalg.norm(b)
    row: dict[str, float | int | str | bool] = {"method": method, "epsilon": float(epsilon), "reached": False}
    for rtol in _ladder(epsilon):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        x, iterations = METHODS[method].run(A, b, rtol)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        fidelity = state_fidelity(x, x_ref)
        residual = float(np.linalg.norm(b - A @ x) / bnorm)
        row.update(
            rtol=rtol,
            seconds=seconds,
            iterations=int(iterations),
            fidelity=float(fidelity),
            rel_residual=residual,
            peak_mb=(after - before) / 1024,  # ru_maxrss is in KiB on Linux
        )
        if fidelity >= 1 - epsilon and residual <= epsilon:
            row["reached"] = True
            break
    return row


def _isolated(args):
    """One measurement in a fresh process, so its memory high-water mark is its own."""
    return time_to_accuracy(*args)


def classical_best(A, b, x_ref, epsilon: float, *, isolate: bool = True) -> list[dict]:
    """Every applicable method's time to accuracy on ``A x = b`` (each in a process of its own when ``isolate``:
    a fresh memory high-water mark, and a crash or an exhausted memory loses one row, not the sweep)."""
    kind = matrix_kind(A)
    names = applicable(kind)
    if not isolate:
        rows = [time_to_accuracy(name, A, b, x_ref, epsilon) for name in names]
    else:
        with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn"), max_tasks_per_child=1) as pool:
            rows = list(pool.map(_isolated, [(name, A, b, x_ref, epsilon) for name in names]))
    return [{**row, "kind": kind} for row in rows]
