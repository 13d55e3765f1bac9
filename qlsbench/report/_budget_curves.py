"""Success against budget as a figure: one colour per solver, solid the best seed, dashed the median."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from qlsbench.bench._budget import AXES, success_curve
from qlsbench.bench._results import load_results
from qlsbench.bench.ranking import LOW_ACCURACY, Tolerances, band_order
from qlsbench.errors import InputError
from qlsbench.options import Options, option
from qlsbench.report._base import Figure
from qlsbench.report._leaderboard_plots import board_plot
from qlsbench.report._plotting import pyplot, save_figure
from qlsbench.report._styles import solver_styles

#: x-axis labels per budget axis.
AXIS_LABELS = {
    "evaluations": "cost evaluations",
    "seconds": "seconds",
    "samples": "samples drawn (shots x circuits, Monte Carlo samples)",
}


def plot_budget_curves(
    results: pd.DataFrame,
    out: str | os.PathLike,
    *,
    solvers: Sequence[str] | None = None,
    tol: Tolerances = LOW_ACCURACY,
    axis: str = "evaluations",
    by_band: bool = True,
    above: dict | None = None,
) -> Path:
    """Success against budget (log axis), one colour per solver: solid the best seed, dashed the median.

    One panel over all systems, then (``by_band``) one per qubit band;
    ``axis`` is ``evaluations`` (cost evaluations), ``seconds`` (wall time) or
    ``samples`` (measurement outcomes drawn, :func:`~qlsbench.bench._budget.samples_per_evaluation`).
    """
    if solvers:
        unknown = sorted(set(solvers) - set(results["solver"]))
        if unknown:
            raise InputError(f"no results for solver(s) {', '.join(unknown)}")
        results = results[results["solver"].isin(solvers)]
    curves = success_curve(results, tol, axis=axis, above=above)
    if by_band:
        curves = pd.concat(
            [curves, success_curve(results, tol, axis=axis, by_band=True, above=above)], ignore_index=True
        )
    panels = ["all", *sorted(set(curves["band"]) - {"all"}, key=band_order)]
    styles = solver_styles(results["solver"])  # the page's and every figure's colour and marker for a solver
    plt = pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels) + 1.5, 4.2), squeeze=False, sharey=True)
    for ax, band in zip(axes[0], panels):
        for solver, c in curves[curves["band"] == band].groupby("solver", sort=True):
            style = styles[solver]
            ax.step(
                c[axis],
                c["best"],
                where="post",
                color=style.color,
                marker=style.mpl_marker,
                ms=4,
                markevery=max(1, len(c) // 6),
                label=solver,
            )
            if c["seeds"].iloc[0] > 1:
                ax.step(c[axis], c["median"], where="post", color=style.color, linestyle="--")
        ax.set_xscale("log")
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel(AXIS_LABELS[axis])
        ax.set_title("all systems" if band == "all" else f"{band} qubits", fontsize=9)
    axes[0][0].set_ylabel("share of systems solved")
    beyond = ", above returning b" if above else ""
    fig.suptitle(
        f"Success against budget (fidelity >= {tol.fidelity:g}{beyond}, residual <= {tol.residual:g}); "
        "dashed: median seed",
        fontsize=9,
    )
    fig.tight_layout()
    # One legend below the panels (a panel's own legend covered its curves); systems and seeds per solver in it.
    whole = curves[curves["band"] == "all"].groupby("solver", sort=True).first()
    handles = [pyplot().Line2D([], [], color=styles[s].color, marker=styles[s].mpl_marker, ms=4) for s in whole.index]
    labels = [f"{s} ({int(r['systems'])} systems, {int(r['seeds'])} seed(s))" for s, r in whole.iterrows()]
    fig.legend(
        handles,
        labels,
        fontsize=7,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        ncol=min(4, len(labels)),
        frameon=False,
    )
    return save_figure(fig, out, tight=True)


@dataclass(frozen=True)
class BudgetCurveOptions(Options):
    solvers: tuple[str, ...] | None = option(
        None, "solver labels (default: every solver with progress read-outs)", many=True
    )
    axis: str = option(
        "evaluations",
        "budget in cost evaluations, wall-time seconds or samples drawn (shots x circuits, Monte Carlo samples)",
        choices=tuple(AXES),
    )
    by_band: bool = option(True, "a panel per qubit band beside the one over all systems", cli=False)


def _draw(inputs: list[str], out: Path, options: BudgetCurveOptions) -> Path:
    try:
        return plot_budget_curves(
            load_results(inputs),
            out,
            solvers=options.solvers and list(options.solvers),
            axis=options.axis,
            by_band=options.by_band,
        )
    except InputError as exc:
        raise InputError(f"{', '.join(inputs)}: {exc}") from None


FIGURE = Figure(
    "budget-curves",
    "success against cost evaluations (or wall time) of variational solvers, best "
    "and median seed, over all systems and per qubit band",
    "results .parquet files or folders",
    _draw,
    BudgetCurveOptions,
    # drawn when a configured solver is variational (qlsbench.solvers.registry.is_variational)
    job=board_plot("budget-curves", drawn=lambda config: bool(config.variational_solvers())),
)
