"""The central data object: a linear system ``A x = b`` with its metadata."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from qlsbench.errors import InputError


def _as_csr(A: Any) -> sp.csr_matrix:
    """Convert dense or sparse input to canonical CSR (sorted, no duplicates)."""
    try:
        if sp.issparse(A):
            M = sp.csr_matrix(A, copy=True)
        else:
            arr = np.asarray(A)
            if arr.ndim != 2:
                raise InputError(f"A must be a 2-D matrix, got an array of shape {arr.shape}")
            M = sp.csr_matrix(arr)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"A cannot be read as a matrix: {exc}") from None
    if not (np.issubdtype(M.dtype, np.floating) or np.issubdtype(M.dtype, np.complexfloating)):
        M = M.astype(np.float64)
    M.sum_duplicates()
    M.sort_indices()
    M.eliminate_zeros()
    return M


def content_hash(A: sp.csr_matrix, b: np.ndarray) -> str:
    """Hash the exact bytes of a CSR matrix and right-hand side.

    Parameters
    ----------
    A : scipy.sparse.csr_matrix
        Canonical CSR matrix (sorted indices, no duplicates, no explicit zeros).
    b : numpy.ndarray
        Right-hand side.

    Returns
    -------
    str
        First 16 hex digits of a SHA-256 over shape, dtypes and buffers.
    """
    h = hashlib.sha256()
    h.update(repr((A.shape, str(A.dtype), str(b.dtype))).encode())
    for arr in (A.indptr.astype(np.int64), A.indices.astype(np.int64), A.data, b):
        h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()[:16]


@dataclass(frozen=True, eq=False)
class LinearSystem:
    """A square linear system ``A x = b``.

    Parameters
    ----------
    A : array_like or scipy.sparse matrix
        Square coefficient matrix; stored as canonical CSR.
    b : array_like
        Right-hand side of length ``A.shape[0]``.
    meta : dict, optional
        Free-form metadata (family, scene, step, scale factors, ...).
    x_ref : array_like, optional
        Reference solution, when known.

    Attributes
    ----------
    system_id : str
        Content hash of ``A`` and ``b``: equal systems share an id.

    Raises
    ------
    InputError
        If ``A`` is not square, sizes disagree, or any entry is NaN or infinite.
    """

    A: sp.csr_matrix
    b: np.ndarray
    meta: dict = field(default_factory=dict)
    x_ref: np.ndarray | None = None
    system_id: str = field(init=False)  # set by __post_init__

    def __post_init__(self) -> None:
        A = _as_csr(self.A)
        b = np.asarray(self.b)
        if b.ndim != 1:
            raise InputError(f"b must be a vector, got an array of shape {b.shape}")
        if not (np.issubdtype(b.dtype, np.floating) or np.issubdtype(b.dtype, np.complexfloating)):
            b = b.astype(np.float64)
        if A.shape[0] != A.shape[1]:
            raise InputError(f"A must be square, got shape {A.shape[0]}x{A.shape[1]}")
        if A.shape[0] == 0:
            raise InputError("A is empty (0x0)")
        if b.shape[0] != A.shape[0]:
            raise InputError(f"A and b sizes differ: A is {A.shape[0]}x{A.shape[1]}, b has {b.shape[0]} entries")
        if not np.all(np.isfinite(A.data)):
            raise InputError(f"A contains {np.count_nonzero(~np.isfinite(A.data))} NaN or infinite entries")
        if not np.all(np.isfinite(b)):
            raise InputError(f"b contains {np.count_nonzero(~np.isfinite(b))} NaN or infinite entries")
        x_ref = self.x_ref
        if x_ref is not None:
            x_ref = np.asarray(x_ref)
            if x_ref.shape != b.shape:
                raise InputError(f"x_ref has shape {x_ref.shape}, expected {b.shape}")
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "b", b)
        object.__setattr__(self, "x_ref", x_ref)
        object.__setattr__(self, "meta", dict(self.meta))
        object.__setattr__(self, "system_id", content_hash(A, b))

    @property
    def dim(self) -> int:
        """Number of unknowns."""
        return int(self.A.shape[0])

    @property
    def nnz(self) -> int:
        """Number of stored non-zeros of ``A``."""
        return int(self.A.nnz)

    @property
    def is_complex(self) -> bool:
        """Whether ``A`` or ``b`` has a complex dtype."""
        return bool(np.iscomplexobj(self.A.data) or np.iscomplexobj(self.b))

    def with_reference(self, x_ref: np.ndarray) -> LinearSystem:
        """Return a copy carrying the given reference solution."""
        return LinearSystem(self.A, self.b, self.meta, x_ref)

    def __repr__(self) -> str:
        fam = self.meta.get("family", "?")
        return f"LinearSystem(id={self.system_id}, dim={self.dim}, nnz={self.nnz}, family={fam!r})"
