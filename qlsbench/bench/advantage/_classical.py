"""The classical side of the advantage map, measured: the best of several classical solvers to the accuracy a
quantum solver would deliver.

A quantum solver returns ``x`` to a fidelity ``1 - epsilon`` at best; a classical solver that stops as soon as it
has that accuracy is the fair opponent, not one run to machine precision. Each method runs on a ladder of
relative-residual tolerances (``epsilon``, ``epsilon / 10``, ... down to ``1e-12``) and the first run whose
solution has fidelity at least ``1 - epsilon`` and relative residual at most ``epsilon`` counts: its wall time
(set-up included: factorisation, preconditioner, multigrid hierarchy), as the median of :data:`REPEATS` runs at
that rung with their least and greatest beside it (the spread a rerun on the same machine falls in), and the peak
resident memory of the process that ran it (its own process: interpreter and imports included). A method that
reaches neither on the ladder is recorded as not reaching the target.

The methods, one line each in :data:`METHODS`: SuperLU, CHOLMOD's sparse Cholesky (scikit-sparse; symmetric
positive definite), conjugate gradients with a Jacobi and with an algebraic multigrid preconditioner (pyamg's
smoothed aggregation; SPD), MINRES with Jacobi (symmetric), GMRES with an incomplete LU (any matrix). CHOLMOD is
the optional extra ``cholmod``: scikit-sparse builds against SuiteSparse's headers (Debian ``libsuitesparse-dev``;
0.4.16 is the last release that builds on SuiteSparse 5); where it is not installed its row says so.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, TimeoutError
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import get_context

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from qlsbench.errors import InputError
from qlsbench.problems import state_fidelity

#: The tightest relative-residual tolerance tried (the loosest is the target epsilon itself).
TIGHTEST = 1e-12
#: Timed runs at the rung that reached the target: their median is the method's time, their range its spread.
REPEATS = 3
#: Longest a method may take on one system (ladder and repeats): past it the method is recorded as not run.
TIMEOUT = 1800.0
#: The methods that factorise ``A``, whole or incompletely (left out where an axis says its factors would not fit:
#: on the Ising axis an incomplete LU with fill factor 10 took 70 s at 2^14 unknowns, SuperLU's fill ~0.7 N^2).
FACTORISING = ("splu", "cholmod", "gmres-ilu")
#: A run longer than this is not repeated (its spread is then unknown, ``nan``): a sweep's largest direct solves.
REPEAT_BUDGET = 120.0


@dataclass(frozen=True)
class Method:
    """A classical solver: what it is, which matrices it takes, and a run to a relative residual ``rtol``."""

    label: str
    takes: str  # "any", "symmetric" or "spd"
    run: Callable[[sp.csr_matrix, np.ndarray, float], tuple[np.ndarray, int]]


def _splu(A, b, rtol):
    return spla.splu(sp.csc_matrix(A)).solve(b), 1


def _cholmod(A, b, rtol):
    from sksparse.cholmod import cholesky

    return cholesky(sp.csc_matrix(A))(b), 1


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
    "cholmod": Method("CHOLMOD sparse Cholesky (scikit-sparse)", "spd", _cholmod),
    "cg-jacobi": Method("CG, Jacobi", "spd", _cg_jacobi),
    "cg-amg": Method("CG, smoothed-aggregation AMG (pyamg)", "spd", _cg_amg),
    "minres-jacobi": Method("MINRES, Jacobi", "symmetric", _minres_jacobi),
    "gmres-ilu": Method("GMRES(50), ILU", "any", _gmres_ilu),
}


def cholmod_installed() -> bool:
    """Whether scikit-sparse's CHOLMOD imports here (the optional extra ``cholmod``)."""
    try:  # an import, not a search of the path: a package that is there but will not load counts as absent
        import sksparse.cholmod  # noqa: F401
    except ImportError:
        return False
    return True


def _dominance_says_spd(A: sp.csr_matrix) -> bool:
    """Whether ``A`` (symmetric) is SPD by its diagonal alone: positive, at least the rest of its row, and more than
    it in some row of every connected block (Taussky: irreducibly diagonally dominant, so nonsingular; Gershgorin:
    no eigenvalue below 0). Exact, in one pass; ``False`` says only that this test cannot tell.

    The finite-difference Laplacians are such matrices; Lanczos for their lowest eigenvalue, which lies in a
    cluster of width ~1/N^2, took over 12 minutes at N = 65,536.
    """
    from scipy.sparse.csgraph import connected_components

    d = A.diagonal()
    off = np.asarray(abs(A).sum(axis=1)).ravel() - np.abs(d)
    if not (np.all(d > 0) and np.all(d >= off)):
        return False
    blocks, label = connected_components(A, directed=False)
    return bool(np.all(np.bincount(label[d > off], minlength=blocks) > 0))


def matrix_kind(A: sp.spmatrix) -> str:
    """``"spd"``, ``"symmetric"`` or ``"any"``: the most a method may assume of ``A``."""
    A = sp.csr_matrix(A)
    asym = spla.norm(A - A.T)
    if asym > 1e-12 * spla.norm(A):
        return "any"
    if _dominance_says_spd(A):
        return "spd"
    try:  # a Cholesky-free test: the smallest eigenvalue's sign
        lowest = spla.eigsh(A, k=1, which="SA", return_eigenvectors=False, tol=1e-6, v0=np.ones(A.shape[0]))[0]
    except spla.ArpackNoConvergence:
        return "symmetric"
    # a margin: the Lanczos value of a singular matrix's lowest eigenvalue is +-1e-16, either sign on another run
    return "spd" if lowest > 1e-12 * spla.norm(A) else "symmetric"


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


