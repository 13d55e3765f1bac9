"""Random sparse symmetric systems of a given size and fill: the null a structural claim is set against.

A claim about what a physics matrix's Pauli form looks like (fig. 5 of De et al.: its term counts follow the
maximum, and fall sharply when truncated) says something about the physics only where a matrix without it, of
the same size and number of non-zeros, does otherwise. :func:`random_sparse_symmetric` is that matrix.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from qlsbench.checks import whole_number
from qlsbench.errors import InputError
from qlsbench.problems._system import LinearSystem

#: How the diagonal of :func:`random_sparse_symmetric` is drawn.
DIAGONALS = ("dominant", "normal")


def random_sparse_symmetric(n: int, nnz: int, seed: int = 0, diagonal: str = "dominant") -> LinearSystem:
    """A symmetric ``n x n`` system with ``nnz`` non-zeros: a full diagonal and ``(nnz - n) / 2`` pairs of
    off-diagonal entries at uniformly random distinct places, of standard normal values.

    ``diagonal="dominant"``: each row's absolute sum plus one, so ``A`` is strictly diagonally dominant, hence
    SPD, as the frictionless contact systems are; ``"normal"``: standard normal like the rest (a generic symmetric
    matrix, indefinite). ``b`` is all ones.

    Parameters
    ----------
    n : int
        Size.
    nnz : int
        Non-zeros, diagonal included (rounded down to ``n`` plus an even number; at most ``n^2``).
    seed : int
        Seed of the places and values.
    diagonal : {"dominant", "normal"}
        How the diagonal is drawn.
    """
    if diagonal not in DIAGONALS:
        raise InputError(f"diagonal must be one of {', '.join(DIAGONALS)}, got {diagonal!r}")
    n = whole_number(n, "n", low=1)
    nnz = whole_number(nnz, "nnz", low=n, high=n * n)
    rng = np.random.default_rng(seed)
    pairs = (nnz - n) // 2
    # distinct places above the diagonal, drawn by index into the strict upper triangle (row-major)
    flat = np.sort(rng.choice(n * (n - 1) // 2, size=pairs, replace=False))
    rows = np.searchsorted(np.cumsum(np.arange(n - 1, 0, -1)), flat, side="right")
    starts = rows * n - rows * (rows + 1) // 2  # index of row's first upper entry
    cols = flat - starts + rows + 1
    values = rng.standard_normal(pairs)
    upper = sp.coo_matrix((values, (rows, cols)), shape=(n, n))
    off = (upper + upper.T).tocsr()
    if diagonal == "dominant":
        values = np.asarray(abs(off).sum(axis=1)).ravel() + 1.0
    else:
        values = rng.standard_normal(n)
    A = (off + sp.diags(values)).tocsr()
    return LinearSystem(A, np.ones(n), meta={"family": "random-sparse-symmetric", "seed": seed, "diagonal": diagonal})
