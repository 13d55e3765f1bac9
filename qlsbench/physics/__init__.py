"""Physics: the models whose time steps yield the benchmark's linear systems, and what they share.

One folder per model: :mod:`~qlsbench.physics.spheres` (rigid spheres with
LCP contacts: DEM-C alg. 1 and the CD-Lagrange impact step),
:mod:`~qlsbench.physics.penalty` (penalty contact with Coulomb friction,
Newton-GMRES) and :mod:`~qlsbench.physics.cdlagrange` (CD-Lagrange impacts
of single-node bodies). Shared by them: :mod:`~qlsbench.physics.lcp` (the
linear complementarity problem and its methods) and
:mod:`~qlsbench.physics.capture` (the Newton subsystems a run leaves).

Plain data in, plain data out: this package knows nothing of files (the LCP
readers aside) or of the benchmark's linear solvers. Newton subsystems reach
datasets through a capture callback (:class:`~qlsbench.physics.capture.SubsystemRecorder`),
sphere states through an observer (:class:`~qlsbench.physics.spheres.snapshots.SnapshotRecorder`).
The names below are the stable ones; the modules behind them may move.
"""

from qlsbench.physics.capture import SubsystemRecorder, export_systems
from qlsbench.physics.lcp import (
    LCP,
    LCP_METHODS,
    LCPResult,
    NewtonOptions,
    ProximalOptions,
    minmap_newton,
    proximal_minmap,
    solve_lcp,
)
from qlsbench.physics.spheres import (
    SCENES,
    Contacts,
    NSGSOptions,
    Scene,
    SnapshotRecorder,
    StepOptions,
    StepReport,
    SweepBudget,
    WarmStart,
    build_scene,
    container_of,
    detect_contacts,
    simulate,
    snapshot_steps,
    step,
)

__all__ = [
    "LCP",
    "LCPResult",
    "LCP_METHODS",
    "Contacts",
    "NSGSOptions",
    "NewtonOptions",
    "ProximalOptions",
    "SCENES",
    "Scene",
    "SnapshotRecorder",
    "StepOptions",
    "StepReport",
    "SweepBudget",
    "SubsystemRecorder",
    "WarmStart",
    "build_scene",
    "container_of",
    "detect_contacts",
    "export_systems",
    "minmap_newton",
    "proximal_minmap",
    "simulate",
    "snapshot_steps",
    "solve_lcp",
    "step",
]
