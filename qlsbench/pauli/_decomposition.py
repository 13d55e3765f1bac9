"""Pauli decomposition of a ``2^n x 2^n`` matrix by Walsh-Hadamard transforms.

With Qiskit's conventions (``P(x, z) = (-i)^{|x & z|} Z^z X^x``, qubit ``k`` is
bit ``k`` of a matrix index), the coefficient of ``P(x, z)`` in ``A`` is

    c(x, z) = i^{-|x & z|} / N * sum_j (-1)^{z . j} A[j ^ x, j],

one Walsh-Hadamard transform over ``j`` for each XOR pattern ``x = row ^ col``.
A dense matrix has all ``N`` patterns (Theta(n 4^n)); a sparse one only the
``K`` patterns its non-zeros produce (Theta(nnz + K n 2^n)). A pattern with
only ``s <= 12`` entries needs no transform at all: its ``2^s`` signed sums
and a GF(2)-linear index map give every coefficient (Theta(2^s + 2^n)), and
its term counts cost Theta(2^s) (see :mod:`qlsbench.pauli._kernels`). Real
DEM-C subsystems are of that kind: a few entries in each of many patterns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from qlsbench.errors import InputError
from qlsbench.pauli import _kernels as kernels
from qlsbench.pauli._walsh import PHASE, fwht, popcount
from qlsbench.problems import hermitian_defect
from qlsbench.threads import kernel_threads

#: Largest single work array of transforms, in entries (patterns are processed in chunks of at most this).
CHUNK_ENTRIES = 1 << 24
#: ``coefficient_table`` (all ``4^n`` entries at once) up to this many qubits.
TABLE_QUBITS = 13
#: ``auto`` treats a dense array as sparse when fewer than one entry in this many is non-zero.
SPARSE_DENSITY = 8


@dataclass(frozen=True)
class PauliDecomposition:
    """``A = sum_k coeffs[k] P(x_k, z_k)``, in symplectic form.

    Attributes
    ----------
    x_int, z_int : numpy.ndarray
        ``(K,)`` bit masks; bit ``q`` is qubit ``q`` (int32 below 31 qubits:
        ``4^n`` terms take a third less memory).
    coeffs : numpy.ndarray
        ``(K,)`` coefficients (real for Hermitian input, complex otherwise).
    n_qubits : int
        Number of qubits.
    info : dict
        ``method`` used, ``patterns`` (distinct XOR patterns), and
        ``skipped_odd_y`` (True when odd-Y strings were never formed because
        ``A`` is real symmetric and their coefficients vanish).
    """

    x_int: np.ndarray
    z_int: np.ndarray
    coeffs: np.ndarray
    n_qubits: int
    info: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return int(len(self.coeffs))

    def subset(self, mask: np.ndarray) -> PauliDecomposition:
        """The terms where ``mask`` holds, as a decomposition of their own (``info`` kept)."""
        return PauliDecomposition(self.x_int[mask], self.z_int[mask], self.coeffs[mask], self.n_qubits, self.info)

    @property
    def x(self) -> np.ndarray:
        """``(K, n)`` booleans, column ``q`` = qubit ``q`` (as ``PauliList.x``)."""
        return ((self.x_int[:, None] >> np.arange(self.n_qubits)) & 1).astype(bool)

    @property
    def z(self) -> np.ndarray:
        """``(K, n)`` booleans, column ``q`` = qubit ``q`` (as ``PauliList.z``)."""
        return ((self.z_int[:, None] >> np.arange(self.n_qubits)) & 1).astype(bool)

    def labels(self) -> list[str]:
        """Pauli labels in Qiskit's order: qubit 0 is the rightmost character."""
        table = np.array(["I", "X", "Z", "Y"])
        chars = table[self.x.astype(int) + 2 * self.z.astype(int)][:, ::-1]
        return ["".join(row) for row in chars]

    def to_sparse_pauli_op(self):
        """The same operator as a Qiskit ``SparsePauliOp``."""
        from qiskit.quantum_info import PauliList, SparsePauliOp

        return SparsePauliOp(PauliList.from_symplectic(self.z, self.x), self.coeffs.astype(complex))

    def to_matrix(self) -> np.ndarray:
        """Rebuild the dense matrix: the inverse transform, one XOR pattern at a time."""
        N = 1 << self.n_qubits
        out = np.zeros((N, N), dtype=complex)
        j = np.arange(N)
        for x in np.unique(self.x_int):
            sel = self.x_int == x
            u = np.zeros(N, dtype=complex)
            z = self.z_int[sel]
            u[z] = self.coeffs[sel] * PHASE[popcount(z & x) & 3]
            out[j ^ x, j] = fwht(u)
        return out.real.copy() if np.isrealobj(self.coeffs) else out


