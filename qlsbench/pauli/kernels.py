"""Compiled kernels for dense Pauli decompositions (numba).

One pass per XOR pattern ``x``: gather ``A[j ^ x, j]``, transform in place,
apply the phase ``i^{-|x & z|} / N``. Patterns run in parallel.
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, inline="always")
def _popcount(v):
    count = 0
    while v:
        v &= v - 1
        count += 1
    return count


@nb.njit(cache=True, inline="always")
def _fwht_inplace(row):
    N = row.shape[0]
    h = 1
    while h < N:
        for i in range(0, N, 2 * h):
            for k in range(i, i + h):
                a = row[k]
                b = row[k + h]
                row[k] = a + b
                row[k + h] = a - b
        h *= 2


@nb.njit(cache=True, inline="always")
def _phase(v, k):
    """``v * i^{-k}`` for ``k`` in 0..3."""
    if k == 0:
        return v
    if k == 1:
        return complex(v.imag, -v.real)
    if k == 2:
        return -v
    return complex(-v.imag, v.real)


@nb.njit(parallel=True, cache=True)
def _table_real(A, out):
    N = A.shape[0]
    inv_n = 1.0 / N
    for x in nb.prange(N):
        row = np.empty(N)  # real transform: half the arithmetic of a complex one
        for j in range(N):
            row[j] = A[j ^ x, j]
        _fwht_inplace(row)
        for z in range(N):
            out[x, z] = _phase(complex(row[z] * inv_n, 0.0), _popcount(x & z) & 3)


@nb.njit(parallel=True, cache=True)
def _table_complex(A, out):
    N = A.shape[0]
    inv_n = 1.0 / N
    for x in nb.prange(N):
        row = out[x]
        for j in range(N):
            row[j] = A[j ^ x, j]
        _fwht_inplace(row)
        for z in range(N):
            row[z] = _phase(row[z] * inv_n, _popcount(x & z) & 3)


def dense_coefficient_table(A: np.ndarray) -> np.ndarray:
    """``T[x, z]``: the coefficient of ``P(x, z)`` for every Pauli string of a dense ``2^n x 2^n`` matrix."""
    out = np.empty(A.shape, dtype=np.complex128)
    if np.iscomplexobj(A):
        _table_complex(np.ascontiguousarray(A, dtype=np.complex128), out)
    else:
        _table_real(np.ascontiguousarray(A, dtype=np.float64), out)
    return out
