"""The solver as the Newton direction of a stepper, and the count of the reference run's solves."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from qlsbench.errors import QlsbenchError
from qlsbench.problems import LinearSystem, pad_and_normalize, recover_solution

#: Resources (:data:`~qlsbench.solvers.base.RESOURCE_KEYS`) that add up over a run's solves.
ADDITIVE_RESOURCES = ("circuit_executions", "mc_samples", "cost_evaluations")


class LoopAborted(QlsbenchError):
    """The solver in the loop failed on a Newton system: the candidate run ends with ``status``."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status


def _status(result) -> str:
    """A solve's status as text (a plug-in may return it as a plain string)."""
    return str(getattr(result.status, "value", result.status))


@dataclass
class LoopSolver:
    """A solver as the Newton direction of a stepper: ``loop(A, b, info) -> x`` (see the module docstring).

    Attributes
    ----------
    solver : object
        Meets the :class:`~qlsbench.solvers.base.Solver` protocol.
    seed : int
        Base seed; the k-th system is solved with ``seed + k``.
    time_limit : float or None
        Seconds one solve may take; longer ends the run (checked after the solve returns).
    iteration_budget : int or None
        Solver iterations all solves may use; more ends the run (checked after each solve). A solver trapped
        solve after solve would otherwise drag a run on for hours.
    warm : {"off", "on", "converged"}
        ``on``: start each solve from the previous solve's ``state``; ``converged``: from the state of the
        last solve that converged, so a solve that failed hands on nothing (:func:`~qlsbench.solvers.base.can_start`
        solvers only; the solver decides whether the state fits the new system).
    solves, seconds, max_qubits, projections : int, float, int, list
        Systems solved, seconds spent in the solver, the largest system's qubits (padded), and each
        answer's projection factor ``alpha``.
    iterations, warm_starts : int
        The solver's iterations summed over the solves, and the solves that started from the previous one.
    resources : dict
        Sums of the solver's :data:`ADDITIVE_RESOURCES` over the solves.
    """

    solver: Any
    seed: int = 0
    time_limit: float | None = None
    iteration_budget: int | None = None
    warm: str = "off"
    solves: int = 0
    seconds: float = 0.0
    max_qubits: int = 0
    projections: list = field(default_factory=list)
    resources: dict = field(default_factory=dict)
    iterations: int = 0
    warm_starts: int = 0
    _state: Any = None

    def saved(self) -> dict[str, Any]:
        """Everything but the solver: what a checkpoint keeps so a resumed run solves as this one would."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "solver"}

    def __call__(self, A: sp.spmatrix, b: np.ndarray, info: dict) -> np.ndarray:
        A = sp.csr_matrix(A)
        b = np.asarray(b, dtype=float)
        if not np.any(b):  # nothing to solve (the datasets skip these too): x = 0, no solver call
            return np.zeros(A.shape[0])
        system = pad_and_normalize(LinearSystem(A, b, {}), min_qubits=1)
        where = f"solve {self.solves + 1} (Newton iteration {info.get('newton_iter', '?')}, {A.shape[0]} unknowns)"
        t0 = time.perf_counter()
        start = {"start": self._state} if self.warm != "off" and self._state is not None else {}
        try:
            result = self.solver.solve(system, seed=self.seed + self.solves, **start)
        except Exception as exc:  # a solver's own failure ends the run; it is reported, not re-raised
            raise LoopAborted("error", f"{where}: the solver raised {type(exc).__name__}: {exc}") from None
        elapsed = time.perf_counter() - t0
        self.solves += 1
        self.seconds += elapsed
        self.max_qubits = max(self.max_qubits, int(system.meta["n_qubits"]))
        self.iterations += int(result.iterations or 0)
        self.warm_starts += (result.resources or {}).get("started_from") == "previous"
        if self.warm != "converged" or _status(result) == "converged":
            # A variational solve that failed can leave its parameters in a trap the next, nearby system's
            # solve starts inside of and fails again (measured: VNLS in the dem_c16 loop, every solve from
            # solve 112 on at its iteration cap); "converged" hands on only what reached its tolerance.
            self._state = getattr(result, "state", None)
        for key in ADDITIVE_RESOURCES:
            value = (result.resources or {}).get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                self.resources[key] = self.resources.get(key, 0) + value
        if self.time_limit is not None and elapsed > self.time_limit:
            raise LoopAborted("time_limit", f"{where}: took {elapsed:.1f} s, over the limit of {self.time_limit:g} s")
        if self.iteration_budget is not None and self.iterations > self.iteration_budget:
            raise LoopAborted(
                "budget",
                f"{where}: the run's solves have used {self.iterations:,} solver iterations, "
                f"over its budget of {self.iteration_budget:,}",
            )
        return self._direction(A, b, system, result, where)

    def _direction(self, A, b, system, result, where: str) -> np.ndarray:
        if result.x is None:
            status = _status(result)
            raise LoopAborted(
                status,
                f"{where}: the solver returned no answer ({status}{': ' + result.message if result.message else ''})",
            )
        x = np.asarray(result.x)
        if x.shape != (system.dim,):
            raise LoopAborted(
                "wrong_length", f"{where}: the solver returned shape {x.shape}, the system has {system.dim} unknowns"
            )
        if not np.all(np.isfinite(x)):
            raise LoopAborted("nan", f"{where}: the solver returned NaN or inf")
        x = np.real(recover_solution(system, x))
        Ax = A @ x
        denom = float(Ax @ Ax)
        alpha = float(b @ Ax) / denom if denom > 0 else 0.0
        self.projections.append(alpha)
        return alpha * x


@dataclass
class SolveCount:
    """The Newton systems the reference run solves, counted as :class:`LoopSolver` counts the candidate's.

    The reference solves by the stepper's own linear algebra, so its solves are counted where the stepper
    hands each system to its capture hook; a system with ``b = 0`` is not counted (the loop answers it with
    ``x = 0`` and no solve), so ``solves`` of an exact solver in the loop equals the reference's.
    """

    solves: int = 0

    def see(self, b) -> None:
        """Count one Newton system of right-hand side ``b``, unless ``b`` is zero."""
        self.solves += bool(np.any(np.asarray(b)))


__all__ = ["ADDITIVE_RESOURCES", "LoopAborted", "LoopSolver", "SolveCount"]
