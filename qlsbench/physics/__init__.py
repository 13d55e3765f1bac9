"""Physics: rigid-sphere DEM-C scenes, contacts, the contact LCP and its solvers.

Plain data in, plain data out: this package knows nothing of files or of the
benchmark's linear solvers. Its Newton subsystems reach datasets through a
capture callback (:class:`~qlsbench.physics.capture.SubsystemRecorder`), its
sphere states through an observer (:class:`~qlsbench.physics.capture.SnapshotRecorder`).
"""

from qlsbench.physics.capture import (
    SnapshotRecorder,
    SubsystemRecorder,
    container_of,
    export_systems,
    snapshot_steps,
)
from qlsbench.physics.contacts import Contacts, detect_contacts
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
from qlsbench.physics.scene import SCENES, Scene, build_scene
from qlsbench.physics.sphere_stepping import StepOptions, StepReport, WarmStart, simulate, step

__all__ = [
    "LCP", "LCPResult", "LCP_METHODS", "Contacts", "NewtonOptions", "ProximalOptions", "SCENES",
    "Scene", "SnapshotRecorder", "StepOptions", "StepReport", "SubsystemRecorder", "WarmStart", "build_scene",
    "container_of",
    "detect_contacts", "export_systems", "minmap_newton", "proximal_minmap", "simulate", "snapshot_steps",
    "solve_lcp", "step",
]
