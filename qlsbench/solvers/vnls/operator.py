"""The VNLS loss as a NetKet operator: the Rayleigh quotient of ``H = A^dagger (I - |b><b|) A``.

Monte Carlo (De et al. eqs. 14-16, after Knitter, Stokes and Veerapaneni): with
``x`` drawn from ``|psi(x)|^2 / <psi|psi>``, the local energy is

    l(x) = ( <x|A^dagger A|psi> - <x|A^dagger|b> c ) / psi(x),
    c = E_{x' ~ |b|^2} [ <x'|A|psi> / <x'|b> ]  ( = <b|A|psi> ),

so ``E[l] = <psi|H|psi> / <psi|psi>``. ``A^dagger A`` and ``A`` are held as
padded CSR tables (row ``x``: column indices and values, padded with zeros);
``x'`` is drawn from ``|b|^2`` exactly. ``c`` is estimated once per step from
fresh ``x'`` samples, computed with ``psi`` scaled by ``exp(-shift)`` so large
log-amplitudes do not overflow.

Configurations are NetKet ``Qubit`` states; index ``sum_k s_k 2^(n-1-k)``
(site 0 most significant), which is NetKet's own ``states_to_numbers``.
"""

from __future__ import annotations

import jax.numpy as jnp
import netket as nk
import numpy as np
import scipy.sparse as sp


def padded_rows(M: sp.spmatrix) -> tuple[np.ndarray, np.ndarray]:
    """Row ``x`` of ``M`` as ``(columns, values)``, padded to the longest row with ``(x, 0)``."""
    M = sp.csr_matrix(M)
    M.sum_duplicates()
    lengths = np.diff(M.indptr)
    width = max(int(lengths.max(initial=0)), 1)
    N = M.shape[0]
    cols = np.repeat(np.arange(N)[:, None], width, axis=1)
    vals = np.zeros((N, width), dtype=M.dtype)
    slot = np.arange(M.nnz) - np.repeat(M.indptr[:-1], lengths)
    rows = np.repeat(np.arange(N), lengths)
    cols[rows, slot] = M.indices
    vals[rows, slot] = M.data
    return cols, vals


def hamiltonian(A: sp.spmatrix, b: np.ndarray) -> sp.csr_matrix:
    """``H = A^dagger (I - |b><b|) A`` for a normalised ``b``, as a dense-backed sparse matrix (small n)."""
    Ab = sp.csr_matrix(A).conj().T @ b
    return sp.csr_matrix(sp.csr_matrix(A).conj().T @ sp.csr_matrix(A) - np.outer(Ab, Ab.conj()))


#: NetKet's ``LocalOperator`` drops matrix elements of magnitude at or below this (its ``mel_cutoff`` default).
MEL_CUTOFF = 1e-10


def netket_csr(H: np.ndarray, cutoff: float = MEL_CUTOFF) -> sp.csr_matrix:
    """``H`` as NetKet's ``LocalOperator(hilbert, [H], [all sites]).to_sparse()`` writes it, entry for entry.

    Each row holds its diagonal element first, then its off-diagonal elements by column, each only if its
    magnitude is above ``cutoff``. The same arrays in the same order give the same matrix-vector products to the
    last bit, so a state trained on this matrix is the one trained on NetKet's; building it here skips the
    JAX compilation NetKet's conversion runs for every new matrix (about 0.3 s per system, measured).
    ``tests/test_vnls.py`` compares the two arrays on physics systems and random matrices.
    """
    H = np.asarray(H)
    rows, columns = np.nonzero(np.abs(H) > cutoff)
    order = np.lexsort((columns, columns != rows, rows))  # by row; in a row the diagonal first, then by column
    rows, columns = rows[order], columns[order]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=H.shape[0]))]).astype(np.int32)
    return sp.csr_matrix((H[rows, columns], columns.astype(np.int32), indptr), shape=H.shape)


class ExactLoss(nk.operator.DiscreteOperator):
    """``H`` for a ``FullSumState``: the matrix of :func:`netket_csr`, which is all ``FullSumState`` asks for.

    Parameters
    ----------
    hilbert : netket.hilbert.Qubit
        ``n`` qubits, ``2^n`` equal to the dimension of ``H``.
    H : numpy.ndarray
        The dense loss matrix (:func:`hamiltonian`).
    """

    def __init__(self, hilbert, H: np.ndarray):
        super().__init__(hilbert)
        self._matrix = netket_csr(H)

    @property
    def dtype(self):
        return self._matrix.dtype

    @property
    def is_hermitian(self) -> bool:
        return True

    def to_sparse(self) -> sp.csr_matrix:
        return self._matrix


