"""asv suites of the advantage map: kappa by the sparse estimates, and the classical solvers to a quantum
solver's accuracy, at 2^14-2^16 unknowns.

The systems are the Poisson control (2-D Laplacian, 128^2 and 256^2 unknowns), whose kappa has a closed form:
each timing has the estimate's error beside it. Issue 63 asks kappa of a 2^16-unknown system within 60 s and
4 GiB on one core: ``time_sparse_kappa`` at 65,536 unknowns and ``peakmem_sparse_kappa`` measure it.
"""

import numpy as np
import scipy.sparse.linalg as spla

from qlsbench.bench import advantage  # not its time_to_accuracy by name: asv would take it for a benchmark
from qlsbench.problems import condition_number, poisson, poisson_kappa

#: Points per axis of the 2-D grids: 2^14 and 2^16 unknowns.
POINTS = [128, 256]

_SYSTEMS: dict[int, tuple] = {}


def _system(points):
    """The control system and its reference solution, built once per process."""
    if points not in _SYSTEMS:
        system = poisson(2, points)
        _SYSTEMS[points] = (system, spla.splu(system.A.tocsc()).solve(system.b))
    return _SYSTEMS[points]


class SparseKappa:
    """kappa of the 2-D Laplacian by ARPACK on A and on A^-1 through a sparse LU (the path above 4,096 unknowns)."""

    params = POINTS
    param_names = ["points"]
    timeout = 300

    def setup(self, points):
        self.system = _system(points)[0]

    def time_sparse_kappa(self, points):
        condition_number(self.system.A, dense_limit=0)

    def peakmem_sparse_kappa(self, points):
        condition_number(self.system.A, dense_limit=0)

    def track_kappa_rel_error(self, points):
        return abs(condition_number(self.system.A, dense_limit=0) / poisson_kappa(points) - 1)

    track_kappa_rel_error.unit = "relative error"


class ClassicalToAccuracy:
    """The classical methods' time to fidelity 1 - 1e-4 on the control (set-up included), with the fidelity."""

    params = (POINTS, ["splu", "cg-jacobi", "cg-amg"])
    param_names = ["points", "method"]
    timeout = 300

    def setup(self, points, method):
        self.system, self.x = _system(points)

    def time_to_accuracy(self, points, method):
        advantage.time_to_accuracy(method, self.system.A, self.system.b, self.x, 1e-4)

    def track_fidelity(self, points, method):
        row = advantage.time_to_accuracy(method, self.system.A, self.system.b, self.x, 1e-4)
        return float(np.float64(row["fidelity"]))

    track_fidelity.unit = "fidelity"
