"""Success against budget as a figure: one colour per solver, solid the best seed, dashed the median."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from qlsbench.bench.budget import success_curve
from qlsbench.bench.ranking import LOW_ACCURACY, Tolerances
from qlsbench.bench.results import load_results
from qlsbench.errors import InputError
from qlsbench.options import Options, option
from qlsbench.report.base import Figure
from qlsbench.report.plotting import pyplot, save_figure


def plot_budget_curves(results: pd.DataFrame, out: str | os.PathLike, *, solvers: list[str] | None = None,
                       tol: Tolerances = LOW_ACCURACY) -> Path:
    """Success against cost evaluations (log axis), one colour per solver: solid best seed, dashed median."""
    if solvers:
        unknown = sorted(set(solvers) - set(results["solver"]))
        if unknown:
            raise InputError(f"no results for solver(s) {', '.join(unknown)}")
        results = results[results["solver"].isin(solvers)]
    curves = success_curve(results, tol)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, (solver, c) in enumerate(curves.groupby("solver", sort=True)):
        color = f"C{i % 10}"
        label = f"{solver} ({int(c['systems'].iloc[0])} systems, {int(c['seeds'].iloc[0])} seed(s))"
        ax.step(c["evaluations"], c["best"], where="post", color=color, label=label)
        if c["seeds"].iloc[0] > 1:
            ax.step(c["evaluations"], c["median"], where="post", color=color, linestyle="--")
    ax.set_xscale("log")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("cost evaluations")
    ax.set_ylabel("share of systems solved")
    ax.set_title(f"Success against budget (fidelity >= {tol.fidelity:g}, residual <= {tol.residual:g}); "
                 "dashed: median seed", fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return save_figure(fig, out)


@dataclass(frozen=True)
class BudgetCurveOptions(Options):
    solvers: tuple[str, ...] | None = option(None, "solver labels (default: every solver with progress read-outs)",
                                             many=True)


def _draw(inputs: list[str], out: Path, options: BudgetCurveOptions) -> Path:
    try:
        return plot_budget_curves(load_results(inputs), out, solvers=options.solvers and list(options.solvers))
    except InputError as exc:
        raise InputError(f"{', '.join(inputs)}: {exc}") from None


FIGURE = Figure("budget-curves", "success against cost evaluations of variational solvers, best and median seed",
                "results .parquet files or folders", _draw, BudgetCurveOptions)
