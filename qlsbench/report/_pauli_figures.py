"""Figures of the Pauli studies: term counts per qubit count (the paper's fig. 5) and truncation-error curves."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from qlsbench.bench._pauli_study import (
    TERM_COUNT_COLUMNS,
    TRUNCATION_COLUMNS,
    read_pauli_results,
)
from qlsbench.errors import InputError
from qlsbench.options import Options, option
from qlsbench.report._base import Figure, Job
from qlsbench.report._plotting import pyplot, save_figure


def _natural(name: str) -> list:
    """Sort key that orders ``n64`` before ``n125``: digit runs compare as numbers."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def plot_term_counts(results: pd.DataFrame, out: str | os.PathLike) -> Path:
    """Fig. 5 of De et al.: term counts per qubit count, box plots per tolerance, with the theoretical stair.

    One panel per dataset; the title says how many systems lie above the
    theoretical maximum (there should be none).
    """
    plt = pyplot()
    df = results[(results["ordering"] == "identity") & (results["mode"] == "absolute")]
    datasets = sorted(df["dataset"].unique(), key=_natural)
    fig, axes = plt.subplots(1, len(datasets), figsize=(5 * len(datasets), 4), squeeze=False)
    for ax, name in zip(axes[0], datasets):
        sub = df[df["dataset"] == name]
        qubits = sorted(sub["n_qubits"].unique())
        tols = sorted(sub["tol"].unique())
        width = 0.8 / max(len(tols), 1)
        for k, tol in enumerate(tols):
            data = [sub[(sub["n_qubits"] == q) & (sub["tol"] == tol)]["terms_kept"].to_numpy() for q in qubits]
            pos = [q - 0.4 + width * (k + 0.5) for q in qubits]
            ax.boxplot(
                data,
                positions=pos,
                widths=width * 0.9,
                patch_artist=True,
                manage_ticks=False,
                boxprops={"facecolor": f"C{k}", "alpha": 0.6},
                medianprops={"color": "k"},
            )
            ax.plot([], [], color=f"C{k}", lw=6, alpha=0.6, label=f"tol = {tol:g}")
        # The theoretical maximum: (4^n + 2^n)/2 for real symmetric systems, 4^n otherwise.
        stair = sub.groupby("n_qubits")["terms_max"].max().reindex(qubits).to_numpy()
        symmetric = bool(sub["symmetric"].all())
        ax.step(
            qubits,
            stair,
            where="mid",
            color="k",
            ls="--",
            label="(4^n + 2^n) / 2" if symmetric else "max: 4^n (non-symmetric)",
        )
        above = int((sub["terms_kept"] > sub["terms_max"]).sum())
        ax.set(yscale="log", xlabel="qubits", ylabel="Pauli terms", title=f"{name}\n{above} systems above the maximum")
        ax.set_xticks(qubits)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, out)


# ---------------------------------------------------------------- truncation-error curves


def truncation_curves(results: pd.DataFrame, mode: str = "absolute") -> pd.DataFrame:
    """Median over systems of terms kept, ``||A - A_tol||_2`` and solution error per (dataset, qubits, tol).

    Only the natural basis order (``ordering == "identity"``) has errors;
    reorderings change term counts, not the truncated matrix's accuracy.
    ``systems`` counts the subsystems behind each median; a simulation can
    produce the same subsystem at several steps, and each occurrence counts,
    as it would in the simulation's cost.

    Raises
    ------
    InputError
        If ``mode`` is neither ``absolute`` nor ``relative``, or no row has it.
    """
    if mode not in ("absolute", "relative"):
        raise InputError(f"truncation mode must be 'absolute' or 'relative', got {mode!r}")
    df = results[(results["ordering"] == "identity") & (results["mode"] == mode)]
    if df.empty:
        raise InputError(f"no rows of truncation mode {mode!r} with the identity ordering in the Pauli results")
    grouped = df.groupby(["dataset", "n_qubits", "tol"], sort=True)
    return grouped.agg(
        terms_kept=("terms_kept", "median"),
        matrix_error=("matrix_error", "median"),
        solution_error=("solution_error", "median"),
        systems=("system_id", "size"),
    ).reset_index()


def _positive(values: pd.Series) -> np.ndarray:
    """Values for a log axis: exact zeros (nothing was dropped) become gaps instead of -inf."""
    v = values.to_numpy(dtype=float)
    return np.where(v > 0, v, np.nan)


_TRUNCATION_PANELS = (
    ("matrix_error", "‖A − A_τ‖₂"),
    ("solution_error", "‖x_τ − x‖ / ‖x‖"),
    ("terms_kept", "Pauli terms kept"),
)


