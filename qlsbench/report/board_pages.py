"""The published board's pages: ``leaderboard.md`` and ``.csv`` with the pinned set listed, and the budget curves."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from qlsbench.bench.board import Board, pinned_table, publish_results
from qlsbench.bench.ranking import LOW_ACCURACY, Tolerances
from qlsbench.report.budget_curves import plot_budget_curves
from qlsbench.report.leaderboard_page import write_leaderboard


def publish(board: Board, results_dir: str | os.PathLike, pages: str | os.PathLike,
            tol: Tolerances = Tolerances(), low: Tolerances = LOW_ACCURACY) -> pd.DataFrame:
    """Publish a board run: ``results.parquet`` beside the pinned set, its pages in ``pages``; returns the rows."""
    results = publish_results(board, results_dir)
    render_board(board, results, pages, tol, low)
    return results


def _preamble(board: Board) -> str:
    manifest = board.manifest()
    return (f"Pinned benchmark set v{manifest['version']}: {len(manifest['systems'])} systems in "
            f"{len(manifest['groups'])} groups ({', '.join(f'`{g}` {h}' for g, h in manifest['groups'].items())}). "
            "Every solver ran on every system; `qlsbench compare --solver module:Class` ranks a new one "
            "against these rows without running them again.")


def render_board(board: Board, results: pd.DataFrame, pages: str | os.PathLike, tol: Tolerances = Tolerances(),
                 low: Tolerances = LOW_ACCURACY) -> None:
    """Write ``leaderboard.md`` (with the pinned set listed), ``leaderboard.csv`` and, when solvers recorded
    progress, ``budget_curves.png`` (success against cost evaluations) into ``pages``."""
    pages = Path(pages)
    if results["progress_evaluations"].map(lambda v: v is not None and len(v) > 0).any():
        plot_budget_curves(results, pages / "budget_curves.png", tol=low)
    write_leaderboard(results, pages / "leaderboard.md", pages / "leaderboard.csv", tol, low,
                      title="qlsbench leaderboard v1", preamble=_preamble(board), by="dataset",
                      extra=[("h2", "The pinned set"), ("table", pinned_table(board))])