def _timed(method: str, A, b, rtol: float) -> tuple[np.ndarray, int, float]:
    start = time.perf_counter()
    x, iterations = METHODS[method].run(A, b, rtol)
    return x, iterations, time.perf_counter() - start


def _repeated(method: str, A, b, rtol: float, first: float) -> dict[str, float | int]:
    """The median, least and greatest of :data:`REPEATS` timed runs at ``rtol`` (``first`` among them)."""
    times = [first]
    if first <= REPEAT_BUDGET:
        times += [_timed(method, A, b, rtol)[2] for _ in range(REPEATS - 1)]
    spread = len(times) > 1
    return {
        "seconds": float(np.median(times)),
        "seconds_low": float(min(times)) if spread else float("nan"),
        "seconds_high": float(max(times)) if spread else float("nan"),
        "repeats": len(times),
    }


def time_to_accuracy(method: str, A, b, x_ref, epsilon: float) -> dict[str, float | int | str | bool]:
    """Run ``method`` down the tolerance ladder until ``x`` has fidelity ``>= 1 - epsilon`` and relative residual
    ``<= epsilon``; the run that got there, timed :data:`REPEATS` times (module docstring).

    Returns
    -------
    dict
        ``method``, ``epsilon``, ``reached``, ``rtol`` (the rung that reached it), ``seconds`` (median at that
        rung), ``seconds_low`` and ``seconds_high`` (their range), ``repeats``, ``iterations``, ``fidelity``,
        ``rel_residual`` and ``peak_mb`` (the process's resident high-water mark, MiB).
    """
    if method not in METHODS:
        raise InputError(f"classical method {method!r} is unknown; known: {', '.join(METHODS)}")
    if not 0 < epsilon < 1:
        raise InputError(f"classical method {method}: epsilon must be in (0, 1), got {epsilon!r}")
    A = sp.csr_matrix(A)
    bnorm = np.linalg.norm(b)
    row: dict[str, float | int | str | bool] = {"method": method, "epsilon": float(epsilon), "reached": False}
    for rtol in _ladder(epsilon):
        try:
            x, iterations, seconds = _timed(method, A, b, rtol)
        except Exception as exc:  # noqa: BLE001  a method failing on a matrix is a measurement, not a failed sweep
            why = f"failed: {type(exc).__name__}: {exc}".splitlines()[0][:200]
            return {**_not_run(method, epsilon, why), "peak_mb": _peak_mb()}
        fidelity = state_fidelity(x, x_ref)
        residual = float(np.linalg.norm(b - A @ x) / bnorm)
        row.update(
            rtol=rtol,
            seconds=seconds,
            seconds_low=float("nan"),
            seconds_high=float("nan"),
            repeats=1,
            iterations=int(iterations),
            fidelity=float(fidelity),
            rel_residual=residual,
        )
        if fidelity >= 1 - epsilon and residual <= epsilon:
            row.update(reached=True, **_repeated(method, A, b, rtol, seconds))
            break
    row["peak_mb"] = _peak_mb()
    return row


def _peak_mb() -> float:
    """This process's resident high-water mark in MiB (``ru_maxrss`` is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _isolated(args):
    """One measurement in a fresh process, so its memory high-water mark is its own."""
    return time_to_accuracy(*args)


def _not_run(method: str, epsilon: float, why: str) -> dict:
    return {"method": method, "epsilon": float(epsilon), "reached": False, "not_run": why}


def _in_child(args: tuple, timeout: float) -> dict:
    """:func:`time_to_accuracy` in a fresh process; a row saying why when it dies or overruns.

    The process is forked from a server that has imported this module once (a spawned one would import scipy
    anew: 1.5 s per run, 20 s per small system), and forked from that server, not from the caller, it holds no
    thread or state of the caller's."""
    ctx = get_context("forkserver")
    ctx.set_forkserver_preload([__name__])
    with ProcessPoolExecutor(max_workers=1, mp_context=ctx, max_tasks_per_child=1) as pool:
        start = time.perf_counter()
        future = pool.submit(_isolated, args)
        try:
            row = future.result(timeout=timeout)
        except TimeoutError:
            for process in list(pool._processes.values()):  # the executor has no public way to stop a running task
                process.kill()
            return _not_run(args[0], args[4], f"over {timeout:g} s")
        except BrokenProcessPool:
            return _not_run(args[0], args[4], "the process died (memory?)")
    # On a busy machine this process can be descheduled past the deadline while the child finishes: the answer
    # is then already there when the wait starts, and only the clock says the run overran.
    if time.perf_counter() - start > timeout:
        return _not_run(args[0], args[4], f"over {timeout:g} s")
    return row


def classical_best(
    A,
    b,
    x_ref,
    epsilon: float,
    *,
    isolate: bool = True,
    factorise: bool = True,
    timeout: float = TIMEOUT,
    kind: str | None = None,
) -> list[dict]:
    """Every applicable method's time to accuracy on ``A x = b`` (each in a process of its own when ``isolate``:
    a fresh memory high-water mark, and a crash, an exhausted memory or a run past ``timeout`` seconds loses
    one row, not the sweep). ``factorise=False`` leaves out the methods that factorise (their rows say why);
    ``kind`` is :func:`matrix_kind` of ``A`` when the caller has it (a Lanczos run per call otherwise)."""
    kind = matrix_kind(A) if kind is None else kind
    rows = []
    for name in applicable(kind):
        args = (name, A, b, x_ref, epsilon)
        if name in FACTORISING and not factorise:
            rows.append(_not_run(name, epsilon, "its factors would not fit"))
        elif name == "cholmod" and not cholmod_installed():
            rows.append(_not_run(name, epsilon, "scikit-sparse is not installed"))
        else:
            rows.append(_in_child(args, timeout) if isolate else time_to_accuracy(*args))
    return [{"not_run": "", **row, "kind": kind} for row in rows]
