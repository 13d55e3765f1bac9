"""Benchmarking: run solvers over datasets, store and read results, rank them, and the pinned board.

The figures and pages drawn from results are :mod:`qlsbench.report`'s.
"""

from qlsbench.bench._metrics import metrics
from qlsbench.bench.ranking import LOW_ACCURACY, Tolerances, leaderboard
from qlsbench.bench._results import load_results, read_results
from qlsbench.bench._runner import SolverSpec, add_repeats, run_solver

__all__ = [
    "LOW_ACCURACY",
    "SolverSpec",
    "Tolerances",
    "add_repeats",
    "leaderboard",
    "load_results",
    "metrics",
    "read_results",
    "run_solver",
]
