"""Rank solvers from results files, in the style of qpbenchmark.

Success rate at stated tolerances comes first. Then shifted geometric means
``exp(mean(log(v + shift))) - shift`` of time and error, divided by the best
solver's so the best is 1.0. Unsuccessful solves are penalised rather than
dropped, so a solver cannot look fast by failing fast: their time counts as
the time limit (or their own time when no limit was set) and their error as
at least 1.0, the error of returning zero. Errors are floored at the accuracy
of the reference solution itself, ``cond * eps``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from qlsbench.bench.environment import machine_info, package_versions
from qlsbench.errors import InputError


@dataclass(frozen=True)
class Tolerances:
    """What counts as a successful solve, and the geometric-mean shift."""

    fidelity: float = 0.99
    residual: float = 1e-6
    shift: float = 10.0  # applied to time in milliseconds and to relative error

    def __post_init__(self) -> None:
        if not 0 < self.fidelity <= 1:
            raise InputError(f"fidelity tolerance must be in (0, 1], got {self.fidelity}")
        if self.residual <= 0:
            raise InputError(f"residual tolerance must be > 0, got {self.residual}")
        if self.shift <= 0:
            raise InputError(f"shift must be > 0, got {self.shift}")


def shifted_geometric_mean(values: np.ndarray, shift: float) -> float:
    """``exp(mean(log(v + shift))) - shift``, evaluated without cancellation.

    The textbook form subtracts two numbers near ``shift`` and loses every
    digit when the values are far below it (relative errors of 1e-14 against
    a shift of 10). The equivalent ``shift * expm1(mean(log1p(v / shift)))``
    keeps full relative precision; for values far below the shift it tends to
    their arithmetic mean.
    """
    v = np.asarray(values, dtype=float)
    return float(shift * np.expm1(np.mean(np.log1p(v / shift))))


def mark_success(results: pd.DataFrame, tol: Tolerances) -> pd.DataFrame:
    """Add ``success``, penalised ``time_ms`` and penalised ``error`` columns."""
    df = results.copy()
    df["success"] = ((df["status"] == "converged") & (df["fidelity"] >= tol.fidelity)
                     & (df["rel_residual"] <= tol.residual))
    limit = df["time_limit"].where(df["time_limit"].notna(), df["wall_time"])
    df["time_ms"] = 1e3 * df["wall_time"].where(df["success"], np.maximum(limit, df["wall_time"]))
    # x_ref is itself a float64 direct solve, accurate only to about cond * eps:
    # smaller errors cannot be told apart, and ranking them would reward luck.
    cond = df["cond"].where(np.isfinite(df["cond"]), 1.0)
    floor = np.finfo(float).eps * np.maximum(cond, 1.0)
    err = df["rel_error"].where(np.isfinite(df["rel_error"]), 1.0)
    err = np.maximum(err, floor)
    df["error"] = err.where(df["success"], np.maximum(err, 1.0))
    return df


def leaderboard(results: pd.DataFrame, tol: Tolerances = Tolerances()) -> pd.DataFrame:
    """One row per solver label, best first.

    Parameters
    ----------
    results : pandas.DataFrame
        Rows as written by :func:`qlsbench.bench.runner.run_solver`.
    tol : Tolerances
        Success tolerances and shift.

    Returns
    -------
    pandas.DataFrame
        ``solver, solves, success_rate, time_sgm_rel, error_sgm_rel,
        time_sgm_ms, error_sgm, median_time_ms``, sorted by success rate
        (descending) then relative time.
    """
    if results.empty:
        raise InputError("no results to rank")
    df = mark_success(results, tol)
    g = df.groupby("solver", sort=True)
    board = pd.DataFrame({
        "solves": g.size(),
        "success_rate": g["success"].mean(),
        "time_sgm_ms": g["time_ms"].apply(lambda v: shifted_geometric_mean(v, tol.shift)),
        "error_sgm": g["error"].apply(lambda v: shifted_geometric_mean(v, tol.shift)),
        "median_time_ms": g["time_ms"].median(),
    })
    board["time_sgm_rel"] = board["time_sgm_ms"] / board["time_sgm_ms"].min()
    board["error_sgm_rel"] = board["error_sgm"] / board["error_sgm"].min()
    board = board.reset_index().sort_values(["success_rate", "time_sgm_rel"], ascending=[False, True])
    cols = ["solver", "solves", "success_rate", "time_sgm_rel", "error_sgm_rel", "time_sgm_ms",
            "error_sgm", "median_time_ms"]
    return board[cols].reset_index(drop=True)


def success_by_dataset(results: pd.DataFrame, tol: Tolerances = Tolerances()) -> pd.DataFrame:
    """Success rate of each solver (rows) on each dataset (columns)."""
    df = mark_success(results, tol)
    return df.pivot_table(index="solver", columns="dataset", values="success", aggfunc="mean")


def _markdown_table(df: pd.DataFrame, floatfmt: str = ".3g") -> str:
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        cells = [format(v, floatfmt) if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render_markdown(results: pd.DataFrame, tol: Tolerances = Tolerances()) -> str:
    """The leaderboard page: header, ranking, per-dataset success rates."""
    board = leaderboard(results, tol)
    info = machine_info()
    versions = ", ".join(f"{k} {v}" for k, v in package_versions().items())
    hashes = results.groupby("dataset")["dataset_hash"].agg(lambda s: ", ".join(sorted(set(s))))
    out = [
        "# qlsbench leaderboard",
        "",
        f"- **date**: {info['date']}",
        f"- **machine**: {info['cpu']}, {info['cores']} cores, {info['memory']}, {info['os']}, Python {info['python']}",
        f"- **packages**: {versions}",
        f"- **success**: status `converged`, fidelity >= {tol.fidelity:g} and relative residual <= {tol.residual:g}",
        f"- **ranking**: shifted geometric means (shift {tol.shift:g}) of time in ms and of relative error, "
        "normalised so the best solver is 1.0; unsuccessful solves count at the time limit and at error >= 1",
        "- **datasets**: " + "; ".join(f"`{d}` ({h})" for d, h in hashes.items()),
        "",
        "## Ranking",
        "",
        _markdown_table(board),
        "",
        "## Success rate by dataset",
        "",
        _markdown_table(success_by_dataset(results, tol).reset_index()),
        "",
    ]
    return "\n".join(out)


def write_leaderboard(results: pd.DataFrame, md_path: str | os.PathLike, csv_path: str | os.PathLike,
                      tol: Tolerances = Tolerances()) -> None:
    """Write ``leaderboard.md`` and ``leaderboard.csv`` atomically."""
    for path, text in ((md_path, render_markdown(results, tol)),
                       (csv_path, leaderboard(results, tol).to_csv(index=False))):
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
