"""The report: every figure and table drawn from datasets and results files, listed in one table, :data:`FIGURES`.

``qlsbench figure NAME INPUT... --out PATH...`` draws any of them; the
workflow's figure rules call it, ``snakemake --report`` gathers what they
draw. One table writer (:mod:`~qlsbench.report.tables`) serves every page.

A new figure is a draw function and its options record in one module here,
one line in :data:`FIGURES`, and one rule in ``workflows/rules/figures.smk``.
"""

from __future__ import annotations

from qlsbench.report import (
    budget_curves,
    checkpoint_table,
    estimates_page,
    in_loop_page,
    leaderboard_page,
    leaderboard_plots,
    loss_curves,
    noisy_page,
    pauli_figures,
    physics_figures,
    qsvt_page,
    reproduction,
    resource_figures,
)
from qlsbench.report.base import Figure

#: Every figure and table of the report by name, in the order of the paper's figures, then the rest.
FIGURES: dict[str, Figure] = {figure.name: figure for figure in (
    loss_curves.FIGURE,  # fig. 2 and fig. 4
    physics_figures.SNAPSHOTS,  # fig. 3
    checkpoint_table.FIGURE,  # fig. 4(b)
    pauli_figures.TERM_COUNTS,  # fig. 5
    pauli_figures.TRUNCATION,
    resource_figures.FIGURE,
    estimates_page.FIGURE,
    physics_figures.KAPPA_TIME,
    budget_curves.FIGURE,
    leaderboard_plots.PROFILES,
    leaderboard_plots.SUCCESS_QUBITS,
    leaderboard_plots.FIDELITY_KAPPA,
    leaderboard_page.FIGURE,
    reproduction.FIGURE,
    in_loop_page.FIGURE,
    noisy_page.FIGURE,
    qsvt_page.FIGURE,
)}

__all__ = ["FIGURES", "Figure"]
