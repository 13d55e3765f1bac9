"""Fault-tolerant cost estimates per family: queries against qubits and against kappa, and what truncation does.

Reads the tables of ``qlsbench resources`` (:func:`qlsbench.bench._pauli_study.resource_table`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from qlsbench.checks import Real
from qlsbench.data import read_parquet
from qlsbench.errors import InputError
from qlsbench.options import Options, option
from qlsbench.report._base import Figure, Job
from qlsbench.report._plotting import pyplot, save_figure

#: Columns the figure reads.
COLUMNS = (
    "family",
    "scene",
    "system_id",
    "n_qubits",
    "symmetric",
    "tol",
    "epsilon",
    "kappa",
    "kappa_eff",
    "alpha",
    "terms",
    "qsvt_degree",
    "adiabatic_queries_practical",
    "adiabatic_queries_bound",
)


def read_resources(paths: list[str]) -> pd.DataFrame:
    """The ``qlsbench resources`` tables of ``paths``, one frame; each file's columns checked."""
    frames = [
        read_parquet(path, columns=COLUMNS, error=InputError, hint=" (not a `qlsbench resources` table?)").to_pandas()
        for path in paths
    ]
    frames = [f for f in frames if len(f)]
    if not frames:
        raise InputError("no resource estimates in " + ", ".join(paths))
    return pd.concat(frames, ignore_index=True)


def _group(row) -> str:
    """Family, split by friction where it matters: the sphere families' scenes name their ``mu``
    (a frictional system with no sliding contact is symmetric, so symmetry alone does not tell)."""
    if row["family"] not in ("dem_c", "cd_lagrange"):
        return row["family"]
    mu = re.search(r"-mu([0-9.]+)", str(row["scene"]))
    frictional = float(mu.group(1).rstrip(".")) > 0 if mu else not row["symmetric"]
    return f"{row['family']} (friction)" if frictional else row["family"]


def estimate_summary(table: pd.DataFrame, epsilon: float, by: str | None = None) -> pd.DataFrame:
    """One row per group of ``qlsbench resources`` rows at ``epsilon``, exact terms: size, median kappa and alpha,
    block-encoding qubits, QSVT degree and discrete-adiabatic queries (median, and the costliest system).

    ``by`` names the grouping column; by default the family, split by friction as in the figure.
    """
    rows = table[np.isclose(table["epsilon"], epsilon) & (table["tol"] == 0)]
    if by is None:  # the family column itself, split by friction
        by = "family"
        rows = rows.assign(family=rows.apply(_group, axis=1)) if len(rows) else rows
    out = []
    for name, part in rows.groupby(by, sort=True):
        largest = part.loc[part["adiabatic_queries_practical"].idxmax()]
        out.append(
            {
                by: name,
                "systems": part["system_id"].nunique(),
                "qubits": f"{part['n_qubits'].min()}-{part['n_qubits'].max()}",
                "median κ": f"{part['kappa'].median():.3g}",
                "median α": f"{part['alpha'].median():.3g}",
                "block-encoding qubits (max)": int(part["qubits"].max()),
                "QSVT degree (median)": f"{part['qsvt_degree'].median():.3g}",
                "adiabatic queries (median)": f"{part['adiabatic_queries_practical'].median():.3g}",
                "adiabatic queries (largest)": f"{largest['adiabatic_queries_practical']:.3g} "
                f"({int(largest['n_qubits'])} qubits)",
                "with the proven constant (median)": f"{part['adiabatic_queries_bound'].median():.3g}",
            }
        )
    return pd.DataFrame(out)


def estimate_blocks(table: pd.DataFrame, epsilon: float, by: str | None = None) -> list:
    """The page section of :func:`estimate_summary`: a heading, what the numbers are, the table."""
    return [
        ("h2", "What a fault-tolerant solver would cost"),
        (
            "p",
            "No simulation: estimates from each system's LCU (Pauli) form, `qlsbench resources`. "
            f"Block-encoding queries to reach error {epsilon:g} with QSVT (Childs-Kothari-Somma polynomial, "
            "per attempt) and with the discrete-adiabatic solver plus eigenstate filtering (walk constant "
            "1.84 as measured by Costa et al. 2023; the proven 2305 beside it), for the block-encoded A/α, "
            "whose condition number is κα.",
        ),
        ("table", estimate_summary(table, epsilon, by)),
    ]


@dataclass(frozen=True)
class ResourceOptions(Options):
    epsilon: float = option(
        1e-6,
        "the target error to plot (one of those the tables hold)",
        bounds=Real(0.0, 1.0, open_low=True, open_high=True),
    )


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
        axes[0].scatter(
            part["n_qubits"], part["adiabatic_queries_practical"], marker=markers[group], s=18, alpha=0.7, label=group
        )
        axes[1].scatter(
            part["kappa"], part["adiabatic_queries_practical"], marker=markers[group], s=18, alpha=0.7, label=group
        )
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
    fig.suptitle(
        "What a fault-tolerant solver would cost: 1.84 κα walk steps (Costa et al. 2023; the proven "
        "constant is 2305) + an eigenstate filter",
        fontsize=10,
    )
    fig.tight_layout()
    return save_figure(fig, out)


def _draw(inputs: list[str], out: Path, options: ResourceOptions) -> Path:
    return plot_resources(read_resources(inputs), out, options.epsilon)


FIGURE = Figure(
    "resources",
    "fault-tolerant query estimates against qubits and kappa per family, and the LCU 1-norm per truncation tolerance",
    "resource tables (`qlsbench resources`)",
    _draw,
    ResourceOptions,
    job=Job(
        "resources_figure",
        "results/figures/resources.png",
        targets=lambda config: ["results/figures/resources.png"],
        inputs=lambda config, wc: [f"results/resources/{dataset}.parquet" for dataset in config.datasets()],
        log="logs/figures/resources.log",
        caption="resources.rst",
        category="Quantum form",
    ),
)

__all__ = ["FIGURE", "plot_resources", "read_resources"]
