"""The advantage map: how a physics family's systems grow, the best classical solver measured on them, and a
fault-tolerant quantum solver estimated end to end (:mod:`qlsbench.estimates`) beside it.

:func:`classical_best` measures every applicable classical method's time to a quantum solver's accuracy
(:data:`METHODS`, one line per method).
"""

from qlsbench.bench.advantage._classical import METHODS, applicable, classical_best, matrix_kind, time_to_accuracy

__all__ = ["METHODS", "applicable", "classical_best", "matrix_kind", "time_to_accuracy"]
