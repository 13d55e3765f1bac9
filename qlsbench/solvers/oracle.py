"""A controlled-error oracle: the exact solution, perturbed to a chosen fidelity or relative residual.

Not a method anyone would run for its answers: it stands in for a solver of
known accuracy, so putting it in a simulation loop (``qlsbench in-loop``) maps
solver accuracy to physics error cheaply, and gives each dataset family a
success bar tied to its physics.

With ``fidelity = F`` the answer is ``|x| (sqrt(F) x_hat + sqrt(1 - F) e)``:
``e`` a random unit vector orthogonal to ``x_hat = x / |x|`` (seeded), so
``|<x_hat|answer>|^2 / |answer|^2 = F`` exactly and the norm is the exact
one. With ``rel_residual = r`` it is ``x + t e`` with ``e`` a random unit
vector and ``t`` such that ``|A (x + t e) - b| = r |b|``. Both at their
exact ends (``F = 1``, ``r = 0``) return the exact solution itself. In a
padded system only the original unknowns (``meta["n_orig"]``) are perturbed;
a system of one unknown has no other direction, and keeps fidelity 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from qlsbench.problems import LinearSystem
from qlsbench.solvers.base import BaseSolver, SolveResult, Status
from qlsbench.solvers.classical import superlu_failure
from qlsbench.solvers.options import OracleOptions


@dataclass
class Oracle(OracleOptions, BaseSolver):
    """The exact solution (SuperLU) perturbed to ``fidelity`` or, if given, to ``rel_residual``
    (:class:`OracleOptions`)."""

    name: ClassVar[str] = "oracle"

    def _solve(self, system: LinearSystem, seed: int) -> SolveResult:
        try:
            x = spla.splu(sp.csc_matrix(system.A)).solve(np.asarray(system.b, dtype=system.A.dtype))
        except RuntimeError as exc:
            return SolveResult(None, Status.ERROR, f"oracle: {superlu_failure(exc)}", iterations=1)
        if not np.all(np.isfinite(x)):
            return SolveResult(None, Status.ERROR, "oracle: matrix is singular to working precision", iterations=1)
        rng = np.random.default_rng(seed)
        # Only the system's own unknowns are perturbed: error in a padded system's added rows would be dropped
        # with them when the answer is mapped back, and the error that matters would be smaller than asked.
        e = np.zeros(len(x))
        n = int(system.meta.get("n_orig", len(x)))
        e[:n] = rng.standard_normal(n)
        if self.rel_residual is not None:
            answer = x + self._step(system, e, self.rel_residual) * e
        else:
            answer = perturbed_to_fidelity(x, e, self.fidelity)
        return SolveResult(
            answer,
            Status.CONVERGED,
            iterations=1,
            resources={"target_fidelity": self.fidelity, "target_rel_residual": self.rel_residual},
        )

    def _step(self, system: LinearSystem, e: np.ndarray, rel_residual: float) -> float:
        Ae = system.A @ e
        norm = float(np.linalg.norm(Ae))
        return rel_residual * float(np.linalg.norm(system.b)) / norm if norm > 0 else 0.0


def perturbed_to_fidelity(x: np.ndarray, e: np.ndarray, fidelity: float) -> np.ndarray:
    """``|x| (sqrt(F) x_hat + sqrt(1 - F) e_perp)``: the part of ``e`` orthogonal to ``x``, normalised, mixed in.

    Real ``x`` and ``e`` give a real answer; its fidelity with ``x`` is ``F``
    to rounding, its norm ``|x|``.
    """
    norm = float(np.linalg.norm(x))
    if norm == 0 or fidelity >= 1.0:
        return x.copy()
    x_hat = x / norm
    e_perp = e - np.vdot(x_hat, e) * x_hat
    size = np.linalg.norm(e_perp)
    if size == 0:  # no direction orthogonal to x within the perturbed unknowns
        return x.copy()
    e_perp /= size
    return norm * (np.sqrt(fidelity) * x_hat + np.sqrt(1.0 - fidelity) * e_perp)


__all__ = ["Oracle", "perturbed_to_fidelity"]
