"""The Ising-inspired VQLS test problem of Bravo-Prieto et al. (arXiv:1909.05820).

``A = (sum_j X_j + J sum_j Z_j Z_{j+1} + eta I) / zeta`` on an open chain of
``n`` qubits and ``b = H^{(x)n}|0>``, the uniform superposition. ``eta`` and
``zeta`` are set from the exact extreme eigenvalues of the bracket so that the
spectrum of ``A`` is exactly ``[1/kappa, 1]``.
"""

from __future__ import annotations

from functools import reduce

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from qlsbench.checks import whole_number
from qlsbench.errors import InputError
from qlsbench.problems._spectra import one_blas_thread
from qlsbench.problems._system import LinearSystem

#: Largest system built: 2^20 unknowns and about 2e7 stored entries (n = 16 takes 0.6 s). Without a bound a
#: typo such as ``--n 40`` asks for 2^40 unknowns and dies in an allocation.
MAX_QUBITS = 20

_X = sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]))
_Z = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, -1.0]]))
_I = sp.identity(2, format="csr")

#: Above this many qubits the extreme eigenvalues come from ARPACK, not LAPACK.
DENSE_QUBITS = 11


def pauli_product(n_qubits: int, ops: dict[int, sp.spmatrix]) -> sp.csr_matrix:
    """Tensor product placing ``ops[j]`` on qubit ``j`` and identity elsewhere.

    Qubit 0 is the most significant factor (leftmost in the Kronecker product).
    """
    factors = [ops.get(j, _I) for j in range(n_qubits)]
    return reduce(lambda a, c: sp.kron(a, c, format="csr"), factors)


def ising_hamiltonian(n_qubits: int, J: float) -> sp.csr_matrix:
    """``sum_j X_j + J sum_{j<n-1} Z_j Z_{j+1}`` as a sparse matrix."""
    H = sum(pauli_product(n_qubits, {j: _X}) for j in range(n_qubits))
    for j in range(n_qubits - 1):
        H = H + J * pauli_product(n_qubits, {j: _Z, j + 1: _Z})
    return sp.csr_matrix(H)


def extreme_eigenvalues(H: sp.spmatrix) -> tuple[float, float]:
    """Exact smallest and largest eigenvalue of a real symmetric matrix."""
    n = H.shape[0]
    if n <= 2**DENSE_QUBITS:
        with one_blas_thread():  # the same bits on any core count (see spectra)
            w = la.eigvalsh(H.toarray())
        return float(w[0]), float(w[-1])
    v0 = np.random.default_rng(0).standard_normal(n)  # ARPACK's default start is random
    lo = spla.eigsh(H, k=1, which="SA", tol=1e-14, return_eigenvectors=False, v0=v0)[0]
    hi = spla.eigsh(H, k=1, which="LA", tol=1e-14, return_eigenvectors=False, v0=v0)[0]
    return float(lo), float(hi)


def ising_inspired(n_qubits: int, kappa: float = 10.0, J: float = 0.1) -> LinearSystem:
    """Build the Ising-inspired linear system with condition number ``kappa``.

    Parameters
    ----------
    n_qubits : int
        Number of qubits ``n >= 1``; the system has dimension ``2**n``.
    kappa : float
        Target condition number, ``> 1``.
    J : float
        ZZ coupling strength.

    Returns
    -------
    LinearSystem
        Symmetric positive definite system with eigenvalues in ``[1/kappa, 1]``
        (both ends attained) and ``b`` the normalised all-ones vector.

    Raises
    ------
    InputError
        If ``n_qubits`` is not in ``[1, MAX_QUBITS]``, ``kappa <= 1`` or a parameter is not finite.
    """
    whole_number(n_qubits, "n_qubits", low=1, high=MAX_QUBITS)
    if not np.isfinite(kappa) or kappa <= 1:
        raise InputError(f"kappa must be a finite number > 1, got {kappa!r}")
    if not np.isfinite(J):
        raise InputError(f"J must be finite, got {J!r}")
    n = int(n_qubits)
    H = ising_hamiltonian(n, J)
    lam_min, lam_max = extreme_eigenvalues(H)
    zeta = (lam_max - lam_min) / (1.0 - 1.0 / kappa)
    eta = (lam_max / kappa - lam_min) / (1.0 - 1.0 / kappa)
    A = (H + eta * sp.identity(2**n, format="csr")) / zeta
    b = np.full(2**n, 2.0 ** (-n / 2))
    meta = {
        "family": "ising",
        "scene": f"kappa{kappa:g}",
        "n_qubits": n,
        "n_orig": 2**n,
        "kappa": float(kappa),
        "J": float(J),
        "eta": float(eta),
        "zeta": float(zeta),
        "symmetric": True,
        # Exact by construction (eigenvalues 1/kappa and 1 of an SPD matrix); spares writers an SVD.
        "cond": float(kappa),
    }
    return LinearSystem(A, b, meta)
