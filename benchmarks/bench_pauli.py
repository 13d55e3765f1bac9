"""asv suites: Pauli decomposition against Qiskit and pauli-lcu on the same inputs, in the same run.

pauli-lcu is a benchmark-only dependency (``pip install -e ".[bench]"``); without
it those cases are skipped. Ratios (``track_ratio_*``) time both tools in one
call, best of three, so machine noise cancels. ``DecompositionAccuracy`` tracks
how far the coefficients are from Qiskit's and from ``A`` itself.
"""

from pathlib import Path

import numpy as np
import scipy.sparse as sp

from qlsbench.pauli import coefficient_table, count_terms, decompose

from .timing import best_of, busy_sibling, median_of

try:
    import pauli_lcu
except ImportError:  # benchmark-only dependency
    pauli_lcu = None


def _qiskit(A):
    from qiskit.quantum_info import SparsePauliOp

    return SparsePauliOp.from_operator(A.toarray() if sp.issparse(A) else A, atol=0, rtol=0)


def _pauli_lcu(A):
    if pauli_lcu is None:
        raise NotImplementedError("pauli-lcu is not installed")
    pauli_lcu.pauli_coefficients(np.ascontiguousarray(A.toarray() if sp.issparse(A) else A, dtype=complex))


#: ``qlsbench-table`` gives the same output as pauli-lcu (the dense table T[x, z]);
#: ``qlsbench`` also lists the terms, as Qiskit does.
TOOLS = {"qlsbench-table": coefficient_table, "qlsbench": decompose, "qiskit": _qiskit, "pauli-lcu": _pauli_lcu}


DEM_C = Path(__file__).parent / "data" / "dem_c_large.parquet"


def _dem_c(n):
    """The DEM-C subsystem of ``n`` qubits with the most non-zeros in the committed benchmark dataset."""
    from qlsbench.data import iter_systems

    systems = [s for s in iter_systems(DEM_C) if s.dim == 2**n]
    if not systems:
        raise NotImplementedError(f"no {n}-qubit system in {DEM_C}")
    return max(systems, key=lambda s: s.A.nnz).A


