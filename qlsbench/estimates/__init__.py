"""What a fault-tolerant linear solver would cost on a system, end to end: logical counts, then physical.

Blocks: loading data (:func:`lookup`, :func:`state_preparation`), block encodings (:func:`sparse_access`,
:func:`pauli_lcu`), one solve (:func:`one_solve`: QSVT or the discrete adiabatic walk, ``U_b`` included), the
output (:func:`repetitions`: one observable by amplitude estimation, or all of ``x`` by sampling) and the
physical layer (:func:`physical`: Microsoft's Resource Estimator under :data:`HARDWARE_MODELS`). Each module's
docstring gives its formulas and their sources. :func:`crosscheck_loading` sets the loading counts beside
Qualtran's count of the same bloqs.
"""

from qlsbench.estimates._crosscheck import crosscheck_loading, lookup_row, map_lookups, require_qualtran
from qlsbench.estimates._encodings import pauli_lcu, sparse_access
from qlsbench.estimates._loading import BITS, lookup, state_preparation
from qlsbench.estimates._physical import ERROR_BUDGET, HARDWARE_MODELS, LONGEST, estimator_available, physical
from qlsbench.estimates._pipeline import READOUTS, SOLVERS, one_solve, repetitions, solver_queries

__all__ = [
    "BITS",
    "ERROR_BUDGET",
    "HARDWARE_MODELS",
    "LONGEST",
    "READOUTS",
    "SOLVERS",
    "crosscheck_loading",
    "estimator_available",
    "lookup",
    "lookup_row",
    "map_lookups",
    "one_solve",
    "pauli_lcu",
    "physical",
    "repetitions",
    "require_qualtran",
    "solver_queries",
    "sparse_access",
    "state_preparation",
]
