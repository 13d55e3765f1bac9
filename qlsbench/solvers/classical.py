"""Classical reference solvers: dense LU, sparse LU and scipy's Krylov methods."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from qlsbench.problems import LinearSystem, hermitian_defect
from qlsbench.solvers.base import BaseSolver, SolveResult, Status, start_used
from qlsbench.solvers.options import GMRESOptions, KrylovOptions, SparseLUOptions

#: Dense LU refuses larger systems rather than exhaust memory (8192^2 doubles = 512 MiB).
DENSE_LU_LIMIT = 8192


def _finite_or_error(x: np.ndarray, what: str, resources: dict) -> SolveResult:
    if np.all(np.isfinite(x)):
        return SolveResult(x, Status.CONVERGED, iterations=1, resources=resources)
    return SolveResult(
        None, Status.ERROR, f"{what}: matrix is singular to working precision", iterations=1, resources=resources
    )


def superlu_failure(exc: RuntimeError) -> str:
    """What SuperLU's error means: it raises ``RuntimeError("Factor is exactly singular")`` on a zero pivot."""
    if "singular" in str(exc):
        return "the matrix is exactly singular (a zero pivot in the sparse LU)"
    return f"the sparse LU failed ({exc})"


@dataclass
class DenseLU(BaseSolver):
    """LAPACK LU with partial pivoting on the dense matrix (``getrf``/``getrs``)."""

    name: ClassVar[str] = "lu"

    def _solve(self, system: LinearSystem, seed: int) -> SolveResult:
        if system.dim > DENSE_LU_LIMIT:
            return SolveResult(
                None, Status.SKIPPED, f"lu: dimension {system.dim} exceeds the dense limit {DENSE_LU_LIMIT}"
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", la.LinAlgWarning)
            lu, piv = la.lu_factor(system.A.toarray(), check_finite=False)
        if np.any(np.diag(lu) == 0):
            return SolveResult(None, Status.ERROR, "lu: matrix is exactly singular", iterations=1)
        x = la.lu_solve((lu, piv), system.b, check_finite=False)
        return _finite_or_error(x, "lu", {"dense_entries": system.dim**2})


@dataclass
class SparseLU(SparseLUOptions, BaseSolver):
    """SuperLU sparse direct factorisation (``scipy.sparse.linalg.splu``); options in :class:`SparseLUOptions`."""

    name: ClassVar[str] = "splu"

    def _solve(self, system: LinearSystem, seed: int) -> SolveResult:
        try:
            lu = spla.splu(sp.csc_matrix(system.A), permc_spec=self.permc_spec)
        except RuntimeError as exc:  # SuperLU reports exact singularity this way
            return SolveResult(None, Status.ERROR, f"splu: {superlu_failure(exc)}", iterations=1)
        x = lu.solve(system.b.astype(np.result_type(system.A.dtype, system.b.dtype)))
        return _finite_or_error(x, "splu", {"fill_nnz": int(lu.L.nnz + lu.U.nnz)})


@dataclass
class _Krylov(KrylovOptions, BaseSolver):
    """Common driver for scipy's Krylov methods; options in :class:`KrylovOptions`.

    ``rtol`` and ``atol`` are scipy's test, ``||b - A x|| <= max(rtol * ||b||, atol)``.
    ``history`` costs one extra matrix-vector product per iteration for
    methods whose callback only sees the iterate; turn it off when timing.
    """

    needs_hermitian: ClassVar[bool] = False
    _fn: ClassVar[Callable[..., tuple[np.ndarray, int]]]  # scipy's method, set by each subclass
    start_from: ClassVar[str] = "the previous solution, as the initial guess x0"

    def _extra_kwargs(self) -> dict:
        return {"atol": self.atol}

    def _max_iterations(self, system: LinearSystem) -> int | None:
        return self.maxiter  # None: scipy's default for the method

    def _callback(self, system: LinearSystem, trace: list[float]):
        bnorm = float(np.linalg.norm(system.b)) or 1.0
        if not self.history:
            return lambda xk: trace.append(np.nan)
        return lambda xk: trace.append(float(np.linalg.norm(system.b - system.A @ xk)) / bnorm)

    def _final_step(self, system: LinearSystem, x: np.ndarray, trace: list[float]) -> None:
        """Record a last step the callback did not see.

        BiCGSTAB can stop after a half step without calling the callback;
        without this, the history would end above the returned residual.
        """
        if not self.history:
            return
        final = float(np.linalg.norm(system.b - system.A @ x)) / (float(np.linalg.norm(system.b)) or 1.0)
        if not trace or not np.isclose(trace[-1], final, rtol=1e-6, atol=0.0):
            trace.append(final)

    def _solve(self, system: LinearSystem, seed: int, start: np.ndarray | None = None) -> SolveResult:
        if self.needs_hermitian:
            asym = hermitian_defect(system.A)
            if asym > 1e-12:
                return SolveResult(
                    None,
                    Status.SKIPPED,
                    f"{self.name} requires a symmetric (Hermitian) matrix; ||A - A^H||/||A|| = {asym:.2e}",
                )
        trace: list[float] = []
        callback = self._callback(system, trace)
        x0, resources = _initial_guess(system, start)
        x, info = type(self)._fn(
            system.A,
            system.b,
            x0=x0,
            rtol=self.rtol,
            maxiter=self._max_iterations(system),
            callback=callback,
            **self._extra_kwargs(),
        )
        self._final_step(system, x, trace)
        history = trace if self.history else []
        if info == 0:
            status, msg = Status.CONVERGED, ""
        elif info > 0:
            status, msg = (
                Status.MAX_ITER,
                f"{self.name}: no convergence to rtol={self.rtol:g} in {len(trace)} iterations",
            )
        else:
            status, msg = Status.ERROR, f"{self.name}: breakdown or illegal input (info={info})"
        if not np.all(np.isfinite(x)):
            status, msg = Status.ERROR, f"{self.name}: iterate became non-finite"
        return SolveResult(
            x,
            status,
            msg,
            iterations=len(trace),
            history=history,
            resources=resources,
            state=np.array(x) if status in (Status.CONVERGED, Status.MAX_ITER) else None,
        )


def _initial_guess(system: LinearSystem, start) -> tuple[np.ndarray | None, dict]:
    """``x0`` for a Krylov method from an earlier solution, when it fits this system; and what was used."""
    resources: dict = {}
    if start is None:
        return None, resources
    x0 = np.asarray(start)
    if x0.shape != (system.dim,) or not np.all(np.isfinite(x0)):
        start_used(resources, False, f"the previous solution has shape {x0.shape}, this system {system.dim} unknowns")
        return None, resources
    if np.iscomplexobj(x0) and not system.is_complex:
        x0 = np.real(x0)
    start_used(resources, True)
    return x0, resources


@dataclass
class CG(_Krylov):
    """Conjugate gradients; applies to Hermitian positive definite matrices."""

    name: ClassVar[str] = "cg"
    needs_hermitian: ClassVar[bool] = True
    _fn: ClassVar = staticmethod(spla.cg)


@dataclass
class MINRES(_Krylov):
    """Minimum residual; applies to Hermitian (possibly indefinite) matrices.

    scipy's MINRES has no absolute tolerance, so ``atol`` must stay 0.
    """

    name: ClassVar[str] = "minres"
    needs_hermitian: ClassVar[bool] = True
    _fn: ClassVar = staticmethod(spla.minres)

    def _check(self) -> None:
        if self.atol != 0.0:
            raise TypeError("minres has no absolute tolerance; leave atol at 0")

    def _extra_kwargs(self) -> dict:
        return {}

    def _solve(self, system: LinearSystem, seed: int, start: np.ndarray | None = None) -> SolveResult:
        if system.is_complex:  # scipy's MINRES mistakes complex Hermitian input for non-symmetric
            return SolveResult(None, Status.SKIPPED, "minres (scipy) handles real symmetric matrices only")
        return super()._solve(system, seed, start)


@dataclass
class GMRES(_Krylov, GMRESOptions):
    """Restarted GMRES for general matrices.

    ``iterations`` counts inner iterations; ``history`` holds scipy's
    preconditioned residual norm per inner iteration (free to record).
    ``maxiter`` counts restart cycles, as in scipy, so at most
    ``maxiter * restart`` inner iterations are run. Left at ``None`` it is
    set so the total is ``10 * dim`` inner iterations, the budget scipy gives
    CG; scipy's own default (``10 * dim`` cycles) lets one ill-conditioned
    system run ``restart`` times longer than any other method.
    """

    name: ClassVar[str] = "gmres"
    _fn: ClassVar = staticmethod(spla.gmres)

    def _extra_kwargs(self) -> dict:
        return {"atol": self.atol, "restart": self.restart, "callback_type": "pr_norm"}

    def _max_iterations(self, system: LinearSystem) -> int | None:
        if self.maxiter is not None:
            return self.maxiter
        return max(1, -(-10 * system.dim // self.restart))

    def _callback(self, system: LinearSystem, trace: list[float]):
        return lambda rnorm: trace.append(float(rnorm))

    def _final_step(self, system: LinearSystem, x: np.ndarray, trace: list[float]) -> None:
        pass  # the history holds scipy's own residual estimates, one per inner iteration


@dataclass
class BiCGSTAB(_Krylov):
    """Stabilised biconjugate gradients for general matrices."""

    name: ClassVar[str] = "bicgstab"
    _fn: ClassVar = staticmethod(spla.bicgstab)
