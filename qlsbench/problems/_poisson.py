"""The Poisson control: the finite-difference Laplacian in 1, 2 or 3 dimensions, whose spectrum is known exactly.

``-u'' = f`` on the unit interval (square, cube) with zero Dirichlet boundary values, ``m`` interior points per
axis and the standard second-order stencil (``2 d`` on the diagonal, ``-1`` for each axis neighbour; the ``1/h^2``
factor is left out: it scales ``A`` and not its condition number). ``A = sum_axes I x ... x T_m x ... x I`` with
``T_m = tridiag(-1, 2, -1)``, whose eigenvalues are ``4 sin^2(k pi / (2 (m + 1)))``, ``k = 1..m`` (LeVeque,
*Finite Difference Methods for ODEs and PDEs*, SIAM 2007, sec. 2.10 and 3.4). The extreme eigenvalues of the
sum are ``d`` times those of ``T_m``, so every dimension has the same condition number
``kappa = cot^2(pi / (2 (m + 1)))``, which grows as ``(2 (m + 1) / pi)^2``: ``N^(2/d)`` in the unknowns
``N = m^d``. These are the systems resource-estimate papers quote figures for (Tu et al., arXiv:2502.11239),
which makes them the control of the advantage map: our pipeline on them can be set beside theirs.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from qlsbench.checks import whole_number
from qlsbench.errors import InputError
from qlsbench.problems._system import LinearSystem

#: Largest grid built: 2^24 unknowns (about 1.2e8 stored entries in 3-D, 1.5 GB).
MAX_UNKNOWNS = 2**24


def poisson_kappa(points: int) -> float:
    """Exact 2-norm condition number of the Laplacian with ``points`` interior points per axis, any dimension."""
    return 1.0 / math.tan(math.pi / (2 * (points + 1))) ** 2


def poisson_matrix(dims: int, points: int) -> sp.csr_matrix:
    """The ``dims``-dimensional finite-difference Laplacian on ``points`` interior points per axis (CSR)."""
    if dims not in (1, 2, 3):
        raise InputError(f"poisson: dims must be 1, 2 or 3, got {dims!r}")
    points = whole_number(points, "poisson: points", low=1)
    if points**dims > MAX_UNKNOWNS:
        raise InputError(
            f"poisson: {points}^{dims} = {points**dims:,} unknowns is above the limit of {MAX_UNKNOWNS:,} (2^24)"
        )
    T = sp.diags([-np.ones(points - 1), 2 * np.ones(points), -np.ones(points - 1)], [-1, 0, 1], format="csr")
    eye = sp.identity(points, format="csr")
    A = sp.csr_matrix((points**dims, points**dims))
    for axis in range(dims):
        factors = [T if a == axis else eye for a in range(dims)]
        term = factors[0]
        for f in factors[1:]:
            term = sp.kron(term, f, format="csr")
        A = A + term
    A = sp.csr_matrix(A)
    A.sort_indices()
    return A


def poisson(dims: int, points: int) -> LinearSystem:
    """The Poisson control system: the Laplacian and a unit-norm right-hand side of ones (a uniform source).

    ``meta`` records ``family="poisson"``, ``dims``, ``points`` and the exact ``kappa``.
    """
    A = poisson_matrix(dims, points)
    n = A.shape[0]
    b = np.ones(n) / math.sqrt(n)
    meta = {"family": "poisson", "dims": dims, "points": points, "kappa": poisson_kappa(points)}
    return LinearSystem(A, b, meta=meta)
