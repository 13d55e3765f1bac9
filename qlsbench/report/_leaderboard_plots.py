"""The leaderboard's plots: performance profiles, success against qubits per family, fidelity against kappa.

Each plot draws both tracks (:func:`qlsbench.bench.ranking.tracks`), one row
each, from per-system rows: a solver is drawn on the systems it was run on.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from qlsbench.bench._results import load_results
from qlsbench.bench.ranking import Track, per_system, tracks
from qlsbench.report._base import Figure, Job
from qlsbench.report._plotting import pyplot, save_figure
from qlsbench.report._styles import solver_styles


def _legend_outside(fig, axes, columns: int = 1) -> None:
    """One legend for the figure, right of the panels, so it never covers a curve; labels in the order first met."""
    handles, labels = [], []
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(h)
                labels.append(label)
    fig.legend(handles, labels, fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5), ncol=columns, frameon=False)


def profile(systems: pd.DataFrame, taus: np.ndarray) -> pd.DataFrame:
    """Dolan-More performance profile: per solver, the share of its systems solved within ``tau`` x the best time.

    The best time of a system is the fastest successful solve of it by any
    solver; an unsuccessful solve is never within any ``tau``.
    """
    solved = systems[systems["success"] >= 0.5]
    best = solved.groupby("system_key")["time_ms"].min()
    ratio = systems["time_ms"] / systems["system_key"].map(best)
    ratio = ratio.where(systems["success"] >= 0.5, np.inf)
    rows = []
    for solver, r in ratio.groupby(systems["solver"]):
        values = np.sort(r.to_numpy())
        share = np.searchsorted(values, taus, side="right") / len(values)
        rows.append(pd.DataFrame({"solver": solver, "tau": taus, "share": share}))
    return pd.concat(rows, ignore_index=True)


def plot_performance_profiles(results: pd.DataFrame, out: str | os.PathLike, all_tracks: tuple[Track, ...]) -> Path:
    """One panel per track: share of systems solved within tau x the fastest solver's time (log tau)."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(all_tracks), figsize=(6.2 * len(all_tracks), 4.4), squeeze=False)
    styles = solver_styles(results["solver"])
    for ax, track in zip(axes[0], all_tracks):
        systems = per_system(results, track.tol, by_dataset=False)
        taus = np.logspace(0, 7, 200)
        for solver, c in profile(systems, taus).groupby("solver", sort=True):
            style = styles[solver]
            ax.step(
                c["tau"],
                c["share"],
                where="post",
                color=style.color,
                marker=style.mpl_marker,
                markevery=25,
                ms=4,
                label=solver,
            )
        ax.set(
            xscale="log",
            ylim=(-0.02, 1.02),
            xlabel="tau (time / fastest solver's time on the system)",
            ylabel="share of the solver's systems",
            title=f"{track.name} track\n{textwrap.fill(track.tol.describe(), 70)}",
        )
        ax.title.set_fontsize(8)
    fig.tight_layout()
    _legend_outside(fig, axes[0])
    return save_figure(fig, out, tight=True)


def plot_success_by_qubits(results: pd.DataFrame, out: str | os.PathLike, all_tracks: tuple[Track, ...]) -> Path:
    """Rows: tracks; columns: families; success rate against qubits, one line per solver."""
    plt = pyplot()
    families = sorted(results["family"].dropna().astype(str).unique())
    fig, axes = plt.subplots(
        len(all_tracks),
        len(families),
        figsize=(3.8 * len(families) + 2, 3.2 * len(all_tracks)),
        squeeze=False,
        sharey=True,
    )
    styles = solver_styles(results["solver"])
    for row, track in zip(axes, all_tracks):
        systems = per_system(results, track.tol, by_dataset=False)
        for ax, family in zip(row, families):
            part = systems[systems["family"].astype(str) == family]
            rates = part.groupby(["solver", "n_qubits"])["success"].mean().reset_index()
            for solver, c in rates.groupby("solver", sort=True):
                ax.plot(
                    c["n_qubits"],
                    c["success"],
                    marker=styles[solver].mpl_marker,
                    ms=4,
                    color=styles[solver].color,
                    label=solver,
                )
            ax.set(ylim=(-0.05, 1.05), xlabel="qubits", title=f"{family} ({track.name})")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.title.set_fontsize(8)
        row[0].set_ylabel("success rate")
    fig.tight_layout()
    _legend_outside(fig, axes.flat)
    return save_figure(fig, out, tight=True)


def plot_fidelity_by_kappa(results: pd.DataFrame, out: str | os.PathLike, all_tracks: tuple[Track, ...]) -> Path:
    """Median fidelity of each solve against the system's condition number, one marker colour per solver."""
    plt = pyplot()
    systems = per_system(results, all_tracks[0].tol, by_dataset=False)
    systems = systems[systems["solves"] > 0]  # a system the solver only declined has no state to draw
    fig, ax = plt.subplots(figsize=(8, 4.6))
    styles = solver_styles(results["solver"])
    for solver, c in systems.groupby("solver", sort=True):
        kappa = c["cond"].where(np.isfinite(c["cond"]), np.nan)
        ax.scatter(
            kappa,
            1 - c["fidelity"] + 1e-16,
            s=14,
            color=styles[solver].color,
            marker=styles[solver].mpl_marker,
            alpha=0.75,
            label=solver,
        )
    bar = 1 - all_tracks[-1].tol.fidelity
    ax.axhline(bar, color="k", lw=0.8, ls="--", label=f"fidelity {all_tracks[-1].tol.fidelity:g}")
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="condition number κ",
        ylabel="1 − fidelity (median over repeats)",
        title="Infidelity against κ (below the dashed line: fidelity bar met)",
    )
    ax.title.set_fontsize(9)
    fig.tight_layout()
    _legend_outside(fig, [ax])
    return save_figure(fig, out, tight=True)


def _drawer(plot):
    def draw(inputs: list[str], out: Path, options) -> Path:
        return plot(load_results(inputs), out, tracks())

    return draw


def board_plot(name: str, drawn: Callable[[Any], bool] = lambda config: True) -> Job:
    """The workflow's job for the leaderboard's plot ``name``: every results file in, one rule for all of the
    leaderboard's plots (``{figure}`` is the plot's name); ``drawn(config)`` says whether the config asks for it."""
    return Job(
        "leaderboard_figure",
        "results/figures/{figure}.png",
        targets=lambda config: [f"results/figures/{name}.png"] if drawn(config) else [],
        inputs=lambda config, wc: config.solver_results(),
        log="logs/leaderboard_figure/{figure}.log",
        caption="leaderboard_plots.rst",
        category="Leaderboard",
    )


PROFILES = Figure(
    "performance-profile",
    "Dolan-More performance profiles, exact and variational track: share of "
    "systems solved within tau x the fastest time",
    "results .parquet files or folders",
    _drawer(plot_performance_profiles),
    job=board_plot("performance-profile"),
)
SUCCESS_QUBITS = Figure(
    "success-qubits",
    "success rate against qubits, per family, both tracks",
    "results .parquet files or folders",
    _drawer(plot_success_by_qubits),
    job=board_plot("success-qubits"),
)
FIDELITY_KAPPA = Figure(
    "fidelity-kappa",
    "infidelity of each solve against the system's condition number",
    "results .parquet files or folders",
    _drawer(plot_fidelity_by_kappa),
    job=board_plot("fidelity-kappa"),
)
