"""Run solves in a separate process so a hung or crashing solver cannot stop a run.

One worker process per solver configuration is reused across systems; when a
solve exceeds its time limit the worker is killed and a fresh one started.
A worker whose parent is gone (killed outright) ends at once, without a word.

In every path, in this process or a worker, a solver is handed a private copy
of the system: what it does to ``A``, ``b`` or the metadata cannot reach the
system the metrics are computed from, nor the next repeat.
"""

from __future__ import annotations

import copy
import dataclasses
import multiprocessing as mp
import os
import signal
import time
import traceback
from multiprocessing.connection import Connection
from multiprocessing.context import SpawnProcess
from typing import Any

import numpy as np

from qlsbench.errors import SolverProcessError
from qlsbench.problems import LinearSystem
from qlsbench.solvers import SolveResult, Status, get
from qlsbench.solvers.base import RETURNED
from qlsbench.solvers.processes import become_subreaper, children_now, end_orphans
from qlsbench.solvers.processes import exit_with_parent as _exit_with_parent

#: How long a new worker may take to import its solver (JAX and Qiskit are slow to import).
STARTUP_TIMEOUT = 300.0


def private_copy(system: LinearSystem) -> LinearSystem:
    """A copy of ``system`` with arrays and metadata of its own, for a solver to do with as it likes.

    A correct solver may well scale ``A`` in place; were it handed the
    runner's system, the metrics and every later repeat would see the scaled
    one. The copy keeps the original's ``system_id`` without rehashing.
    """
    clone = copy.copy(system)
    own = {
        "A": system.A.copy(),
        "b": system.b.copy(),
        "meta": copy.deepcopy(system.meta),
        "x_ref": None if system.x_ref is None else system.x_ref.copy(),
    }
    for name, value in own.items():
        object.__setattr__(clone, name, value)  # LinearSystem is frozen
    return clone


def call_solver(solver, system: LinearSystem, seed: int, start: Any = None) -> tuple[SolveResult, float]:
    """Call ``solver.solve`` on a private copy of ``system``, turning exceptions into error results.

    An exception becomes an ``error`` row whose resources name it (``raised``),
    so a solver that raised is told apart from one that returned an error
    status (diverging is a result, not a bug).

    ``start`` (an earlier result's ``state``) is passed on only when given, so
    a plug-in without warm starts is called as always.

    Returns the result, checked against the untouched ``system``, and the
    wall time measured around the call, which the runner records for every
    solver alike (a plug-in's own timing may differ).
    """
    mine = private_copy(system)  # copied before the clock starts: the copy is the runner's cost
    t0 = time.perf_counter()
    try:
        result = solver.solve(mine, seed=seed, **({} if start is None else {"start": start}))
        if not isinstance(result, SolveResult):
            raise TypeError(f"solve returned {type(result).__name__}, expected SolveResult")
        result = checked(result, system)
    except Exception as exc:  # a solver bug must become a row, not end the run
        last = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
        where = f" at {last.filename}:{last.lineno}" if last else ""
        result = SolveResult(
            None, Status.ERROR, f"{type(exc).__name__}: {exc}{where}", resources={"raised": type(exc).__name__}
        )
    return result, time.perf_counter() - t0


def checked(result: SolveResult, system: LinearSystem) -> SolveResult:
    """``result`` with its status corrected when its solution cannot be one.

    A solver may claim success with a NaN-filled or wrongly sized vector (or
    none at all); the runner does not take its word for it. The solution is
    kept so the row shows what came back.
    """
    if result.status not in RETURNED:
        return result
    x = result.x
    if x is None:
        problem = "returned no solution"
    elif np.shape(x) != system.b.shape:
        problem = f"returned a solution of shape {np.shape(x)} for a system of dimension {system.dim}"
    elif not np.all(np.isfinite(x)):
        problem = f"returned a solution with {int(np.sum(~np.isfinite(x)))} non-finite entries"
    else:
        return _converged_checked(result, system)
    claimed = f" (it reported {result.status}{': ' + result.message if result.message else ''})"
    resources = {**(result.resources if isinstance(result.resources, dict) else {}), "invalid_solution": problem}
    return dataclasses.replace(
        result,
        status=Status.ERROR,
        message=f"solver {problem}{claimed}",
        resources=resources,
        x=x if x is not None and np.shape(x) == system.b.shape else None,
    )


def _converged_checked(result: SolveResult, system: LinearSystem) -> SolveResult:
    """``result``, but ``stalled`` when it claims ``converged`` for an answer no better than ``x = 0``.

    A relative residual of 1 or more (or one that overflows) is what not solving
    scores; an absolute tolerance above ``|b|`` lets a Krylov method "converge"
    at its start, ``x = 0``. The solver's claim is checked against the metric
    the runner records, whatever the solver says.
    """
    if result.status is not Status.CONVERGED:
        return result
    norm_b = float(np.linalg.norm(system.b))
    with np.errstate(all="ignore"):  # an answer of huge entries: its residual overflows, which is the finding
        residual = float(np.linalg.norm(system.A @ result.x - system.b)) / norm_b if norm_b > 0 else 0.0
    if np.isfinite(residual) and residual < 1.0:
        return result
    said = f": {result.message}" if result.message else ""
    return dataclasses.replace(
        result,
        status=Status.STALLED,
        message=f"reported converged at relative residual {residual:.3g} (>= 1: no better than x = 0){said}",
        resources={
            **(result.resources if isinstance(result.resources, dict) else {}),
            "claimed": Status.CONVERGED.value,
        },
    )


