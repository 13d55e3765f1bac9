"""A system's matrix as a linear combination of unitaries (its Pauli form), for the fault-tolerant view.

``A = sum_k c_k P_k``: the terms a block encoding prepares and selects, and
their 1-norm ``alpha = sum_k |c_k|``, which sets the query cost of inverting
``A / alpha``. Terms are stored in symplectic form, ``x`` and ``z`` bit masks
(bit ``q`` is qubit ``q``, Qiskit's order), with the coefficients, so they
rebuild Qiskit's ``SparsePauliOp`` exactly.
"""

from __future__ import annotations

import numpy as np

from qlsbench.pauli._decomposition import LCU_TOLS, PauliDecomposition, decompose


def lcu_form(A) -> PauliDecomposition:
    """Every non-zero Pauli term of ``A`` (``2^n x 2^n``)."""
    return decompose(A)


def lcu_summary(terms: PauliDecomposition, tols=LCU_TOLS) -> dict[str, float | int]:
    """Term counts at each relative tolerance (``|c| > tol * max |c|``) and the LCU 1-norm of the kept terms.

    Returns
    -------
    dict
        ``terms_<tol>`` and ``lcu_norm_<tol>`` for each tolerance (:func:`tol_label`:
        ``terms_0``, ``terms_1e-6``, ``terms_1e-3``; ``lcu_norm_0`` is the exact
        ``alpha = sum |c|``), and ``max_coeff``.
    """
    magnitude = np.abs(terms.coeffs)
    out: dict[str, float | int] = {"max_coeff": float(magnitude.max(initial=0.0))}
    for tol in tols:
        kept = kept_mask(terms, tol)
        out[f"terms_{tol_label(tol)}"] = int(kept.sum())
        out[f"lcu_norm_{tol_label(tol)}"] = float(magnitude[kept].sum())
    return out


def kept_mask(terms: PauliDecomposition, tol: float) -> np.ndarray:
    """The terms :func:`lcu_summary` keeps at relative tolerance ``tol``: ``|c| > tol * max |c|`` (``|c| > 0`` at 0)."""
    magnitude = np.abs(terms.coeffs)
    return magnitude > tol * magnitude.max(initial=0.0) if tol > 0 else magnitude > 0


def truncated(terms: PauliDecomposition, tol: float) -> PauliDecomposition:
    """The terms kept at relative tolerance ``tol`` (:func:`kept_mask`), as a decomposition of their own."""
    return terms.subset(kept_mask(terms, tol))


def tol_label(tol: float) -> str:
    """``0``, ``1e-6``, ``1e-3``: a tolerance as a column suffix."""
    if tol == 0:
        return "0"
    exponent = np.log10(tol)
    return f"1e{round(exponent)}" if abs(exponent - round(exponent)) < 1e-12 else f"{tol:g}"


def from_symplectic(x, z, coeffs_re, coeffs_im, n_qubits: int):
    """The exported terms back as a Qiskit ``SparsePauliOp`` (exactly the decomposition's)."""
    x = np.asarray(x, dtype=np.int64)
    z = np.asarray(z, dtype=np.int64)
    coeffs = np.asarray(coeffs_re, dtype=float) + 1j * np.asarray(coeffs_im, dtype=float)
    return PauliDecomposition(x, z, coeffs, int(n_qubits)).to_sparse_pauli_op()


__all__ = ["LCU_TOLS", "from_symplectic", "kept_mask", "lcu_form", "lcu_summary", "tol_label", "truncated"]
