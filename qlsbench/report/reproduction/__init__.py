"""``docs/reproduction.md``: De et al.'s claims beside our run, generated from shipped results (never typed).

``qlsbench figure reproduction SHIPPED --out docs/reproduction.md`` reads a
shipped-results folder (:mod:`qlsbench.bench._shipped`, written by ``qlsbench
ship`` after a ``paper.yaml`` run), checks it against its manifest, and writes
the page and its figures (``figures/reproduction_*.png`` beside the page). Every
number on the page comes from that folder; every variational number is a
median over seeds with its interquartile range; every verdict is decided by a
rule stated beside it, from those spreads. A part of the run missing from the
folder is named on the page as missing, not filled in.

One module per job: :mod:`~.paper` (the paper's numbers and our run's labels),
:mod:`~.reading` (the shipped folder, read), :mod:`~.verdicts` (the rules, pure
functions over spreads), ``prose.md`` read by :mod:`~.prose` (the claims and the
page's words), :mod:`~.sections` (each figure's section) and :mod:`~.page` (the
page put together, and the figure ``qlsbench figure`` draws). The controls it
sets every verdict against are :mod:`qlsbench.report._reproduction_controls`'.
"""

from __future__ import annotations

from qlsbench.report._reproduction_controls import fig5_null, null_values, with_controls
from qlsbench.report.reproduction.page import FIGURE, ReproductionOptions, render
from qlsbench.report.reproduction.paper import (
    CHECKPOINT_SPACING,
    FIG2_COLUMNS,
    FIG2_QUBITS,
    FIG3_LABEL,
    FIG4_DATASET,
    FIG5_DATASETS,
    KAPPA_STUDY,
    PAPER_FIG4,
    SUCCESS_FIDELITY,
)
from qlsbench.report.reproduction.reading import (
    Shipped,
    checkpoint_systems,
    load_shipped,
)
from qlsbench.report.reproduction.verdicts import (
    all_solved_verdict,
    contrast_verdict,
    fall_contrast,
    global_drop_verdict,
    local_learns_verdict,
    loss_falls,
)

__all__ = [
    "CHECKPOINT_SPACING",
    "FIG2_COLUMNS",
    "FIG2_QUBITS",
    "FIG3_LABEL",
    "FIG4_DATASET",
    "FIG5_DATASETS",
    "FIGURE",
    "KAPPA_STUDY",
    "PAPER_FIG4",
    "SUCCESS_FIDELITY",
    "ReproductionOptions",
    "Shipped",
    "all_solved_verdict",
    "contrast_verdict",
    "fall_contrast",
    "fig5_null",
    "checkpoint_systems",
    "global_drop_verdict",
    "load_shipped",
    "local_learns_verdict",
    "loss_falls",
    "null_values",
    "render",
    "with_controls",
]