def _laplacian(n):
    lap = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(2 ** (n // 2), 2 ** (n // 2)))
    lap2 = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(2 ** (n - n // 2), 2 ** (n - n // 2)))
    return sp.kronsum(lap, lap2, format="csr")


class DenseRandom:
    """Dense random real matrices, n = 10 and 12 (goal: qlsbench time <= pauli-lcu's)."""

    params = ([10, 12], list(TOOLS))
    param_names = ["n_qubits", "tool"]
    timeout = 600

    def setup(self, n, tool):
        self.A = np.random.default_rng(n).normal(size=(2**n, 2**n))
        coefficient_table(self.A[:4, :4])  # numba compiles (or loads its cache) outside the timing

    def time_decompose(self, n, tool):
        TOOLS[tool](self.A)

    def track_ratio_to_tool(self, n, tool):
        """qlsbench's like-for-like time / this tool's, measured in the same call.

        Against pauli-lcu the dense table is compared (the same output); against
        the others, ``decompose``.
        """
        ours = coefficient_table if tool == "pauli-lcu" else decompose
        coefficient_table(self.A[:4, :4])  # compile outside the timing
        return best_of(ours, self.A) / best_of(TOOLS[tool], self.A)

    track_ratio_to_tool.unit = "ratio"


class StructuredSparse:
    """2-D Laplacians and real DEM-C Newton subsystems, n = 10-12 (goal: >= 20x faster than Qiskit).

    The DEM-C systems are the largest of each qubit count in
    ``benchmarks/data/dem_c_large.parquet`` (written by ``qlsbench simulate``;
    see ``benchmarks/data/README.md`` for the command).
    """

    params = (["laplacian-10", "laplacian-12", "dem_c-10", "dem_c-11", "dem_c-12"],)
    param_names = ["matrix"]
    timeout = 900

    def setup(self, matrix):
        kind, n = matrix.split("-")
        self.A = _laplacian(int(n)) if kind == "laplacian" else _dem_c(int(n))
        decompose(self.A[:4, :4])  # numba compiles (or loads its cache) outside the timing

    def time_qlsbench(self, matrix):
        decompose(self.A)

    def time_qiskit(self, matrix):
        _qiskit(self.A)

    def track_speedup_over_qiskit(self, matrix):
        decompose(self.A)  # first touch of the output pages and thread start-up, for both tools alike
        _qiskit(self.A)
        return best_of(_qiskit, self.A, repeats=5) / best_of(decompose, self.A, repeats=5)

    track_speedup_over_qiskit.unit = "x"

    def track_terms(self, matrix):
        return len(decompose(self.A))


def _keys(x, z, n):
    """One integer per Pauli string, ``x | z << n``: an index into a table of all ``4^n`` strings."""
    return np.asarray(x, dtype=np.int64) | (np.asarray(z, dtype=np.int64) << n)


def _coefficient_vector(x, z, coeffs, n):
    """All ``4^n`` coefficients, zero for absent strings, so two term lists compare entry by entry."""
    out = np.zeros(4**n, dtype=complex)
    np.add.at(out, _keys(x, z, n), coeffs)  # add, not assign: a repeated string would otherwise hide
    return out


class Contention:
    """``decompose`` beside a busy sibling process, as a ratio to its single-thread time in the same run (goal <= 2).

    A workflow with ``--cores 2`` always runs a second job beside this one.
    Kernels that spin or wait at barriers for a parked thread collapsed there
    (a 12-qubit Laplacian: 0.4 ms on one thread, 60-75 ms on two beside a busy
    process); :mod:`qlsbench.threads` keeps small work serial and idle workers
    asleep. The 16-qubit Laplacian is large enough to run in parallel.
    Medians, not best times: the collapse showed in typical calls.
    """

    params = (["laplacian-12", "laplacian-16"],)
    param_names = ["matrix"]
    timeout = 300

    def setup(self, matrix):
        self.A = _laplacian(int(matrix.split("-")[1]))
        decompose(self.A)  # compile (or load the cache) and touch the output pages outside the timing

    def track_busy_over_single_thread(self, matrix):
        import numba

        previous = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            single = median_of(decompose, self.A)
        finally:
            numba.set_num_threads(previous)
        with busy_sibling():
            busy = median_of(decompose, self.A)
        return busy / single

    track_busy_over_single_thread.unit = "ratio"


class DecompositionAccuracy:
    """``decompose`` against Qiskit's exact decomposition, and against ``A`` itself, at n = 10.

    The inputs are those of the timing suites at 10 qubits (a dense random
    matrix, the 2-D Laplacian, the largest DEM-C subsystem), where a full
    comparison of all ``4^n`` coefficients takes about a second; rebuilding
    the 12-qubit DEM-C matrix alone took 18 s on a shared 2-core machine.

    ``track_max_diff_vs_qiskit`` is ``max |c - c_qiskit|`` over every Pauli
    string (a string missing from one side counts with its full coefficient),
    with ``SparsePauliOp.from_operator(A, atol=0, rtol=0)`` as reference.
    ``track_reconstruction_error`` is ``||A - sum_k c_k P_k||_F / ||A||_F``,
    the sum rebuilt by ``PauliDecomposition.to_matrix``. Entries of ``A`` are
    O(1), so both sit at rounding level (1e-16) when the transform is right.
    """

    params = (["dense-10", "laplacian-10", "dem_c-10"],)
    param_names = ["matrix"]
    timeout = 300

    def setup(self, matrix):
        kind, n = matrix.split("-")
        n = int(n)
        if kind == "dense":
            self.A = np.random.default_rng(n).normal(size=(2**n, 2**n))  # as DenseRandom
        else:
            self.A = _laplacian(n) if kind == "laplacian" else _dem_c(n)
        self.n = n

    def track_max_diff_vs_qiskit(self, matrix):
        ours = decompose(self.A)
        ref = _qiskit(self.A)
        weights = 1 << np.arange(self.n)
        # Qiskit may carry a phase (-i)^k on each string instead of in its coefficient.
        ref_coeffs = ref.coeffs * (-1j) ** ref.paulis.phase
        theirs = _coefficient_vector(
            ref.paulis.x.astype(np.int64) @ weights, ref.paulis.z.astype(np.int64) @ weights, ref_coeffs, self.n
        )
        return float(np.abs(_coefficient_vector(ours.x_int, ours.z_int, ours.coeffs, self.n) - theirs).max())

    track_max_diff_vs_qiskit.unit = "max |c - c_qiskit|"

    def track_reconstruction_error(self, matrix):
        A = self.A.toarray() if sp.issparse(self.A) else self.A
        return float(np.linalg.norm(A - decompose(self.A).to_matrix()) / np.linalg.norm(A))

    track_reconstruction_error.unit = "relative Frobenius error"


class CountTermsLarge:
    """count_terms on a sparse n = 16 system (goal: under 60 s)."""

    timeout = 600

    def setup(self):
        self.A = _laplacian(16)

    def time_count_terms(self):
        count_terms(self.A)
