"""The advantage map: how a physics family's systems grow, the best classical solver measured on them, and a
fault-tolerant quantum solver estimated end to end (:mod:`qlsbench.estimates`) beside it.

:func:`classical_best` measures every applicable classical method's time to a quantum solver's accuracy
(:data:`METHODS`, one line per method); :func:`grown` builds a family's system at a size of its growth axis
(:data:`AXES`, one line per family); :func:`sweep` runs an axis, resumably, into three Parquet tables;
:func:`crossover_table` fits both sides' growth and says where, if anywhere, they cross.
"""

from qlsbench.bench.advantage._classical import (
    METHODS,
    REPEATS,
    applicable,
    cholmod_installed,
    classical_best,
    matrix_kind,
    time_to_accuracy,
)
from qlsbench.bench.advantage._growth import AXES, check_sizes, grown, growth_checkpoint
from qlsbench.bench.advantage._map import (
    ANCHOR_STEPS,
    Fit,
    anchor_ablation,
    best_classical,
    cheapest_quantum,
    crossover,
    crossover_table,
    power_fit,
)
from qlsbench.bench.advantage._sweep import EPSILONS, TABLES, sweep, write_dataset

__all__ = [
    "ANCHOR_STEPS",
    "anchor_ablation",
    "AXES",
    "EPSILONS",
    "METHODS",
    "REPEATS",
    "Fit",
    "applicable",
    "cholmod_installed",
    "best_classical",
    "cheapest_quantum",
    "check_sizes",
    "classical_best",
    "crossover",
    "crossover_table",
    "grown",
    "growth_checkpoint",
    "matrix_kind",
    "power_fit",
    "TABLES",
    "sweep",
    "time_to_accuracy",
    "write_dataset",
]