def _death(code: int | None) -> str:
    """How a worker ended: ``exit code 3`` or ``killed by SIGSEGV (exit code -11)``."""
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name} (exit code {code})"
        except ValueError:
            pass
    return f"exit code {code}"


def _serve(conn, name: str, options: dict[str, Any]) -> None:
    """Build the solver, then solve what the parent sends until it sends ``None``."""
    try:
        solver = get(name, **options)
    except Exception as exc:
        conn.send(("failed", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("ready", None))
    while True:
        task = conn.recv()
        if task is None:
            return
        system, seed = task
        result, wall = call_solver(solver, system, seed)
        _send_result(conn, dataclasses.replace(result, state=None), wall)  # a warm-start state stays here


def _send_result(conn, result: SolveResult, wall: float) -> None:
    """Send a result to the parent; one that cannot be pickled (a lambda or an open file in its resources)
    becomes an error row saying so, instead of a worker dying with a traceback nobody reads."""
    import pickle

    try:
        payload = pickle.dumps((result, wall))
    except Exception as exc:
        payload = pickle.dumps(
            (
                SolveResult(
                    None,
                    Status.ERROR,
                    (
                        f"the solver's result cannot be sent back from its process ({type(exc).__name__}: {exc}); keep "
                        "SolveResult's resources and progress to plain data"
                    ),
                    resources={"raised": type(exc).__name__},
                ),
                wall,
            )
        )
    conn.send_bytes(payload)


def _worker_main(conn, name: str, options: dict[str, Any]) -> None:
    _exit_with_parent()
    try:
        _serve(conn, name, options)
    except (EOFError, OSError):  # BrokenPipeError, ConnectionResetError: the parent is gone
        os._exit(0)  # quietly: a traceback here would land in the dead parent's log


class IsolatedSolver:
    """A solver running in a child process with a per-solve wall-time limit.

    Parameters
    ----------
    name : str
        Registered solver name.
    options : dict
        Options for :func:`qlsbench.solvers.get`.
    time_limit : float or None
        Seconds allowed for one solve; ``None``: no limit (a solve that might
        take its process down, retried where a dead runner left it).
    """

    def __init__(self, name: str, options: dict[str, Any], time_limit: float | None) -> None:
        self.name, self.options = name, dict(options)
        self.time_limit = None if time_limit is None else float(time_limit)
        self._ctx = mp.get_context("spawn")  # fork is unsafe once JAX or BLAS threads exist
        self._proc: SpawnProcess | None = None
        self._conn: Connection | None = None

    def _start(self) -> tuple[SpawnProcess, Connection]:
        """Start the worker; its process and this end of its pipe."""
        # what the worker's solver starts is handed here if the worker is killed at the time limit (end_orphans)
        become_subreaper()
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=_worker_main, args=(child, self.name, self.options), daemon=True)
        self._proc, self._conn = proc, parent  # before start(), so close() can always release both ends
        try:
            proc.start()
        finally:
            child.close()
        if not parent.poll(STARTUP_TIMEOUT):
            self.close()
            raise SolverProcessError(f"solver {self.name!r}: its process did not start within {STARTUP_TIMEOUT:g} s")
        try:
            kind, detail = parent.recv()
        except EOFError:  # it died while importing (an unguarded __main__ under spawn, a crash in an import)
            proc.join(timeout=5.0)
            why = _death(proc.exitcode)
            self.close(graceful=False)
            raise SolverProcessError(
                f"solver {self.name!r}: its process died while starting ({why}); a solver run "
                "under a time limit is imported afresh in a child process, so its module must "
                "import on its own (not a class defined in __main__ or a notebook)"
            ) from None
        if kind != "ready":
            self.close()
            raise SolverProcessError(f"solver {self.name!r}: its process could not build it: {detail}")
        return proc, parent

    def solve(self, system: LinearSystem, seed: int) -> tuple[SolveResult, float]:
        """Solve in the worker; a timeout or a dead worker becomes a result."""
        if self._proc is None or self._conn is None or not self._proc.is_alive():
            proc, conn = self._start()
        else:
            proc, conn = self._proc, self._conn
        t0 = time.perf_counter()
        before = children_now()
        conn.send((system, seed))
        if not conn.poll(self.time_limit):
            self.close(graceful=False)
            wall = time.perf_counter() - t0
            end_orphans(before)  # what the solver started outlives the worker: it ends here, off the clock
            return SolveResult(None, Status.TIMEOUT, f"exceeded the time limit of {self.time_limit:g} s"), wall
        try:
            return conn.recv()  # send_bytes of a pickle: recv unpickles it
        except EOFError:  # the process died (segfault, os._exit, out of memory)
            proc.join(timeout=5.0)  # the pipe closes before the exit code is collected
            why = _death(proc.exitcode)
            self.close(graceful=False)
            return (
                SolveResult(None, Status.ERROR, f"solver process died ({why})", resources={"died": why}),
                time.perf_counter() - t0,
            )

    def close(self, graceful: bool = True) -> None:
        """Stop the worker process, if any; ``graceful=False`` kills it at once."""
        if self._proc is not None:
            if graceful and self._proc.is_alive() and self._conn is not None:
                try:
                    self._conn.send(None)
                except (BrokenPipeError, OSError):
                    pass
                self._proc.join(timeout=1.0)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join()
        if self._conn is not None:
            self._conn.close()
        self._proc = None
        self._conn = None

    def __enter__(self) -> IsolatedSolver:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
