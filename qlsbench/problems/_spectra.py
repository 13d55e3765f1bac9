"""Spectral quantities of a matrix: 2-norm, condition number, reference solve.

Small matrices (``dim <= DENSE_LIMIT``) use dense LAPACK so values are exact to
rounding; larger ones fall back to sparse iterative estimates.

These numbers go into dataset files (``A`` is divided by its 2-norm), which
must be byte-identical on every machine. A threaded BLAS splits its sums by
core count and changes the last bits (seen at dimension 700), so dense LAPACK
runs on one BLAS thread here, and ARPACK starts from a fixed vector.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from qlsbench.errors import InputError

#: Largest dimension for which singular values are computed densely.
DENSE_LIMIT = 4096


def one_blas_thread():
    """Context in which BLAS/LAPACK use one thread: results independent of the core count."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def _start_vector(n: int) -> np.ndarray:
    """A fixed ARPACK start vector: its default is random and changes with earlier calls."""
    return np.random.default_rng(0).standard_normal(n)


#: ARPACK's relative tolerance above the dense limit. The top of a Laplacian-like spectrum is clustered (gaps of
#: order 1/N^2): to machine precision ARPACK took 445 s on the 16,384-point 1-D Laplacian, to 1e-6 21 s with an error
#: of 3e-8 in sigma_max. Where a dense SVD also runs the two are compared (the advantage map states the difference).
SPARSE_TOL = 1e-6


def _largest_singular_value(A, hermitian: bool = False) -> float:
    """``||A||_2`` by ARPACK: Lanczos on ``A`` itself when it is Hermitian (``svds`` works on ``A^H A``, whose
    clustering is the square of ``A``'s), else ``svds``."""
    v0 = _start_vector(min(A.shape))
    if hermitian:
        return float(abs(spla.eigsh(A, k=1, which="LM", return_eigenvectors=False, v0=v0, tol=SPARSE_TOL)[0]))
    return float(spla.svds(A, k=1, which="LM", return_singular_vectors=False, v0=v0, tol=SPARSE_TOL)[0])


def _cg_inverse(A) -> spla.LinearOperator:
    """``A^-1`` applied by conjugate gradients to a relative residual of 1e-12 (``A`` Hermitian positive definite)."""

    def solve(v):
        x, info = spla.cg(A, v, rtol=1e-12, atol=0.0, maxiter=50 * A.shape[0])
        if info:
            raise InputError(f"sigma_min by conjugate gradients: no convergence in {info} iterations (is A SPD?)")
        return x

    return spla.LinearOperator(A.shape, matvec=solve, rmatvec=solve, dtype=A.dtype)


def singular_value_range(
    A: sp.spmatrix, dense_limit: int | None = None, *, factorise: bool = True
) -> tuple[float, float]:
    """Smallest and largest singular value of ``A``.

    Parameters
    ----------
    A : scipy.sparse matrix
        Square matrix.
    dense_limit : int, optional
        Largest dimension computed by dense SVD (default :data:`DENSE_LIMIT`); above it, ARPACK (to
        :data:`SPARSE_TOL`) on ``A`` for ``sigma_max`` and on ``A^-1`` (through a sparse LU) for
        ``1 / sigma_min``. ``0`` takes the sparse estimates at every size, which is how they are checked against
        the dense values.
    factorise : bool, optional
        ``False`` applies ``A^-1`` by conjugate gradients instead of a sparse LU, for a Hermitian positive definite
        matrix whose factors would not fit (an LU of the Ising systems fills in to about ``0.7 N^2`` entries).

    Returns
    -------
    (float, float)
        ``(sigma_min, sigma_max)``.
    """
    n = A.shape[0]
    if n <= (DENSE_LIMIT if dense_limit is None else dense_limit):
        with one_blas_thread():
            s = la.svdvals(A.toarray())
        return float(s[-1]), float(s[0])
    hermitian = hermitian_defect(A) == 0.0
    smax = _largest_singular_value(A, hermitian)
    # The smallest singular value is 1 / ||A^-1||_2, with A^-1 applied through a sparse LU (or CG).
    if not factorise:
        return float(1.0 / _largest_singular_value(_cg_inverse(sp.csr_matrix(A)), hermitian)), float(smax)
    try:
        lu = spla.splu(sp.csc_matrix(A))
    except RuntimeError:  # exactly singular
        return 0.0, float(smax)
    op = spla.LinearOperator(A.shape, matvec=lu.solve, rmatvec=lambda v: lu.solve(v, trans="H"), dtype=A.dtype)
    inv_max = _largest_singular_value(op, hermitian)
    return float(1.0 / inv_max), float(smax)


def hermitian_defect(A) -> float:
    """``||A - A^H||_F / ||A||_F`` of a sparse or dense matrix: 0 exactly when ``A`` is Hermitian."""
    norm_of = spla.norm if sp.issparse(A) else np.linalg.norm
    norm = norm_of(A)
    return float(norm_of(A - A.conj().T) / norm) if norm else 0.0


def spectral_norm(A: sp.spmatrix) -> float:
    """Largest singular value ``||A||_2``."""
    n = A.shape[0]
    if n <= DENSE_LIMIT:
        with one_blas_thread():
            return float(la.norm(A.toarray(), 2))
    return _largest_singular_value(A, hermitian_defect(A) == 0.0)


def condition_number(A: sp.spmatrix, dense_limit: int | None = None, *, factorise: bool = True) -> float:
    """2-norm condition number ``sigma_max / sigma_min`` (``inf`` if singular); ``dense_limit`` and ``factorise``
    as in :func:`singular_value_range`."""
    smin, smax = singular_value_range(A, dense_limit, factorise=factorise)
    return float(smax / smin) if smin > 0 else float("inf")


def reference_solution(A: sp.spmatrix, b: np.ndarray) -> np.ndarray:
    """Solve ``A x = b`` with a sparse direct LU factorisation.

    Returns an all-NaN vector when ``A`` is singular, so the dataset still
    records the system and says plainly that it has no unique solution.
    """
    try:
        lu = spla.splu(sp.csc_matrix(A))
        x = lu.solve(np.asarray(b, dtype=np.result_type(A.dtype, b.dtype)))
    except RuntimeError:  # "Factor is exactly singular"
        return np.full(A.shape[0], np.nan, dtype=np.result_type(A.dtype, b.dtype))
    return x
