"""Pauli decompositions of linear systems, for VQLS and for counting what it would cost."""

from qlsbench.pauli.decomposition import PauliDecomposition, count_terms, decompose, max_terms

__all__ = ["PauliDecomposition", "count_terms", "decompose", "max_terms"]