def _check_square_pow2(shape) -> int:
    if len(shape) != 2 or shape[0] != shape[1]:
        raise InputError(
            f"Pauli decomposition needs a square matrix, got shape {tuple(shape)}; "
            "pad it first with qlsbench.problems.pad_to_power_of_two"
        )
    N = shape[0]
    if N < 1 or N & (N - 1):
        raise InputError(
            f"Pauli decomposition needs a 2^n x 2^n matrix, got {N}x{N}; "
            "pad it first with qlsbench.problems.pad_to_power_of_two"
        )
    return N.bit_length() - 1


def _canonical_csr(A) -> sp.csr_array:
    """``A`` as CSR with sorted, summed duplicates (a copy when ``A`` is not canonical already)."""
    A = sp.csr_array(A)
    if not A.has_canonical_format:
        A = A.copy()
        A.sum_duplicates()
    return A


def xor_patterns(A) -> int:
    """Number ``K`` of distinct ``row ^ col`` patterns: the sparse method's work and a term-count bound."""
    A = _canonical_csr(A)
    if A.shape[0] == 0:
        return 0
    N = 1 << (max(A.shape) - 1).bit_length()  # row ^ col < N
    xs, _, _, _ = kernels.group_patterns(A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data, N)
    return int(len(xs))


@dataclass(frozen=True)
class _Patterns:
    """The XOR patterns to transform and where their entries ``A[j ^ x, j]`` come from.

    ``dense``: gathered from the array ``A`` (every ``x``); otherwise scattered
    from the grouped non-zeros ``cols[starts[k]:starts[k + 1]]``.
    """

    n: int
    xs: np.ndarray
    starts: np.ndarray
    cols: np.ndarray
    vals: np.ndarray
    A: np.ndarray
    dense: bool
    real_sym: bool
    complex_input: bool


def _patterns(A, n: int, method: str) -> _Patterns:
    N = 1 << n
    if method == "dense":
        A = A.toarray() if sp.issparse(A) else np.asarray(A)
        cplx = np.iscomplexobj(A)
        A = np.ascontiguousarray(A, dtype=complex if cplx else float)
        real_sym = not cplx and hermitian_defect(A) == 0.0
        empty = np.zeros(0, dtype=np.int64)
        return _Patterns(n, np.arange(N, dtype=np.int64), empty, empty, np.zeros(0, A.dtype), A, True, real_sym, cplx)
    A = _canonical_csr(A)
    cplx = np.iscomplexobj(A.data)
    data = A.data.astype(complex if cplx else float, copy=False)
    xs, starts, cols, vals = kernels.group_patterns(A.indptr.astype(np.int64), A.indices.astype(np.int64), data, N)
    with kernel_threads(len(xs) * N):  # one row of N per pattern
        real_sym = not cplx and bool(kernels.grouped_is_symmetric(xs, starts, cols, vals, N))
    return _Patterns(n, xs, starts, cols, vals, np.zeros((1, 1), dtype=data.dtype), False, real_sym, cplx)


