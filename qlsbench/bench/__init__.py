"""Benchmarking: run solvers over datasets, store and read results, rank them, and the pinned board.

The names below are the package's public surface; the modules behind them
(``_runner``, ``_results``, ``_metrics``, ...) are internal and may move.
Subpackages are public in their own right: :mod:`~qlsbench.bench.board` (the
pinned board), :mod:`~qlsbench.bench.in_loop` (solvers inside a simulation's
Newton loop), :mod:`~qlsbench.bench.ranking` (the leaderboard's tables) and
:mod:`~qlsbench.bench.spread` (the rules over seeds that the shipped pages cite
by that name). The study tables, budget curves, checkpoints and shard merging
are imported when first asked for (PEP 562): they bring the Pauli kernels and
more that running a solver does not need.

The figures and pages drawn from results are :mod:`qlsbench.report`'s.
"""

from qlsbench.bench._metrics import metrics, rhs_fidelity
from qlsbench.bench._results import RESULTS_VERSION_KEY, load_results, read_results
from qlsbench.bench._runner import SolverSpec, add_repeats, run_solver
from qlsbench.bench.ranking import LOW_ACCURACY, Tolerances, leaderboard

#: Names imported on first use, by the internal module that holds them (its name in it, when different).
_LAZY = {
    "Checkpoint": ("_checkpoints", "Checkpoint"),
    "checkpoint_path": ("_checkpoints", "checkpoint_path"),
    "run_key": ("_checkpoints", "run_key"),
    "samples_per_evaluation": ("_budget", "samples_per_evaluation"),
    "success_curve": ("_budget", "success_curve"),
    "pauli_study": ("_pauli_study", "pauli_study"),
    "read_pauli_results": ("_pauli_study", "read_pauli_results"),
    "lcu_table": ("_pauli_study", "lcu_table"),
    "resource_table": ("_pauli_study", "resource_table"),
    "merge_shards": ("_shards", "merge"),
}

__all__ = [
    "LOW_ACCURACY",
    "RESULTS_VERSION_KEY",
    "Checkpoint",
    "SolverSpec",
    "Tolerances",
    "add_repeats",
    "checkpoint_path",
    "lcu_table",
    "leaderboard",
    "load_results",
    "merge_shards",
    "metrics",
    "pauli_study",
    "read_pauli_results",
    "read_results",
    "resource_table",
    "rhs_fidelity",
    "run_key",
    "run_solver",
    "samples_per_evaluation",
    "success_curve",
]


def __getattr__(name: str):
    """A name of :data:`_LAZY`, imported from its internal module when first asked for (PEP 562)."""
    if name in _LAZY:
        from importlib import import_module

        module, attribute = _LAZY[name]
        return getattr(import_module(f"qlsbench.bench.{module}"), attribute)
    raise AttributeError(f"module 'qlsbench.bench' has no attribute {name!r}")
