"""Fault-tolerant cost estimates per family: queries against qubits and against kappa, and what truncation does.

Reads the tables of ``qlsbench resources`` (:func:`qlsbench.bench.pauli_study.resource_table`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from qlsbench.checks import Real
from qlsbench.data import read_parquet
from qlsbench.errors import InputError
from qlsbench.options import Options, option
from qlsbench.report.base import Figure
from qlsbench.report.plotting import pyplot, save_figure

#: Columns the figure reads.
COLUMNS = ("family", "scene", "system_id", "n_qubits", "symmetric", "tol", "epsilon", "kappa", "kappa_eff", "alpha",
           "terms", "qsvt_degree", "adiabatic_queries_practical", "adiabatic_queries_bound")


def read_resources(paths: list[str]) -> pd.DataFrame:
    """The ``qlsbench resources`` tables of ``paths``, one frame; each file's columns checked."""
    frames = [read_parquet(path, columns=COLUMNS, error=InputError,
                           hint=" (not a `qlsbench resources` table?)").to_pandas() for path in paths]
    frames = [f for f in frames if len(f)]
    if not frames:
        raise InputError("no resource estimates in " + ", ".join(paths))
    return pd.concat(frames, ignore_index=True)


def _group(row) -> str:
    """Family, split by friction where it matters: DEM-C frictional systems are not symmetric."""
    if row["family"] in ("dem_c", "cd_lagrange") and not row["symmetric"]:
        return f"{row['family']} (friction)"
    return row["family"]


@dataclass(frozen=True)
class ResourceOptions(Options):
    epsilon: float = option(1e-6, "the target error to plot (one of those the tables hold)",
                            bounds=Real(0.0, 1.0, open_low=True, open_high=True))


def plot_resources(table: pd.DataFrame, out: Path, epsilon: float) -> Path:
    """Three panels: adiabatic queries (measured constant) against qubits and against kappa per family, exact
    terms; and the LCU 1-norm alpha against qubits at each truncation tolerance."""
    rows = table[np.isclose(table["epsilon"], epsilon)]
    if rows.empty:
        raise InputError(f"no estimates at epsilon {epsilon:g}; the tables hold {sorted(table['epsilon'].unique())}")
    rows = rows.assign(group=rows.apply(_group, axis=1))
    exact = rows[rows["tol"] == 0]
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    markers = dict(zip(sorted(rows["group"].unique()), "osD^vP*X"))
    for group, part in exact.groupby("group"):
        axes[0].scatter(part["n_qubits"], part["adiabatic_queries_practical"], marker=markers[group], s=18,
                        alpha=0.7, label=group)
        axes[1].scatter(part["kappa"], part["adiabatic_queries_practical"], marker=markers[group], s=18, alpha=0.7,
                        label=group)
    for tol, part in rows.groupby("tol"):
        median = part.groupby("n_qubits")["alpha"].median()
        axes[2].plot(median.index, median.values, marker="o", label=f"τ = {tol:g}")
    for ax in axes[:2]:
        ax.set_yscale("log")
        ax.set_ylabel(f"block-encoding queries (ε = {epsilon:g})")
    axes[0].set_title("discrete adiabatic + filtering, exact terms", fontsize=9)
    axes[1].set_title("the same against κ", fontsize=9)
    axes[2].set_title("truncation lowers α, hence κα", fontsize=9)
    axes[1].set_xscale("log")
    axes[0].set_xlabel("qubits")
    axes[1].set_xlabel("κ (normalised system)")
    axes[2].set_xlabel("qubits")
    axes[2].set_ylabel("median LCU 1-norm α = Σ|c|")
    axes[2].set_yscale("log")
    axes[0].legend(fontsize=7)
    axes[2].legend(fontsize=7)
    fig.suptitle("What a fault-tolerant solver would cost: 1.84 κα walk steps (Costa et al. 2023; the proven "
                 "constant is 2305) + an eigenstate filter", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, out)


def _draw(inputs: list[str], out: Path, options: ResourceOptions) -> Path:
    return plot_resources(read_resources(inputs), out, options.epsilon)


FIGURE = Figure("resources", "fault-tolerant query estimates against qubits and kappa per family, and the LCU "
                "1-norm per truncation tolerance", "resource tables (`qlsbench resources`)", _draw, ResourceOptions)

__all__ = ["FIGURE", "plot_resources", "read_resources"]