def _truncation_row(axes, curves: pd.DataFrame, colours: dict, mode: str) -> None:
    """One dataset's three panels: matrix error, solution error and terms kept against tolerance."""
    positive = curves[curves["tol"] > 0]
    for q, sub in positive.groupby("n_qubits"):
        count = int(sub["systems"].max())
        label = f"n = {q} ({count} system{'s' if count != 1 else ''})"
        for ax, (column, _) in zip(axes, _TRUNCATION_PANELS):
            ax.plot(sub["tol"], _positive(sub[column]), marker="o", ms=3, color=colours[q], label=label)
        untruncated = curves[(curves["n_qubits"] == q) & (curves["tol"] == 0)]["terms_kept"]
        if len(untruncated):  # tol = 0 has no place on a log axis: a dotted level instead
            axes[2].axhline(float(untruncated.iloc[0]), color=colours[q], ls=":", lw=0.8)
    if mode == "absolute" and len(positive):
        # Each dropped string has norm 1 and |c| <= tau, so the error per dropped term is at most tau.
        tols = np.sort(positive["tol"].unique())
        axes[0].plot(tols, tols, color="0.5", ls="--", lw=0.8, label="τ")
    for ax, (column, ylabel) in zip(axes, _TRUNCATION_PANELS):
        # A panel whose values are all zero (nothing was ever dropped) has nothing to show on a log axis.
        drawn = np.isfinite(_positive(positive[column])).any() if len(positive) else False
        ax.set(xscale="log", yscale="log" if drawn else "linear", ylabel=ylabel)
        if not drawn:
            ax.text(0.5, 0.5, "0 at every tolerance", transform=ax.transAxes, ha="center", va="center")
        ax.grid(True, which="major", alpha=0.3)


def plot_truncation_errors(results: pd.DataFrame, out: str | os.PathLike, *, mode: str = "absolute") -> Path:
    """Truncation-error curves: what dropping Pauli terms below a tolerance costs, per qubit count.

    One row of panels per dataset: ``||A - A_tol||_2``, the truncated
    system's solution error and the terms kept, each the median over the
    systems of a qubit count, against the tolerance (log-log). Dotted levels
    in the last panel are the untruncated counts (tol = 0); zero errors
    (nothing dropped) leave gaps. Systems above the dense-solve limit have no
    errors and appear in the term counts only.

    Parameters
    ----------
    results : pandas.DataFrame
        Rows of ``qlsbench pauli`` results (:func:`read_pauli_results`).
    out : path
        Output image.
    mode : str
        ``absolute`` (drop ``|c| <= tol``) or ``relative`` (``|c| <= tol * max |c|``).

    Returns
    -------
    pathlib.Path
        The written image.

    Raises
    ------
    InputError
        If no tolerance above zero was studied.
    """
    curves = truncation_curves(results, mode)
    if not (curves["tol"] > 0).any():
        raise InputError("the Pauli results hold no tolerance > 0; run `qlsbench pauli --tol` with positive tolerances")
    plt = pyplot()
    datasets = sorted(curves["dataset"].unique(), key=_natural)
    qubits = sorted(curves["n_qubits"].unique())
    cmap = plt.get_cmap("viridis")
    colours = {q: cmap(k / max(len(qubits) - 1, 1) * 0.9) for k, q in enumerate(qubits)}
    fig, axes = plt.subplots(len(datasets), 3, figsize=(14, 3.4 * len(datasets)), squeeze=False)
    for row, name in zip(axes, datasets):
        _truncation_row(row, curves[curves["dataset"] == name], colours, mode)
        row[0].set_title(name, loc="left", fontsize=10)
        row[2].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
        row[0].legend(handles=[h for h in row[0].get_lines() if h.get_label() == "τ"], fontsize=7, loc="upper left")
    for ax in axes[-1]:
        ax.set_xlabel(f"truncation tolerance τ ({mode})")
    fig.tight_layout()
    return save_figure(fig, out)


def _draw_term_counts(inputs: list[str], out: Path, options) -> Path:
    return plot_term_counts(read_pauli_results(inputs, TERM_COUNT_COLUMNS), out)


@dataclass(frozen=True)
class TruncationOptions(Options):
    mode: str = option(
        "absolute", "tolerance on |c| (absolute) or on |c| / max |c| (relative)", choices=("absolute", "relative")
    )


def _draw_truncation(inputs: list[str], out: Path, options: TruncationOptions) -> Path:
    return plot_truncation_errors(read_pauli_results(inputs, TRUNCATION_COLUMNS), out, mode=options.mode)


TERM_COUNTS = Figure(
    "pauli-terms",
    "fig. 5: Pauli term counts per qubit count, box plots per tolerance, with the theoretical stair",
    "Pauli study .parquet files (`qlsbench pauli`)",
    _draw_term_counts,
    job=Job(
        "pauli_figure",
        "results/figures/pauli_terms.png",
        targets=lambda config: ["results/figures/pauli_terms.png"],
        inputs=lambda config, wc: [f"results/pauli/{dataset}.parquet" for dataset in config.pauli_figure_datasets()],
        log="logs/pauli_figure.log",
        caption="pauli_terms.rst",
        category="Pauli terms (fig. 5)",
    ),
)
TRUNCATION = Figure(
    "truncation",
    "Pauli truncation error and terms kept against the tolerance",
    "Pauli study .parquet files (`qlsbench pauli`)",
    _draw_truncation,
    TruncationOptions,
    job=Job(
        "truncation_figure",
        "results/figures/truncation.png",
        # drawn beside the DEM-C figures of the report, as the paper does
        targets=lambda config: ["results/figures/truncation.png"] if config.labels("dem_c") else [],
        inputs=lambda config, wc: [
            f"results/truncation/{dataset}.parquet" for dataset in config.pauli_figure_datasets()
        ],
        log="logs/truncation_figure.log",
        caption="truncation.rst",
        category="Pauli terms (fig. 5)",
    ),
)
