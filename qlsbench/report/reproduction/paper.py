"""The paper's numbers and our run's labels: what each figure of De et al. ran on, and the bar a read-out must meet.

The page (:mod:`~qlsbench.report.reproduction.sections`), its verdict rules
(:mod:`~qlsbench.report.reproduction.verdicts`) and ``qlsbench ship`` (which
figures' studies and snapshots it ships) read them.
"""

from __future__ import annotations

from qlsbench.bench.ranking import LOW_ACCURACY

#: A read-out counts as a solution at this fidelity (the board's variational track).
SUCCESS_FIDELITY = LOW_ACCURACY.fidelity
#: Fig. 2's sizes in the paper.
FIG2_QUBITS = (5, 6, 7, 8)
#: Fig. 2's table: column header, solver label.
FIG2_COLUMNS = (
    ("global, brick-wall", "vqls-global"),
    ("local, brick-wall", "vqls-local"),
    ("global, ladder", "vqls-global-ladder"),
    ("local, ladder", "vqls-local-ladder"),
    ("VNLS", "vnls"),
    ("global, Aer circuits", "vqls-global-aer"),
    ("local, Aer circuits", "vqls-local-aer"),
)
#: The kappa-vs-h study's checkpoint datasets share this prefix; the text after it is the time step.
KAPPA_STUDY = "dem_c_checkpoints/sedimentation-n100-mu0-h"
#: Fig. 4's systems: the study's run at this time step.
FIG4_DATASET = KAPPA_STUDY + "1e-4"
#: Simulated seconds between two checkpoints (the paper's 40,000 steps; their time step is not given).
CHECKPOINT_SPACING = 0.16
#: The paper's table 4b: checkpoint -> (qubits, kappa).
PAPER_FIG4 = {2: (8, 20.4), 4: (4, 40.5), 6: (8, 74.6), 8: (9, 329.7)}
#: Fig. 5's runs and the fig. 3 run.
FIG5_DATASETS = ("dem_c/sedimentation-n64-mu0", "dem_c/sedimentation-n125-mu0", "dem_c/sedimentation-n216-mu0")
FIG3_LABEL = "sedimentation-n100-mu0"

__all__ = [
    "CHECKPOINT_SPACING",
    "FIG2_COLUMNS",
    "FIG2_QUBITS",
    "FIG3_LABEL",
    "FIG4_DATASET",
    "FIG5_DATASETS",
    "KAPPA_STUDY",
    "PAPER_FIG4",
    "SUCCESS_FIDELITY",
]
