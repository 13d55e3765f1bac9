"""asv suites: classical solvers on Ising-inspired systems, the generator, Parquet I/O."""

import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from qlsbench import solvers
from qlsbench.bench import metrics
from qlsbench.data import load_dataset, write_systems
from qlsbench.problems import ising_inspired, reference_solution

SOLVERS = ["lu", "splu", "cg", "minres", "gmres", "bicgstab"]
KRYLOV = {"cg", "minres", "gmres", "bicgstab"}
N_QUBITS = [4, 6, 8]
KAPPAS = [10.0, 100.0]

#: Fixed here rather than inherited so a change of the package default does not
#: read as a speed-up or slow-down.
RTOL = 1e-10

#: Runs of each side in ``track_time_ratio``; the minimum is the estimate least
#: disturbed by other users of the machine.
RATIO_REPEATS = 5

# asv calls ``setup`` before every repeat of every benchmark; the eigenvalue
# problem in the generator and the reference solve are done once per process.
_SYSTEMS: dict[tuple, tuple] = {}


def _system(n_qubits, kappa):
    """Ising system with its reference solution, and ``A`` as a dense array."""
    key = (n_qubits, kappa)
    if key not in _SYSTEMS:
        system = ising_inspired(n_qubits, kappa=kappa)
        system = system.with_reference(reference_solution(system.A, system.b))
        _SYSTEMS[key] = (system, system.A.toarray())
    return _SYSTEMS[key]


def _make_solver(name):
    if name in KRYLOV:
        # history=False: recording the residual costs an extra matvec per
        # iteration, which would be timed as if it were the method's own work.
        return solvers.get(name, rtol=RTOL, history=False)
    return solvers.get(name)


class ClassicalSolve:
    """Built-in classical solvers on the Ising-inspired systems.

    Parameters
    ----------
    solver : str
        Registry name of the solver.
    n_qubits : int
        System size; the dimension is ``2**n_qubits``.
    kappa : float
        Condition number of the system.

    Notes
    -----
    Accuracy: ``track_rel_residual`` is ``||A x - b|| / ||b||`` and
    ``track_rel_error`` is ``||x - x_ref|| / ||x_ref||`` against the reference
    solution stored with the system. That reference is a sparse LU solve, so
    ``splu`` reproduces it exactly; Krylov solvers stop at ``RTOL``.

    Absolute times drift on a shared machine, so ``track_time_ratio`` divides
    the solver's time by that of a dense ``numpy.linalg.solve`` measured in the
    same call; compare that across commits rather than ``time_solve``.

    At ``n_qubits=8`` the dense reference is big enough for OpenBLAS to use
    threads, and on a loaded two-core machine those threads can stall for all
    five runs, making the ratio 30-100 times too small. Run asv with
    ``OPENBLAS_NUM_THREADS=1`` for ratios that hold up; setting it from this
    module is too late, as asv imports numpy before the suites.
    """

    params = (SOLVERS, N_QUBITS, KAPPAS)
    param_names = ["solver", "n_qubits", "kappa"]

    def setup(self, solver, n_qubits, kappa):
        self.system, self.A_dense = _system(n_qubits, kappa)
        self.solver = _make_solver(solver)
        # Warm-up: ``--quick`` times a single call, which would otherwise also
        # pay for first-use costs (lazy imports, BLAS thread start-up).
        self.solver.solve(self.system)
        np.linalg.solve(self.A_dense, self.system.b)

    def time_solve(self, solver, n_qubits, kappa):
        self.solver.solve(self.system)

    def track_rel_residual(self, solver, n_qubits, kappa):
        result = self.solver.solve(self.system)
        return metrics(self.system, result.x)["rel_residual"]

    track_rel_residual.unit = "relative residual"

    def track_rel_error(self, solver, n_qubits, kappa):
        """``||x - x_ref|| / ||x_ref||``: up to ``kappa`` times the relative residual."""
        result = self.solver.solve(self.system)
        return metrics(self.system, result.x)["rel_error"]

    track_rel_error.unit = "relative error"

    def track_time_ratio(self, solver, n_qubits, kappa):
        solver_times, reference_times = [], []
        # Interleaved, so a burst of load from another user slows both sides
        # rather than only one of them.
        for _ in range(RATIO_REPEATS):
            solver_times.append(self.solver.solve(self.system).wall_time)
            t0 = time.perf_counter()
            np.linalg.solve(self.A_dense, self.system.b)
            reference_times.append(time.perf_counter() - t0)
        return min(solver_times) / min(reference_times)

    track_time_ratio.unit = "ratio"


class IsingGenerator:
    """Building an Ising-inspired system (Hamiltonian plus exact eigenvalues).

    Parameters
    ----------
    n_qubits : int
        System size; the dimension is ``2**n_qubits``.
    """

    params = [N_QUBITS]
    param_names = ["n_qubits"]

    def time_ising_inspired(self, n_qubits):
        ising_inspired(n_qubits)


class DatasetIO:
    """Parquet write, read and round trip of the Ising systems of one size.

    Parameters
    ----------
    n_qubits : int
        System size; each dataset holds one system per ``kappa`` in ``KAPPAS``.

    Notes
    -----
    The Ising systems carry their exact condition number and reference
    solution, so writes time conversion and Parquet encoding, not an SVD.
    """

    params = [N_QUBITS]
    param_names = ["n_qubits"]

    def setup(self, n_qubits):
        self.tmpdir = Path(tempfile.mkdtemp(prefix="qlsbench-asv-"))
        self.systems = [_system(n_qubits, kappa)[0] for kappa in KAPPAS]
        self.write_path = self.tmpdir / "write.parquet"
        # A separate file to read, so read timings never see a half-replaced one.
        self.read_path = write_systems(self.systems, self.tmpdir / "read.parquet")

    def teardown(self, n_qubits):
        shutil.rmtree(self.tmpdir, ignore_errors=True)

    def time_write_systems(self, n_qubits):
        write_systems(self.systems, self.write_path)

    def time_load_dataset(self, n_qubits):
        load_dataset(self.read_path)

    def time_round_trip(self, n_qubits):
        load_dataset(write_systems(self.systems, self.write_path))
