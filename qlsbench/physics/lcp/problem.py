"""The linear complementarity problem as plain data, and the record its solvers return.

``LCP(Q, r)``: find ``y >= 0`` with ``w = Q y + r >= 0`` and ``y . w = 0``.
Solvers are functions over this record (the table in :mod:`qlsbench.physics.lcp.methods`),
so one problem can go to min-map Newton, Lemke or projected Gauss-Seidel.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from qlsbench.errors import InputError
from qlsbench.outcomes import Status


@dataclass(frozen=True)
class LCP:
    """``0 <= y  _|_  Q y + r >= 0``.

    Parameters
    ----------
    Q : scipy.sparse matrix or array_like
        Square ``m x m`` matrix; stored as CSR.
    r : array_like
        Vector of length ``m``.
    """

    Q: sp.csr_matrix
    r: np.ndarray

    def __post_init__(self) -> None:
        Q = sp.csr_matrix(self.Q, dtype=np.float64)
        r = np.asarray(self.r, dtype=np.float64)
        if Q.shape[0] != Q.shape[1]:
            raise InputError(f"LCP matrix Q must be square, got {Q.shape[0]}x{Q.shape[1]}")
        if r.shape != (Q.shape[0],):
            raise InputError(f"LCP vector r has shape {r.shape}, expected ({Q.shape[0]},)")
        if not (np.all(np.isfinite(Q.data)) and np.all(np.isfinite(r))):
            raise InputError("LCP data Q or r contains NaN or infinite entries")
        object.__setattr__(self, "Q", Q)
        object.__setattr__(self, "r", r)

    @property
    def size(self) -> int:
        """Number of unknowns ``m``."""
        return int(self.r.shape[0])

    def natural_residual(self, y: np.ndarray) -> float:
        """``||min(y, Q y + r)||_2``: zero exactly at a solution."""
        return float(np.linalg.norm(np.minimum(y, self.Q @ y + self.r)))


@dataclass
class LCPResult:
    """Solution of an LCP with how it was reached.

    Attributes
    ----------
    y : numpy.ndarray
        Approximate solution.
    status : qlsbench.outcomes.Status
        ``converged``, ``max_iter``, ``stalled`` (no further decrease of the merit
        function) or ``failed`` (the method cannot proceed, e.g. Lemke's ray).
    iterations : int
        Newton iterations, pivots or sweeps.
    residual : float
        ``||min(y, Q y + r)||_2`` of the returned ``y`` on the original problem.
    message : str
        Detail for non-converged outcomes.
    history : list of float
        Residual per iteration.
    info : dict
        Method-specific facts (scaling, regularisation, line-search steps, ...).
    """

    y: np.ndarray
    status: Status
    iterations: int
    residual: float
    message: str = ""
    history: list[float] = field(default_factory=list)
    info: dict = field(default_factory=dict)
