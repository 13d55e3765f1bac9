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
from qlsbench.data import atomic_write_table, load_dataset, to_system
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
    df = load_dataset(dataset)
    rows = []
    for _, record in tqdm(df.iterrows(), total=len(df), desc=f"pauli {dataset_name(dataset)}", unit="system",
                          disable=not progress):
        rows += _system_rows(to_system(record), tuple(float(t) for t in tols), reorder)
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
