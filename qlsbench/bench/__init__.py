"""Benchmarking: metrics, the solver-matrix runner and the leaderboard."""

from qlsbench.bench.leaderboard import Tolerances, leaderboard, render_markdown, write_leaderboard
from qlsbench.bench.metrics import metrics
from qlsbench.bench.runner import SolverSpec, load_results, run_solver

__all__ = ["SolverSpec", "Tolerances", "leaderboard", "load_results", "metrics", "render_markdown",
           "run_solver", "write_leaderboard"]
