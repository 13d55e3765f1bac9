"""The contract every solver meets, whatever it runs on.

Modelled on ``scipy.sparse.linalg``: one call shape in, one result record
out, with a status code instead of exceptions for "did not converge".
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

import numpy as np

from qlsbench.problems import LinearSystem


class Status(StrEnum):
    """Outcome of one solve."""

    CONVERGED = "converged"  #: the solver met its own stopping criterion
    MAX_ITER = "max_iter"  #: the iteration budget ran out first
    TIMEOUT = "timeout"  #: the runner's wall-time limit ran out first
    ERROR = "error"  #: the solver failed or does not apply; see ``message``


@dataclass
class SolveResult:
    """Result of one solve.

    Attributes
    ----------
    x : numpy.ndarray or None
        Approximate solution (``None`` when the solver produced none).
    status : Status
        Outcome code.
    message : str
        Human-readable detail, e.g. why a solver does not apply.
    wall_time : float
        Seconds spent in ``solve``.
    iterations : int
        Iterations (optimizer steps for variational solvers; 1 for direct ones).
    history : list of float
        Per-iteration residual or loss values.
    resources : dict
        Solver-specific costs: qubits, circuits, shots, parameters, fill-in, ...
    """

    x: np.ndarray | None
    status: Status
    message: str = ""
    wall_time: float = 0.0
    iterations: int = 0
    history: list[float] = field(default_factory=list)
    resources: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Solver(Protocol):
    """What the runner needs of a solver.

    A solver is configured at construction (``registry.get(name, **options)``)
    and then solves any number of systems. ``options`` is recorded with every
    result so a leaderboard row says exactly what was run.
    """

    name: str

    @property
    def options(self) -> dict[str, Any]: ...

    def solve(self, system: LinearSystem, *, seed: int = 0) -> SolveResult: ...


class BaseSolver:
    """Convenience base: options from dataclass fields, timing around ``_solve``.

    Subclasses are dataclasses holding their options as fields, with a class
    attribute ``name`` and a method ``_solve(system, seed) -> SolveResult``.
    """

    name: str = "base"

    @property
    def options(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def solve(self, system: LinearSystem, *, seed: int = 0) -> SolveResult:
        """Solve ``system``; see :class:`SolveResult` for what comes back."""
        t0 = time.perf_counter()
        result = self._solve(system, seed)
        result.wall_time = time.perf_counter() - t0
        return result

    def _solve(self, system: LinearSystem, seed: int) -> SolveResult:
        raise NotImplementedError
