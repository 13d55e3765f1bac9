"""Pauli decomposition of a ``2^n x 2^n`` matrix by Walsh-Hadamard transforms.

With Qiskit's conventions (``P(x, z) = (-i)^{|x & z|} Z^z X^x``, qubit ``k`` is
bit ``k`` of a matrix index), the coefficient of ``P(x, z)`` in ``A`` is

    c(x, z) = i^{-|x & z|} / N * sum_j (-1)^{z . j} A[j ^ x, j],

one Walsh-Hadamard transform over ``j`` for each XOR pattern ``x = row ^ col``.
A dense matrix has all ``N`` patterns (Theta(n 4^n)); a sparse one only the
``K`` patterns its non-zeros produce (Theta(nnz + K n 2^n)).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from qlsbench.errors import InputError
from qlsbench.problems import hermitian_defect
from qlsbench.pauli.transform import PHASE, PHASE_INV, fwht, popcount

#: Largest number of transform entries held at once (chunks of XOR patterns beyond it).
CHUNK_ENTRIES = 1 << 22
#: Up to this many qubits the dense method builds the full coefficient table with the compiled kernel.
TABLE_QUBITS = 13


@dataclass(frozen=True)
class PauliDecomposition:
    """``A = sum_k coeffs[k] P(x_k, z_k)``, in symplectic form.

    Attributes
    ----------
    x_int, z_int : numpy.ndarray
        ``(K,)`` bit masks; bit ``q`` is qubit ``q``.
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
        raise InputError(f"Pauli decomposition needs a square matrix, got shape {tuple(shape)}; "
                         "pad it first with qlsbench.problems.pad_to_power_of_two")
    N = shape[0]
    if N < 1 or N & (N - 1):
        raise InputError(f"Pauli decomposition needs a 2^n x 2^n matrix, got {N}x{N}; "
                         "pad it first with qlsbench.problems.pad_to_power_of_two")
    return N.bit_length() - 1


def _is_real_symmetric(A) -> bool:
    return not np.iscomplexobj(A.data if sp.issparse(A) else A) and hermitian_defect(A) == 0.0


def _nonzeros(A) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows, columns and values of the stored non-zeros, duplicates summed, explicit zeros dropped."""
    coo = sp.coo_matrix(A)
    coo.sum_duplicates()
    keep = coo.data != 0
    return coo.row[keep].astype(np.int64), coo.col[keep].astype(np.int64), coo.data[keep]


def _xor_groups(rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct XOR patterns ``row ^ col`` and the pattern index of each non-zero."""
    return np.unique(rows ^ cols, return_inverse=True)


def xor_patterns(A) -> int:
    """Number ``K`` of distinct ``row ^ col`` patterns: the sparse method's work and a term-count bound."""
    rows, cols, _ = _nonzeros(A)
    return int(len(np.unique(rows ^ cols)))


