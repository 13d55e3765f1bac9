"""The contract every solver meets, whatever it runs on.

Modelled on ``scipy.sparse.linalg``: one call shape in, one result record
out, with a status code instead of exceptions for "did not converge".
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from qlsbench.errors import InputError
from qlsbench.outcomes import Status
from qlsbench.problems import LinearSystem

#: Resources every solver reports under these names when it has them; the results table gives each a
#: column of its own so the leaderboard can set accuracy against cost. Anything else stays in the JSON.
RESOURCE_KEYS: tuple[str, ...] = (
    "parameters",  # trainable parameters of a variational state or circuit
    "circuit_depth",  # depth of the deepest circuit executed (transpiled)
    "circuits_per_evaluation",  # distinct circuits behind one cost evaluation
    "shots",  # shots per circuit execution (0: exact expectation values)
    "circuit_executions",  # circuits run in the whole solve
    "pauli_terms",  # Pauli strings of A the circuits use
    "mc_samples",  # Monte Carlo samples drawn in the whole solve
    "cost_evaluations",  # evaluations of the cost (variational) or matrix-vector products
    "routed_depth",  # depth of the deepest circuit routed to a device (its coupling map and basis gates)
    "two_qubit_gates",  # two-qubit gates of the routed circuit with most of them
)


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
        What the solve cost: the keys of :data:`RESOURCE_KEYS` where they apply
        (each becomes a results column), plus anything solver-specific
        (fill-in, model, final loss) kept as JSON.
    progress : list of (int, numpy.ndarray) or (int, numpy.ndarray, float)
        The solution the solver would have returned had it stopped after that
        many cost evaluations (variational solvers, at the marks of
        :func:`qlsbench.solvers.variational.progress_marks`), and optionally the
        seconds since the solve started; the runner turns each into a fidelity
        and a residual, so success can be set against budget, in evaluations and
        in time.
    state : object
        What a warm start of the next solve can reuse (solver-specific: the
        solution for a Krylov method, the trained angles or network weights of
        a variational one), handed back as ``start=`` by a caller that solves
        a sequence of close systems (:mod:`qlsbench.bench.in_loop`, the
        ``--sequence`` mode of ``qlsbench solve``). ``None`` when the solver
        cannot start from anything. Never written to a results file.
    """

    x: np.ndarray | None
    status: Status
    message: str = ""
    wall_time: float = 0.0
    iterations: int = 0
    history: list[float] = field(default_factory=list)
    resources: dict[str, Any] = field(default_factory=dict)
    progress: list[tuple] = field(default_factory=list)
    state: Any = None


#: Statuses under which a solver hands back a solution to be judged.
RETURNED: tuple[Status, ...] = (Status.CONVERGED, Status.MAX_ITER, Status.STALLED)


@runtime_checkable
class Solver(Protocol):
    """What the runner needs of a solver.

    A solver is configured at construction (``registry.get(name, **options)``)
    and then solves any number of systems. ``options`` is recorded with every
    result so a leaderboard row says exactly what was run. A solver may also
    have ``prepare()``: work done once, in the runner's process, before the
    first solve and outside any solve's time limit (the external solver
    builds its environment there).
    """

    name: str

    @property
    def options(self) -> dict[str, Any]: ...

    def solve(self, system: LinearSystem, *, seed: int = 0) -> SolveResult: ...


def prepare(solver) -> None:
    """Run ``solver.prepare()`` where it has one (:class:`Solver`): its once-per-run work, before any solve."""
    getattr(solver, "prepare", lambda: None)()


def can_start(solver) -> bool:
    """Whether ``solver`` takes a warm start: ``solve(system, seed=..., start=state)``.

    A solver says so with a non-empty class attribute ``start_from`` naming
    what it reuses; its results carry ``state`` for the next solve.
    """
    return bool(getattr(solver, "start_from", ""))


def start_used(resources: dict, used: bool, why: str = "") -> None:
    """Record in a solve's ``resources`` whether it started from the previous solve's state, and why not."""
    resources["started_from"] = "previous" if used else "cold"
    if why:
        resources["start_refused"] = why


class BaseSolver:
    """Convenience base: options from dataclass fields, timing around ``_solve``.

    Subclasses are dataclasses holding their options as fields, with a class
    attribute ``name`` and a method ``_solve(system, seed) -> SolveResult``.
    A subclass that can start from an earlier solve's ``state`` names what it
    reuses in ``start_from`` and takes ``_solve(system, seed, start)``.
    """

    name: ClassVar[str] = "base"
    #: What a warm start reuses ("" : the solver always starts cold).
    start_from: ClassVar[str] = ""

    def __post_init__(self) -> None:
        """Check the options record's fields (bounds, choices, types: :func:`~qlsbench.options.check_record`),
        then what needs several of them (:meth:`_check`), before the solver does anything."""
        from qlsbench.options import check_record

        check_record(self, self.name)
        self._check()

    def _check(self) -> None:
        """Checks across options; raise :class:`~qlsbench.errors.InputError` naming them."""

    @property
    def options(self) -> dict[str, Any]:
        """The dataclass fields, or for a plain subclass its public attributes: what a results row records."""
        if dataclasses.is_dataclass(self):
            return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return {k: v for k, v in vars(self).items() if not k.startswith("_") and not callable(v)}

    def solve(self, system: LinearSystem, *, seed: int = 0, start: Any = None) -> SolveResult:
        """Solve ``system``, from ``start`` (an earlier result's ``state``) when given; see :class:`SolveResult`."""
        t0 = time.perf_counter()
        if start is None:
            result = self._solve(system, seed)
        elif not self.start_from:
            raise InputError(f"{self.name}: takes no warm start (it has nothing to start from)")
        else:
            result = self._solve(system, seed, start)  # type: ignore[call-arg]  # start_from: takes a start
        result.wall_time = time.perf_counter() - t0
        return result

    def _solve(self, system: LinearSystem, seed: int) -> SolveResult:
        raise NotImplementedError
