"""Pauli decompositions of linear systems, for VQLS and for counting what it would cost."""

from qlsbench.pauli.decomposition import (
    PauliDecomposition,
    coefficient_table,
    count_terms,
    decompose,
    max_terms,
    xor_patterns,
)

__all__ = ["PauliDecomposition", "coefficient_table", "count_terms", "decompose", "max_terms", "xor_patterns"]
