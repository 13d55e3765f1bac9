"""The Walsh-Hadamard transform and bit helpers the Pauli decomposition is built on."""

from __future__ import annotations

import numpy as np


def fwht(a: np.ndarray) -> np.ndarray:
    """Unnormalised fast Walsh-Hadamard transform along the last axis, in place.

    ``out[..., z] = sum_j (-1)^{popcount(z & j)} a[..., j]`` for a last axis of
    length ``2**n``: ``n`` butterfly stages, each one vectorised over the array.
    """
    N = a.shape[-1]
    lead = a.shape[:-1]
    h = 1
    while h < N:
        v = a.reshape(*lead, N // (2 * h), 2, h)
        top = v[..., 0, :].copy()
        v[..., 0, :] += v[..., 1, :]
        v[..., 1, :] = top - v[..., 1, :]
        h *= 2
    return a


def popcount(v: np.ndarray) -> np.ndarray:
    """Number of set bits of each non-negative integer (up to 64 bits)."""
    v = v.astype(np.uint64, copy=True)
    v = v - ((v >> np.uint64(1)) & np.uint64(0x5555555555555555))
    v = (v & np.uint64(0x3333333333333333)) + ((v >> np.uint64(2)) & np.uint64(0x3333333333333333))
    v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((v * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.int64)


#: ``i**k`` for ``k mod 4``: undoes the phase ``i**(-|x & z|)`` of a coefficient, to rebuild matrices.
PHASE = np.array([1, 1j, -1, -1j])
