"""Block encodings of ``A``: by sparse access (the one that scales for sparse matrices) and by Pauli LCU.

A block encoding of ``A / alpha`` is what a quantum linear solver queries; its cost per query and its
normalisation ``alpha`` (the larger, the more queries: the solver sees ``kappa_eff = alpha / sigma_min``) decide
the solver's cost.

Sparse access (Gilyen, Su, Low and Wiebe, STOC 2019, lemma 48; explicit circuits in Camps, Lin, Van Beeumen and
Yang, SIAM J. Matrix Anal. Appl. 45, 801 (2024)): for ``A`` with at most ``s`` nonzeros in any row or column and
``|A_ij| <= max_abs``, one query uses the row oracle ``O_r`` and the column oracle ``O_c`` once each and the
value oracle ``O_A`` twice, on ``n`` system qubits, ``ceil(log2 s)`` index qubits and one rotation qubit, and
encodes ``A / (s max_abs)``. Our matrices come from simulations and have no formula for their entries, so each
oracle is a table lookup (:func:`~qlsbench.estimates.lookup`) over the ``N s`` slots of the sparsity pattern:
``O_r`` and ``O_c`` read an ``n``-bit index, ``O_A`` a ``bits``-bit value that a phase-gradient addition turns into
the rotation (``bits`` Toffolis). Camps et al.'s structured circuits are cheaper where the entries follow a
pattern (the Laplacian's few distinct values); the lookup is what unstructured data costs.

Pauli LCU (:func:`qlsbench.pauli.block_encoding`): ``SELECT`` by unary iteration over the ``L`` terms and
``PREPARE`` by a rotation tree; ``alpha`` is the terms' 1-norm.
"""

from __future__ import annotations

import math

from qlsbench.checks import whole_number
from qlsbench.estimates._loading import BITS, lookup
from qlsbench.pauli import block_encoding


def sparse_access(dim: int, s: int, max_abs: float, bits: int = BITS) -> dict[str, float | int | str]:
    """Normalisation, Toffolis and rotations per query, and qubits, of the sparse-access block encoding.

    Parameters
    ----------
    dim : int
        Unknowns ``N`` (the system register has ``ceil(log2 N)`` qubits).
    s : int
        Largest number of nonzeros in a row or column.
    max_abs : float
        Largest ``|A_ij|``.
    bits : int, optional
        Bits of an index-independent value (matrix entries).
    """
    dim = whole_number(dim, "sparse access: dim", low=1)
    s = whole_number(s, "sparse access: s", low=1)
    n = max(1, math.ceil(math.log2(dim)))
    index = max(1, math.ceil(math.log2(s)))
    slots = dim * s
    indices, values = lookup(slots, n), lookup(slots, bits)
    return {
        "encoding": "sparse-access",
        "alpha": float(s * max_abs),
        "toffolis_per_query": 2 * indices["toffolis"] + 2 * (values["toffolis"] + bits),
        "rotations_per_query": 0,
        "qubits": n + index + 1 + n + bits + bits + max(indices["ancillas"], values["ancillas"]),
    }


def pauli_lcu(n_qubits: int, terms: int, alpha: float) -> dict[str, float | int | str]:
    """The same record for the Pauli LCU encoding of ``terms`` strings with 1-norm ``alpha``."""
    counts = block_encoding(n_qubits, terms)
    return {
        "encoding": "pauli-lcu",
        "alpha": float(alpha),
        "toffolis_per_query": counts["select_toffolis"],
        # PREPARE and its inverse: the rotation tree twice per query
        "rotations_per_query": 2 * counts["prepare_rotations"],
        "qubits": counts["qubits"] + counts["work_qubits"],
    }
