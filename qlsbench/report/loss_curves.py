"""Loss curves of variational solvers from results files: the paper's fig. 2 (and fig. 4).

One panel per solver label, one curve per system (labelled by qubit count and
condition number). Raw losses are drawn faint; over them the curve de-noised
with a Savitzky-Golay filter, as in De et al.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.signal import savgol_filter

from qlsbench.bench.results import load_results
from qlsbench.checks import COUNT
from qlsbench.errors import InputError
from qlsbench.options import Options, option
from qlsbench.report.base import Figure
from qlsbench.report.plotting import pyplot, save_figure


def smooth(history: np.ndarray, window: int = 51, order: int = 3) -> np.ndarray:
    """Savitzky-Golay de-noising of a loss curve (the window shrinks to fit short curves)."""
    history = np.asarray(history, dtype=float)
    w = min(window, len(history))
    w -= 1 - w % 2  # the filter needs an odd window
    if w <= order:
        return history
    return savgol_filter(history, w, order)


def plot_loss_curves(results: pd.DataFrame, out: str | os.PathLike, *, solvers: list[str] | None = None,
                     n_qubits: list[int] | None = None, window: int = 51) -> Path:
    """Loss per iteration, one panel per solver, for the first repeat of each system.

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
        raise InputError(f"no loss histories for solver(s) {', '.join(missing or labels)} "
                         f"(qubits {n_qubits or 'any'}) in the results given")
    plt = pyplot()
    fig, axes = plt.subplots(1, len(labels), figsize=(4.5 * len(labels), 3.8), squeeze=False)
    for ax, label in zip(axes[0], labels):
        rows = df[(df["solver"] == label) & (df["repeat"] == df[df["solver"] == label]["repeat"].min())]
        # Monte Carlo estimates of a loss near 0 go negative: those panels get a symmetric-log axis
        # and linear smoothing; positive ones a log axis, smoothed in log space (no false dips).
        positive = all(min(h) > 0 for h in rows["history"])
        for k, (_, row) in enumerate(rows.sort_values(["n_qubits", "cond"]).iterrows()):
            h = np.asarray(row["history"], dtype=float)
            trend = 10 ** smooth(np.log10(h), window) if positive else smooth(h, window)
            ax.plot(h, color=f"C{k}", alpha=0.25, lw=0.8)
            ax.plot(trend, color=f"C{k}", lw=1.6,
                    label=f"n = {row['n_qubits']}, κ = {row['cond']:.3g}: fidelity {row['fidelity']:.4f}, "
                          f"residual {row['rel_residual']:.1e}")
        if positive:
            ax.set_yscale("log")
        else:
            ax.set_yscale("symlog", linthresh=1e-4)
        ax.set(xlabel="iteration", title=label)
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel("loss")
    fig.tight_layout()
    return save_figure(fig, out)


@dataclass(frozen=True)
class LossCurveOptions(Options):
    solvers: tuple[str, ...] | None = option(None, "solver labels, one panel each (default: all with histories)",
                                             many=True)
    n_qubits: tuple[int, ...] | None = option(None, "only systems of these qubit counts", bounds=COUNT, many=True)


def _draw(inputs: list[str], out: Path, options: LossCurveOptions) -> Path:
    return plot_loss_curves(load_results(inputs), out, solvers=options.solvers and list(options.solvers),
                            n_qubits=options.n_qubits and list(options.n_qubits))


FIGURE = Figure("loss-curves", "fig. 2 / fig. 4: loss curves of variational solvers, raw and Savitzky-Golay "
                "de-noised", "results .parquet files or folders (`qlsbench solve`)", _draw, LossCurveOptions)
