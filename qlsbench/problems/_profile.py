"""What a system's size costs a solver: the structural and spectral numbers the advantage map grows with ``N``.

Every quantum linear solver's cost is a function of these (the sparse-access block encoding's normalisation is
``s max|A_ij|``, the LCU's the Pauli 1-norm, the query count grows with ``kappa``), and so is every Krylov
solver's; the map tabulates them per system as the simulation grows.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from qlsbench.problems._spectra import DENSE_LIMIT, singular_value_range


def profile(A: sp.spmatrix, dense_limit: int = DENSE_LIMIT, *, factorise: bool = True) -> dict[str, float | int | str]:
    """Size, sparsity, largest entry, norm and condition number of a square matrix.

    Parameters
    ----------
    A : scipy.sparse matrix
        The system matrix (stored zeros are not counted as entries).
    dense_limit : int, optional
        Largest dimension whose singular values come from a dense SVD; above it, sparse estimates
        (:func:`~qlsbench.problems.singular_value_range`).
    factorise : bool, optional
        Whether the sparse estimate of ``sigma_min`` may factorise ``A`` (else conjugate gradients; SPD only).

    Returns
    -------
    dict
        ``N`` (unknowns), ``nnz`` (nonzero entries), ``s`` (largest count of nonzeros in a row or a column: the
        sparsity a sparse-access oracle is built for), ``max_abs`` (``max |A_ij|``), ``norm2`` (``||A||_2``),
        ``sigma_min``, ``kappa`` (``inf`` when singular) and ``kappa_method`` (``"dense"``, ``"sparse"`` or
        ``"sparse-cg"``).
    """
    A = sp.csr_matrix(A)
    A.eliminate_zeros()
    n = A.shape[0]
    rows = np.diff(A.indptr)
    cols = np.bincount(A.indices, minlength=n)
    smin, smax = singular_value_range(A, dense_limit, factorise=factorise)
    return {
        "N": int(n),
        "nnz": int(A.nnz),
        "s": int(max(rows.max(initial=0), cols.max(initial=0))),
        "max_abs": float(np.abs(A.data).max(initial=0.0)),
        "norm2": float(smax),
        "sigma_min": float(smin),
        "kappa": float(smax / smin) if smin > 0 else float("inf"),
        "kappa_method": "dense" if n <= dense_limit else ("sparse" if factorise else "sparse-cg"),
    }