def _pattern_rows(A, n: int, method: str):
    """Yield ``(xs, rows)`` with ``rows[x, j] = A[j ^ x, j]``, a bounded number of patterns at a time."""
    N = 1 << n
    j = np.arange(N)
    dtype = complex if np.iscomplexobj(A.data if sp.issparse(A) else A) else float
    step = max(1, CHUNK_ENTRIES // N)
    if method == "dense":
        dense = A.toarray() if sp.issparse(A) else np.asarray(A)
        for start in range(0, N, step):
            xs = np.arange(start, min(N, start + step))
            yield xs, dense[j[None, :] ^ xs[:, None], j[None, :]].astype(dtype, copy=False)
        return
    rows, cols, vals = _nonzeros(A)
    xs_all, group = _xor_groups(rows, cols)
    for start in range(0, len(xs_all), step):
        sel = (group >= start) & (group < start + step)
        block = np.zeros((min(step, len(xs_all) - start), N), dtype=dtype)
        block[group[sel] - start, cols[sel]] = vals[sel]
        yield xs_all[start:start + step], block


def _fold(xs: np.ndarray, rows: np.ndarray, n: int):
    """Split patterns by top bit and keep, for each, the half of ``j`` with that bit clear.

    Yields ``(xs, zs, half_rows)`` where ``zs`` are the full ``z`` values the
    half-length transform will land on (``z_b`` set so ``|x & z|`` is even).
    """
    N = 1 << n
    if xs[0] == 0:  # the diagonal pattern has no top bit: transform it whole
        yield xs[:1], None, rows[:1]
        xs, rows = xs[1:], rows[1:]
    top = np.floor(np.log2(np.maximum(xs, 1))).astype(np.int64)
    for b in np.unique(top):
        sel = top == b
        low = (1 << int(b)) - 1
        half = np.arange(N // 2)
        j = ((half >> int(b)) << (int(b) + 1)) | (half & low)  # indices with bit b clear, in order
        zb = popcount((j[None, :]) & xs[sel][:, None]) & 1  # z' . x' decides z_b
        zs = j[None, :] | (zb << int(b))
        yield xs[sel], zs, 2.0 * rows[sel][:, j]


def _transform_chunks(A, n: int, method: str, fold: bool = False):
    """Yield ``(x values, z values or None, W)`` with ``W[x, .] = sum_j (-1)^{z . j} A[j ^ x, j]``.

    ``z values`` is ``None`` when ``W`` covers all ``z`` in order; with
    ``fold`` (real symmetric ``A``) it lists the ``z`` each column belongs to.
    """
    for xs, rows in _pattern_rows(A, n, method):
        if not fold:
            yield xs, None, fwht(rows)
            continue
        for fxs, zs, half in _fold(xs, rows, n):
            yield fxs, zs, fwht(half)


def _choose_method(A, n: int, method: str) -> str:
    if method in ("dense", "sparse"):
        return method
    if method != "auto":
        raise InputError(f"unknown method {method!r}; use 'auto', 'dense' or 'sparse'")
    if not sp.issparse(A):
        return "dense"
    # Sparse pays when the distinct patterns K are few: K n 2^n against n 4^n.
    return "sparse" if xor_patterns(A) < (1 << n) // 2 else "dense"


def _coefficient_chunks(A, n: int, method: str, real_sym: bool):
    """Yield ``(x values, z values, coefficients)`` as ``(K,)``, ``(K, M)``, ``(K, M)`` arrays.

    For real symmetric ``A`` only strings with an even number of Y are
    formed (``M = N / 2`` for ``x != 0``): the others vanish identically.
    """
    N = 1 << n
    z_all = np.arange(N)
    for xs, zs, W in _transform_chunks(A, n, method, fold=real_sym):
        z = z_all[None, :] if zs is None else zs
        k = popcount(xs[:, None] & z)
        if real_sym:
            yield xs, np.broadcast_to(z, W.shape), W.real * np.where(k & 2, -1.0, 1.0) / N
        else:
            yield xs, np.broadcast_to(z, W.shape), W * PHASE_INV[k & 3] / N


def _prepare(A, method: str):
    if not sp.issparse(A):
        A = np.asarray(A)
    n = _check_square_pow2(A.shape)
    return A, n, _choose_method(A, n, method), _is_real_symmetric(A)


def decompose(A, *, atol: float = 0.0, method: str = "auto") -> PauliDecomposition:
    """Decompose a ``2^n x 2^n`` matrix into Pauli strings.

    Parameters
    ----------
    A : array_like or scipy.sparse matrix
        Real or complex square matrix of power-of-two size.
    atol : float
        Keep terms with ``|c| > atol`` (``0`` keeps every non-zero coefficient).
    method : {"auto", "dense", "sparse"}
        ``dense``: all ``N`` XOR patterns; ``sparse``: only those of the
        non-zeros; ``auto`` picks by the number of distinct patterns.

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
    A, n, chosen, real_sym = _prepare(A, method)
    if chosen == "dense" and n <= TABLE_QUBITS:
        return _from_table(A, n, atol, real_sym)
    xs_out, zs_out, cs_out, patterns = [], [], [], 0
    for xs, zs, c in _coefficient_chunks(A, n, chosen, real_sym):
        patterns += len(xs)
        xi, col = np.nonzero(np.abs(c) > atol)
        xs_out.append(xs[xi])
        zs_out.append(zs[xi, col])
        cs_out.append(c[xi, col])
    coeffs = np.concatenate(cs_out) if cs_out else np.zeros(0)
    info = {"method": chosen, "patterns": patterns, "skipped_odd_y": real_sym}
    return PauliDecomposition(np.concatenate(xs_out).astype(np.int64), np.concatenate(zs_out).astype(np.int64),
                              coeffs, n, info)


def coefficient_table(A) -> np.ndarray:
    """All ``4^n`` coefficients as a dense table ``T[x, z]`` (compiled kernel, patterns in parallel).

    The output pauli-lcu produces; for ``n <= TABLE_QUBITS`` (the table takes
    ``16 * 4^n`` bytes). Real symmetric input gives purely imaginary (in
    practice exactly zero real part) entries at odd-Y strings.
    """
    A = A.toarray() if sp.issparse(A) else np.asarray(A)
    n = _check_square_pow2(A.shape)
    if n > TABLE_QUBITS:
        raise InputError(f"a dense coefficient table of {n} qubits needs {16 * 4**n / 2**30:.0f} GiB; "
                         "use decompose(..., method='sparse') or count_terms")
    from qlsbench.pauli.kernels import dense_coefficient_table

    return dense_coefficient_table(A)


def _from_table(A, n: int, atol: float, real_sym: bool) -> PauliDecomposition:
    table = coefficient_table(A)
    # Odd-Y strings of a real symmetric matrix get a purely imaginary phase, so
    # their real part is exactly 0 and the strict test below drops them.
    values = table.real if real_sym else table
    xi, zi = np.nonzero(np.abs(values) > atol)
    info = {"method": "dense", "patterns": 1 << n, "skipped_odd_y": real_sym}
    return PauliDecomposition(xi.astype(np.int64), zi.astype(np.int64), values[xi, zi], n, info)


def max_terms(n_qubits: int, real_symmetric: bool) -> int:
    """Most Pauli strings a matrix can need: ``(4^n + 2^n) / 2`` real symmetric, else ``4^n``."""
    return (4**n_qubits + 2**n_qubits) // 2 if real_symmetric else 4**n_qubits


def count_terms(A, tols=(0.0, 1e-6, 1e-3), *, relative: bool = False, method: str = "auto") -> dict[float, int]:
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
    A, n, chosen, real_sym = _prepare(A, method)
    scale = 1.0
    if relative:
        scale = max((float(np.abs(c).max(initial=0.0)) for _, _, c in _coefficient_chunks(A, n, chosen, real_sym)),
                    default=0.0)
    counts = dict.fromkeys(tols, 0)
    for _, _, c in _coefficient_chunks(A, n, chosen, real_sym):
        mag = np.abs(c)
        for t in tols:
            counts[t] += int(np.count_nonzero(mag > t * scale))
    return counts