def _chunks(P: _Patterns, store: bool):
    """Yield ``(p0, p1, fold, width)``: pattern ranges and the length of their rows.

    Real symmetric input folds every pattern but the diagonal one (it has no
    top bit to fold on), which comes first and alone. Ranges are bounded by
    ``CHUNK_ENTRIES`` only when the transforms are kept (``store``).
    """
    N = 1 << P.n
    first = 0
    if P.real_sym and len(P.xs) and P.xs[0] == 0:
        first = 1
        yield 0, 1, False, N
    width = N // 2 if P.real_sym else N
    step = max(1, CHUNK_ENTRIES // width) if store else max(1, len(P.xs))
    for p0 in range(first, len(P.xs), step):
        yield p0, min(len(P.xs), p0 + step), P.real_sym, width


def _transform_work(P: _Patterns) -> int:
    """Elementary operations of transforming every pattern: ``K`` rows of ``width`` and ``log2 width`` sweeps."""
    width = (1 << P.n) // 2 if P.real_sym else 1 << P.n
    return len(P.xs) * width * max(1, width.bit_length() - 1)


def _count(P: _Patterns, chunk, thresholds, store: bool):
    """``(W, counts, peak)`` of one chunk: rows kept when ``store``, counts per threshold, peak ``|c|``."""
    p0, p1, fold, width = chunk
    N = 1 << P.n
    thresholds2 = (np.asarray(thresholds, dtype=float) * N) ** 2
    W = np.empty((p1 - p0 if store else 0, width), dtype=complex if P.complex_input else float)
    counts = np.zeros((p1 - p0, len(thresholds2)), dtype=np.int64)
    peak2 = np.zeros(p1 - p0)
    kernels.count_patterns(
        p0, P.xs, P.starts, P.cols, P.vals, P.A, P.dense, fold, width, thresholds2, W, store, counts, peak2
    )
    return W, counts, np.sqrt(peak2) / N


def _choose_method(A, n: int, method: str) -> str:
    if method in ("dense", "sparse"):
        return method
    if method != "auto":
        raise InputError(f"unknown method {method!r}; use 'auto', 'dense' or 'sparse'")
    if sp.issparse(A):
        return "sparse"  # never more work than dense: K <= N patterns, scattered instead of gathered
    # A dense array that is mostly zeros is cheaper to scan once into CSR than to gather N times.
    return "sparse" if np.count_nonzero(A) * SPARSE_DENSITY < A.size else "dense"


def _prepare(A, method: str) -> _Patterns:
    if not sp.issparse(A):
        A = np.asarray(A)
    n = _check_square_pow2(A.shape)
    return _patterns(A, n, _choose_method(A, n, method))


def decompose(A, *, atol: float = 0.0, method: str = "auto") -> PauliDecomposition:
    """Decompose a ``2^n x 2^n`` matrix into Pauli strings.

    Parameters
    ----------
    A : array_like or scipy.sparse matrix
        Real or complex square matrix of power-of-two size.
    atol : float
        Keep terms with ``|c| > atol`` (``0`` keeps every non-zero coefficient).
    method : {"auto", "dense", "sparse"}
        ``dense``: all ``N`` XOR patterns, gathered from the array;
        ``sparse``: only the patterns of the non-zeros; ``auto``: sparse for
        scipy sparse input and for arrays with few non-zeros.

    Returns
    -------
    PauliDecomposition
        Terms grouped by increasing ``x`` (sorting 4^n terms would cost more
        than the transform).

    Raises
    ------
    InputError
        If ``A`` is not square with a power-of-two size (pad it first).
    """
    if not (np.isfinite(atol) and atol >= 0):
        raise InputError(f"atol must be >= 0, got {atol!r}")
    P = _prepare(A, method)
    # Dense rows are kept between the passes (an FWHT each); sparse ones are cheap to evaluate again.
    with kernel_threads(_transform_work(P)):
        return _decompose(P, atol, store=P.dense)


def _decompose(P: _Patterns, atol: float, store: bool) -> PauliDecomposition:
    """The two passes of :func:`decompose`: count the terms of each pattern, then write them out."""
    N = 1 << P.n
    counted = [(chunk, *_count(P, chunk, [atol], store)) for chunk in _chunks(P, store)]
    total = int(sum(counts.sum() for _, _, counts, _ in counted))
    int_type = np.int32 if P.n < 31 else np.int64  # halves the index memory of 4^n terms
    x_int, z_int = np.empty(total, dtype=int_type), np.empty(total, dtype=int_type)
    coeffs = np.empty(total, dtype=float if P.real_sym else complex)
    start = 0
    for (p0, _, fold, width), W, counts, _ in counted:
        offsets = start + np.concatenate([[0], np.cumsum(counts[:-1, 0])]).astype(np.int64)
        kernels.gather_terms(
            p0,
            P.xs,
            P.starts,
            P.cols,
            P.vals,
            P.A,
            P.dense,
            fold,
            width,
            W,
            store,
            (atol * N) ** 2,
            1.0 / N,
            offsets,
            counts[:, 0].copy(),
            x_int,
            z_int,
            coeffs,
        )
        start += int(counts.sum())
    info = {"method": "dense" if P.dense else "sparse", "patterns": len(P.xs), "skipped_odd_y": P.real_sym}
    return PauliDecomposition(x_int, z_int, coeffs, P.n, info)


def coefficient_table(A) -> np.ndarray:
    """All ``4^n`` coefficients as a dense table ``T[x, z]`` (compiled kernel, patterns in parallel).

    The output pauli-lcu produces; for ``n <= TABLE_QUBITS`` (the table takes
    ``16 * 4^n`` bytes). Real symmetric input gives purely imaginary (in
    practice exactly zero real part) entries at odd-Y strings.
    """
    A = A.toarray() if sp.issparse(A) else np.asarray(A)
    n = _check_square_pow2(A.shape)
    if n > TABLE_QUBITS:
        raise InputError(
            f"a dense coefficient table of {n} qubits needs {16 * 4**n / 2**30:.0f} GiB; "
            "use decompose(..., method='sparse') or count_terms"
        )
    with kernel_threads(A.size * max(1, n)):
        return kernels.dense_coefficient_table(A)


def max_terms(n_qubits: int, real_symmetric: bool) -> int:
    """Most Pauli strings a matrix can need: ``(4^n + 2^n) / 2`` real symmetric, else ``4^n``."""
    return (4**n_qubits + 2**n_qubits) // 2 if real_symmetric else 4**n_qubits


#: Tolerances of the term counts, relative to the largest |c|: exact, rounding noise, and the paper's loose cut.
#: The one definition: the LCU summaries, the studies, the command line and the workflow read it.
LCU_TOLS: tuple[float, ...] = (0.0, 1e-6, 1e-3)


def count_terms(A, tols=LCU_TOLS, *, relative: bool = False, method: str = "auto") -> dict[float, int]:
    """Count Pauli terms with ``|c| > tol`` for each tolerance, without building strings.

    Parameters
    ----------
    A : array_like or scipy.sparse matrix
        ``2^n x 2^n`` matrix.
    tols : sequence of float
        Tolerances; ``0`` counts every non-zero coefficient.
    relative : bool
        Tolerances are relative to ``max |c|`` (costs a second pass).
    method : {"auto", "dense", "sparse"}
        As in :func:`decompose`.

    Returns
    -------
    dict
        ``{tol: count}``. Memory stays at one chunk of transforms, so sparse
        systems of 14-16 qubits fit.
    """
    tols = [float(t) for t in tols]
    if any(not (np.isfinite(t) and t >= 0) for t in tols):
        raise InputError(f"tolerances must be >= 0, got {tols}")
    P = _prepare(A, method)
    with kernel_threads(_transform_work(P) * (2 if relative else 1)):
        return _count_terms(P, tols, relative)


def _count_terms(P: _Patterns, tols: list[float], relative: bool) -> dict[float, int]:
    """The passes of :func:`count_terms` over prepared patterns."""
    scale = 1.0
    if relative:
        scale = max(
            (float(_count(P, chunk, [], False)[2].max(initial=0.0)) for chunk in _chunks(P, False)), default=0.0
        )
    totals = np.zeros(len(tols), dtype=np.int64)
    for chunk in _chunks(P, False):
        totals += _count(P, chunk, np.array(tols) * scale, False)[1].sum(axis=0)
    return dict(zip(tols, (int(t) for t in totals)))
