"""VNLS: the variational neural linear solver (Knitter, Stokes, Veerapaneni) on NetKet.

``registry.get("vnls", model="rbm" | "crbm" | "arnn", exact=False | True,
n_samples=1024, learning_rate=0.05, n_iter=2500, diag_shift=0.01)``.

A neural quantum state ``psi`` minimises ``<psi|H|psi> / <psi|psi>`` with
``H = A^dagger (I - |b><b|) A`` by stochastic reconfiguration: Monte Carlo
with the local energies of :mod:`.operator` (``exact=False``), or a full sum
over the basis (``exact=True``, ``nk.vqs.FullSumState``, up to
``EXACT_MAX_QUBITS``). The solution is read out over the whole basis
(``n <= READOUT_MAX_QUBITS``) and rescaled by least squares to ``A x = b``.

Success is judged by the read-out's residual, never by the loss: a run can
reach a small loss on ``A``'s lowest singular vector, where
``<psi|H|psi> ~ sigma_min(A)^2`` and the fidelity is near 0. That trap is
detected and named in the result's message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from qlsbench.errors import InputError
from qlsbench.problems import LinearSystem
from qlsbench.problems.spectra import singular_value_range
from qlsbench.solvers.base import BaseSolver, SolveResult, Status
from qlsbench.solvers.variational import least_squares_readout, qubits_of

#: FullSumState builds H densely: 4^n entries.
EXACT_MAX_QUBITS = 12
#: The read-out evaluates psi on all 2^n states.
READOUT_MAX_QUBITS = 16
#: Mean loss over this many final iterations is the plateau the trap test looks at.
PLATEAU = 50


@dataclass
class VNLS(BaseSolver):
    """Variational neural linear solver: a neural quantum state trained by SR on NetKet.

    Options: ``model``, ``exact``, ``n_samples``, ``learning_rate``, ``n_iter``, ``diag_shift``,
    ``alpha`` (hidden units per qubit), ``rtol`` (read-out residual counted as converged).
    """

    name: ClassVar[str] = "vnls"
    model: str = "crbm"
    exact: bool = False
    n_samples: int = 1024
    learning_rate: float = 0.05
    n_iter: int = 2500
    diag_shift: float = 0.01
    alpha: int = 1
    rtol: float = 1e-2

    def __post_init__(self) -> None:
        from qlsbench.solvers.vnls.models import MODELS

        if self.model not in MODELS:
            raise InputError(f"vnls: unknown model {self.model!r}; use one of {', '.join(MODELS)}")
        for key in ("n_samples", "n_iter", "alpha"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise InputError(f"vnls: {key} must be an integer >= 1, got {value!r}")
        for key in ("learning_rate", "diag_shift", "rtol"):
            value = getattr(self, key)
            if not (isinstance(value, (int, float)) and np.isfinite(value) and value > 0):
                raise InputError(f"vnls: {key} must be a positive number, got {value!r}")

    def _solve(self, system: LinearSystem, seed: int) -> SolveResult:
        n = qubits_of(system, "vnls")
        limit = EXACT_MAX_QUBITS if self.exact else READOUT_MAX_QUBITS
        if n > limit:
            return SolveResult(None, Status.SKIPPED, f"vnls: {n} qubits exceed the "
                               f"{'exact' if self.exact else 'read-out'} limit of {limit}")
        from qlsbench.solvers.vnls.training import train

        run = train(system, n, model=self.model, exact=self.exact, n_samples=self.n_samples,
                    learning_rate=self.learning_rate, n_iter=self.n_iter, diag_shift=self.diag_shift,
                    alpha=self.alpha, seed=seed)
        x = least_squares_readout(system, run.psi)
        residual = float(np.linalg.norm(system.A @ x - system.b) / np.linalg.norm(system.b))
        resources = {"n_qubits": n, "model": self.model, "exact": self.exact, "parameters": run.parameters,
                     "mc_samples": 0 if self.exact else self.n_samples * self.n_iter, "iterations": self.n_iter,
                     "final_loss": float(np.mean(run.history[-PLATEAU:])), "readout_residual": residual}
        message = _trap_message(system, run.history, residual, self.rtol)
        status = Status.CONVERGED if residual <= self.rtol else Status.MAX_ITER
        return SolveResult(x, status, message, iterations=self.n_iter, history=run.history, resources=resources)


def _trap_message(system: LinearSystem, history: list[float], residual: float, rtol: float) -> str:
    """Name the lowest-singular-vector trap when the loss plateaus near ``sigma_min(A)^2`` unsolved."""
    plateau = float(np.mean(history[-PLATEAU:]))
    if residual <= rtol:
        return f"vnls: read-out residual {residual:.2e} <= rtol {rtol:g} (loss {plateau:.3g})"
    smin, _ = singular_value_range(system.A)
    # The loss is scale-dependent: compare with the same quotient on unit-norm b.
    trap = smin**2
    if trap > 0 and 0.3 * trap <= plateau <= 3 * trap:
        return (f"vnls: trapped - the loss plateaus at {plateau:.3g}, near sigma_min(A)^2 = {trap:.3g}: psi sits on "
                f"A's lowest singular vector, not on the solution (read-out residual {residual:.2e})")
    return f"vnls: read-out residual {residual:.2e} > rtol {rtol:g} after the iteration budget (loss {plateau:.3g})"


__all__ = ["VNLS"]
