"""Loss curves of variational solvers from results files: the paper's fig. 2 (and fig. 4).

One panel per solver label, one curve per system (labelled by qubit count and
condition number). With one seed, the raw loss is drawn faint and over it the
curve de-noised with a Savitzky-Golay filter, as in De et al.; with several,
the median of the de-noised curves and the band between their quartiles.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.signal import savgol_filter

from qlsbench.bench._results import load_results
from qlsbench.bench.spread import Spread
from qlsbench.checks import COUNT
from qlsbench.errors import InputError
from qlsbench.options import Options, option
from qlsbench.report._base import Figure, Job
from qlsbench.report._plotting import pyplot, save_figure


def smooth(history: np.ndarray, window: int = 51, order: int = 3) -> np.ndarray:
    """Savitzky-Golay de-noising of a loss curve (the window shrinks to fit short curves)."""
    history = np.asarray(history, dtype=float)
    w = min(window, len(history))
    w -= 1 - w % 2  # the filter needs an odd window
    if w <= order:
        return history
    return savgol_filter(history, w, order)


def _trend(history, window: int, positive: bool) -> np.ndarray:
    """A loss curve de-noised: in log space on a log axis (no false dips), linearly otherwise."""
    h = np.asarray(history, dtype=float)
    return 10 ** smooth(np.log10(h), window) if positive else smooth(h, window)


def _draw_system(ax, solves: pd.DataFrame, colour: str, window: int, positive: bool) -> None:
    """One system's curve: the raw loss and its trend for one seed; over several, the median trend and IQR band.

    Several seeds' de-noised curves are cut to the shortest and drawn as
    their median with the band between the quartiles; the label gives the
    read-out's fidelity and residual over the seeds (median and IQR).
    """
    first = solves.iloc[0]
    name = f"n = {first['n_qubits']}, κ = {first['cond']:.3g}"
    if len(solves) == 1:
        h = np.asarray(first["history"], dtype=float)
        ax.plot(h, color=colour, alpha=0.25, lw=0.8)
        ax.plot(
            _trend(h, window, positive),
            color=colour,
            lw=1.6,
            label=f"{name}: fidelity {first['fidelity']:.4f}, residual {first['rel_residual']:.1e}",
        )
        return
    trends = [_trend(h, window, positive) for h in solves["history"]]
    length = min(len(t) for t in trends)
    q25, median, q75 = np.percentile(np.array([t[:length] for t in trends]), [25, 50, 75], axis=0)
    ax.fill_between(np.arange(length), q25, q75, color=colour, alpha=0.25, lw=0)
    fidelity, residual = Spread.of(solves["fidelity"]), Spread.of(solves["rel_residual"])
    ax.plot(
        median,
        color=colour,
        lw=1.6,
        label=f"{name}: fidelity {fidelity.text('.2f')}, residual {residual.median:.1e} (median)",
    )


def plot_loss_curves(
    results: pd.DataFrame,
    out: str | os.PathLike,
    *,
    solvers: Sequence[str] | None = None,
    n_qubits: Sequence[int] | None = None,
    window: int = 51,
) -> Path:
    """Loss per iteration, one panel per solver, one curve per system: over several seeds, median and IQR band.

    Parameters
    ----------
    results : pandas.DataFrame
        Rows of results files (``qlsbench solve``) with a ``history`` column.
    out : path
        Output image.
    solvers : list of str, optional
        Solver labels (panels), in order; default: every label with a history.
    n_qubits : list of int, optional
        Only systems of these qubit counts.
    window : int
        Savitzky-Golay window (iterations).
    """
    df = results[results["history"].map(lambda h: h is not None and len(h) > 1)]
    if n_qubits:
        df = df[df["n_qubits"].isin(n_qubits)]
    labels = solvers or sorted(df["solver"].unique())
    missing = [s for s in labels if s not in set(df["solver"])]
    if missing or df.empty:
        raise InputError(
            f"no loss histories for solver(s) {', '.join(missing or labels)} "
            f"(qubits {n_qubits or 'any'}) in the results given"
        )
    plt = pyplot()
    # Legends go under the panels: a legend inside would cover the curves it names.
    fig, axes = plt.subplots(1, len(labels), figsize=(5.2 * len(labels), 5.2), squeeze=False)
    for ax, label in zip(axes[0], labels):
        rows = df[df["solver"] == label].drop_duplicates(["system_id", "seed"])
        # Monte Carlo estimates of a loss near 0 go negative: those panels get a symmetric-log axis
        # and linear smoothing; positive ones a log axis, smoothed in log space (no false dips).
        positive = all(min(h) > 0 for h in rows["history"])
        systems = rows.sort_values(["n_qubits", "cond", "seed"]).groupby("system_id", sort=False)
        for k, (_, solves) in enumerate(systems):
            _draw_system(ax, solves, f"C{k % 10}", window, positive)
        if positive:
            ax.set_yscale("log")
        else:
            ax.set_yscale("symlog", linthresh=1e-4)
        seeds = rows.groupby("system_id")["seed"].nunique().max()
        ax.set(xlabel="iteration", title=label if seeds == 1 else f"{label} (median and IQR over {seeds} seeds)")
        ax.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.14), frameon=False)
    axes[0][0].set_ylabel("loss")
    fig.tight_layout()
    return save_figure(fig, out)


@dataclass(frozen=True)
class LossCurveOptions(Options):
    solvers: tuple[str, ...] | None = option(
        None, "solver labels, one panel each (default: all with histories)", many=True
    )
    n_qubits: tuple[int, ...] | None = option(None, "only systems of these qubit counts", bounds=COUNT, many=True)


def _draw(inputs: list[str], out: Path, options: LossCurveOptions) -> Path:
    return plot_loss_curves(
        load_results(inputs),
        out,
        solvers=options.solvers and list(options.solvers),
        n_qubits=options.n_qubits and list(options.n_qubits),
    )


def _job_words(config, wildcards, inputs, outputs) -> list[str]:
    """The config's loss figure ``{figure}``: its solvers (and qubit counts) as options."""
    entry = config.loss_figures()[wildcards["figure"]]
    n_qubits = ["--n-qubits", *map(str, entry["n_qubits"])] if entry.get("n_qubits") else []
    return [*map(str, inputs), "--solvers", *entry["solvers"], *n_qubits, "--out", *map(str, outputs)]


FIGURE = Figure(
    "loss-curves",
    "fig. 2 / fig. 4: loss curves of variational solvers, raw and Savitzky-Golay de-noised",
    "results .parquet files or folders (`qlsbench solve`)",
    _draw,
    LossCurveOptions,
    job=Job(
        "loss_figure",
        "results/figures/{figure}.png",
        targets=lambda config: [f"results/figures/{name}.png" for name in config.loss_figures()],
        inputs=lambda config, wc: config.loss_figure_inputs(wc["figure"]),
        log="logs/loss_figure/{figure}.log",
        words=_job_words,
        caption="loss_curves.rst",
        category="Loss curves (fig. 2, fig. 4)",
        # the config's loss figures only: results/figures/ holds every other figure too
        wildcards=lambda config: {"figure": "|".join(map(re.escape, config.loss_figures())) or "(?!)"},
    ),
)
