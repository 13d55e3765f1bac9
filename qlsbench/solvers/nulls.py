"""Null solvers: controls that do not solve, judged by the same rules as the solvers beside them.

A verdict that a trivial answer passes is not a verdict. Wherever qlsbench
judges a solver (the board's tracks, the reproduction, in-loop and noisy
pages), these run beside it:

- ``null-b`` returns ``b`` itself, read out like a variational state (its
  norm and sign by the least-squares projection every variational solver
  uses, :func:`~qlsbench.solvers.variational.least_squares_readout`). On a
  system whose solution is nearly ``b`` (the Ising-inspired systems at small
  ``J``) it scores a fidelity above 0.99 without solving anything.
- ``null-random`` returns a seeded random unit vector, read out the same way:
  what an answer uncorrelated with the solution scores (fidelity about
  ``1 / N`` for ``N`` unknowns).

Both report status ``converged``: a control must fail a rule on its merit,
not on a status code. In the simulation loop the third control is the
oracle at fidelity 0 (:class:`~qlsbench.solvers.oracle.Oracle`), an answer
orthogonal to the solution.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from qlsbench.problems import LinearSystem
from qlsbench.solvers.base import BaseSolver, SolveResult, Status
from qlsbench.solvers.variational import least_squares_readout


def _read_out(system: LinearSystem, v: np.ndarray, what: str) -> SolveResult:
    """``v`` scaled by the least-squares projection, as a converged solve of one evaluation."""
    x = least_squares_readout(system, np.asarray(v))
    return SolveResult(x, Status.CONVERGED, f"control: {what}, not a solve", iterations=1, resources={"control": what})


@dataclass
class NullB(BaseSolver):
    """Returns ``b``, scaled by the least-squares projection: what not solving scores."""

    name: ClassVar[str] = "null-b"

    def _solve(self, system: LinearSystem, seed: int) -> SolveResult:
        return _read_out(system, system.b, "b returned")


@dataclass
class NullRandom(BaseSolver):
    """Returns a random unit vector (seeded), scaled by the least-squares projection: an uncorrelated answer."""

    name: ClassVar[str] = "null-random"

    def _solve(self, system: LinearSystem, seed: int) -> SolveResult:
        rng = np.random.default_rng(seed)
        v = rng.standard_normal(system.dim)
        # Only the system's own unknowns: a padded system's added rows are dropped when the answer maps back.
        v[int(system.meta.get("n_orig", system.dim)) :] = 0.0
        return _read_out(system, v / np.linalg.norm(v), "random unit vector")


__all__ = ["NullB", "NullRandom"]
