"""Run the Pauli studies over a dataset and plot the paper's fig. 5."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
from tqdm.auto import tqdm

from qlsbench.bench.plotting import pyplot, save_figure
from qlsbench.bench.runner import dataset_name
from qlsbench.data import atomic_write_table, load_dataset, read_parquet, to_system
from qlsbench.errors import DatasetError, InputError
from qlsbench.pauli import count_terms, max_terms, xor_patterns
from qlsbench.pauli.studies import DENSE_QUBITS, reordering_study, truncation_study


def _system_rows(system, tols, reorder: bool) -> list[dict]:
    n = system.dim.bit_length() - 1
    base = {"system_id": system.system_id, "family": system.meta.get("family", ""),
            "scene": system.meta.get("scene", ""), "n_qubits": n, "dim": system.dim, "nnz": system.nnz,
            "cond": float(system.meta.get("cond", np.nan)), "symmetric": bool(system.meta.get("symmetric", False)),
            "terms_max": max_terms(n, bool(system.meta.get("symmetric", False)) and not system.is_complex),
            "patterns": xor_patterns(system.A)}
    rows = []
    if n <= DENSE_QUBITS:
        for r in truncation_study(system, tols):
            rows.append({**base, "ordering": "identity", "mode": r["mode"], "tol": r["tol"],
                         "terms_kept": r["terms_kept"], "matrix_error": r["matrix_error"], "solution_error": r["solution_error"],
                         "fidelity": r["fidelity"]})
    else:  # too large for dense solves: counts only
        for mode in ("absolute", "relative"):
            counts = count_terms(system.A, tols, relative=mode == "relative")
            rows += [{**base, "ordering": "identity", "mode": mode, "tol": t, "terms_kept": c,
                      "matrix_error": np.nan, "solution_error": np.nan,
                      "fidelity": np.nan} for t, c in counts.items()]
    if reorder:
        for r in reordering_study(system, tols):
            if r["ordering"] == "identity":
                continue
            rows += [{**base, "ordering": r["ordering"], "mode": "absolute", "tol": t,
                      "terms_kept": r[f"terms_tol_{t:g}"], "patterns": r["patterns"], "matrix_error": np.nan,
                      "solution_error": np.nan, "fidelity": np.nan} for t in tols]
    return rows


def pauli_study(dataset: str | os.PathLike, out: str | os.PathLike, *, tols=(0.0, 1e-6, 1e-3),
                reorder: bool = False, progress: bool = True) -> pd.DataFrame:
    """Term counts, truncation errors and (optionally) reorderings for every system of a dataset.

    One row per (system, ordering, mode, tol); ``mode`` is ``absolute`` or
    ``relative`` (to ``max |c|``). Errors need dense solves and are NaN above
    :data:`~qlsbench.pauli.studies.DENSE_QUBITS` qubits. Written atomically to ``out``.
    """
    tols = tuple(float(t) for t in tols)
    if not tols or not all(np.isfinite(t) and t >= 0 for t in tols):
        raise InputError(f"truncation tolerances must be finite and >= 0, got {list(tols)}")
    df = load_dataset(dataset)
    if df.empty:
        raise DatasetError(f"{dataset}: the dataset holds no systems")
    rows = []
    for _, record in tqdm(df.iterrows(), total=len(df), desc=f"pauli {dataset_name(dataset)}", unit="system",
                          disable=not progress):
        rows += _system_rows(to_system(record), tols, reorder)
    table = pd.DataFrame(rows)
    table.insert(0, "dataset", dataset_name(dataset))
    atomic_write_table(pa.Table.from_pandas(table, preserve_index=False), out)
    return table


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
            ax.boxplot(data, positions=pos, widths=width * 0.9, patch_artist=True, manage_ticks=False,
                       boxprops={"facecolor": f"C{k}", "alpha": 0.6}, medianprops={"color": "k"})
            ax.plot([], [], color=f"C{k}", lw=6, alpha=0.6, label=f"tol = {tol:g}")
        # The theoretical maximum: (4^n + 2^n)/2 for real symmetric systems, 4^n otherwise.
        stair = sub.groupby("n_qubits")["terms_max"].max().reindex(qubits).to_numpy()
        symmetric = bool(sub["symmetric"].all())
        ax.step(qubits, stair, where="mid", color="k", ls="--",
                label="(4^n + 2^n) / 2" if symmetric else "max: 4^n (non-symmetric)")
        above = int((sub["terms_kept"] > sub["terms_max"]).sum())
        ax.set(yscale="log", xlabel="qubits", ylabel="Pauli terms", title=f"{name}\n{above} systems above the maximum")
        ax.set_xticks(qubits)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, out)


# ---------------------------------------------------------------- truncation-error curves

#: Columns the truncation-error figure needs from a ``qlsbench pauli`` results file.
TRUNCATION_COLUMNS = ("dataset", "system_id", "n_qubits", "ordering", "mode", "tol", "terms_kept", "matrix_error",
                      "solution_error")


def read_pauli_results(paths) -> pd.DataFrame:
    """Concatenate ``qlsbench pauli`` results files, checking the columns the truncation figure needs.

    Raises
    ------
    InputError
        Naming the unreadable file, or the file and its first missing column.
    """
    paths = [Path(p) for p in paths]
    if not paths:
        raise InputError("no Pauli study results files given")
    frames = []
    for path in paths:
        table = read_parquet(path, columns=TRUNCATION_COLUMNS, error=InputError,
                             hint=" (not a `qlsbench pauli` results file?)")
        frames.append(table.select(list(TRUNCATION_COLUMNS)).to_pandas())
    return pd.concat(frames, ignore_index=True)


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
    return grouped.agg(terms_kept=("terms_kept", "median"), matrix_error=("matrix_error", "median"),
                       solution_error=("solution_error", "median"), systems=("system_id", "size")).reset_index()


def _positive(values: pd.Series) -> np.ndarray:
    """Values for a log axis: exact zeros (nothing was dropped) become gaps instead of -inf."""
    v = values.to_numpy(dtype=float)
    return np.where(v > 0, v, np.nan)


_TRUNCATION_PANELS = (("matrix_error", "‖A − A_τ‖₂"), ("solution_error", "‖x_τ − x‖ / ‖x‖"), ("terms_kept", "Pauli terms kept"))


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