class VNLSLoss(nk.operator.AbstractOperator):
    """``<psi|H|psi> / <psi|psi>`` with ``H = A^dagger (I - |b><b|) A``, evaluated from CSR tables.

    Parameters
    ----------
    hilbert : netket.hilbert.Qubit
        ``n`` qubits, ``2^n`` equal to the dimension of ``A``.
    A : scipy.sparse matrix
        The system matrix.
    b : numpy.ndarray
        Right-hand side, normalised here.
    c_samples : int
        Draws of ``x' ~ |b|^2`` for the ``c`` term each step.
    seed : int
        Seed of those draws.
    """

    def __init__(self, hilbert, A: sp.spmatrix, b: np.ndarray, *, c_samples: int = 1024, seed: int = 0):
        super().__init__(hilbert)
        A = sp.csr_matrix(A)
        b = np.asarray(b) / np.linalg.norm(b)
        self._complex = np.iscomplexobj(A.data) or np.iscomplexobj(b)
        dtype = complex if self._complex else float
        self.n = hilbert.size
        self.b = b.astype(dtype)
        self.g = jnp.asarray(A.conj().T @ self.b)  # <x|A^dagger|b> for every x
        self.aa_cols, self.aa_vals = map(jnp.asarray, padded_rows(A.conj().T @ A))
        self.a_cols, self.a_vals = padded_rows(A)
        self.c_samples = int(c_samples)
        self._rng = np.random.default_rng(seed)
        self._prob = np.abs(self.b) ** 2
        self._prob /= self._prob.sum()

    @property
    def dtype(self):
        return jnp.complex128 if self._complex else jnp.float64

    @property
    def is_hermitian(self) -> bool:
        return True

    def draw(self) -> np.ndarray:
        """The next ``c_samples`` draws ``x' ~ |b|^2`` of this loss's generator (one step's)."""
        return self._rng.choice(len(self._prob), size=self.c_samples, p=self._prob)

    def c_term(self, log_value, shift: float) -> complex:
        """``exp(-shift) <b|A|psi>`` estimated from ``c_samples`` draws ``x' ~ |b|^2``."""
        xs = self.draw()
        cols, vals = self.a_cols[xs], self.a_vals[xs]
        logpsi = np.asarray(log_value(index_to_states(jnp.asarray(cols.reshape(-1)), self.n)))
        amps = np.exp(logpsi.reshape(cols.shape) - shift)
        c = np.mean(np.sum(vals * amps, axis=1) / self.b[xs])
        return complex(c) if self._complex or np.iscomplexobj(amps) else float(np.real(c))


def states_to_index(sigma: jnp.ndarray, n: int) -> jnp.ndarray:
    """Basis index of Qubit configurations (site 0 is the most significant bit)."""
    weights = 2 ** jnp.arange(n - 1, -1, -1)
    return jnp.sum(jnp.asarray(sigma, dtype=jnp.int32) * weights, axis=-1)


def index_to_states(index: jnp.ndarray, n: int) -> jnp.ndarray:
    """Qubit configurations of basis indices (inverse of :func:`states_to_index`)."""
    shifts = jnp.arange(n - 1, -1, -1)
    return ((index[..., None] >> shifts) & 1).astype(jnp.float64)


def local_energy(logpsi, pars, sigma, args):
    """``l(x)`` of the module docstring for the samples ``sigma``; ``args`` are the kernel arguments
    ``(aa_cols, aa_vals, g, c, shift)``."""
    aa_cols, aa_vals, g, c, shift = args
    n = sigma.shape[-1]
    x = states_to_index(sigma, n)
    cols, vals = aa_cols[x], aa_vals[x]
    log_x = logpsi(pars, sigma)
    log_conn = logpsi(pars, index_to_states(cols.reshape(-1), n)).reshape(cols.shape)
    direct = jnp.sum(vals * jnp.exp(log_conn - log_x[:, None]), axis=-1)
    return direct - g[x] * c * jnp.exp(shift - log_x)


@nk.vqs.get_local_kernel_arguments.dispatch
def _vnls_arguments(vstate: nk.vqs.MCState, op: VNLSLoss):
    sigma = vstate.samples.reshape(-1, op.n)
    shift = float(jnp.max(jnp.real(vstate.log_value(sigma))))
    c = op.c_term(vstate.log_value, shift)
    return vstate.samples, (op.aa_cols, op.aa_vals, op.g, jnp.asarray(c), jnp.asarray(shift))


@nk.vqs.get_local_kernel.dispatch
def _vnls_kernel(vstate: nk.vqs.MCState, op: VNLSLoss):
    return local_energy
