"""Pauli decompositions of linear systems, for VQLS and for counting what it would cost.

The public names: the decomposition (:func:`decompose`, :class:`PauliDecomposition`, term counts), its
linear-combination-of-unitaries form and truncation (``lcu_*``, :func:`truncated`), the truncation and reordering
studies, and the fault-tolerant resource estimates (:func:`estimate`). The modules behind them are internal.
"""

from qlsbench.pauli._decomposition import (
    PauliDecomposition,
    coefficient_table,
    count_terms,
    decompose,
    max_terms,
    xor_patterns,
)
from qlsbench.pauli._estimates import (
    ADIABATIC_BOUND,
    ADIABATIC_PRACTICAL,
    adiabatic_queries,
    block_encoding,
    estimate,
    qsvt_degree,
)
from qlsbench.pauli._lcu import LCU_TOLS, from_symplectic, kept_mask, lcu_form, lcu_summary, tol_label, truncated
from qlsbench.pauli._truncation import gray_code, orderings, reordering_study, truncation_study

__all__ = [
    "ADIABATIC_BOUND",
    "ADIABATIC_PRACTICAL",
    "LCU_TOLS",
    "PauliDecomposition",
    "adiabatic_queries",
    "block_encoding",
    "coefficient_table",
    "count_terms",
    "decompose",
    "estimate",
    "from_symplectic",
    "gray_code",
    "kept_mask",
    "lcu_form",
    "lcu_summary",
    "max_terms",
    "orderings",
    "qsvt_degree",
    "reordering_study",
    "tol_label",
    "truncated",
    "truncation_study",
    "xor_patterns",
]
