"""Physics: rigid-sphere DEM-C scenes, contacts, the contact LCP and its solvers.

Plain data in, plain data out: this package knows nothing of files or of the
benchmark's linear solvers. Its Newton subsystems reach datasets through a
capture callback (:class:`~qlsbench.physics.capture.SubsystemRecorder`).
"""

from qlsbench.physics.capture import SubsystemRecorder, export_systems
from qlsbench.physics.contacts import Contacts, detect_contacts
from qlsbench.physics.lcp import LCP, LCPResult, LCPStatus
from qlsbench.physics.lcp_solvers import LCP_SOLVERS, solve_lcp
from qlsbench.physics.minmap import NewtonOptions, ProximalOptions, minmap_newton, proximal_minmap
from qlsbench.physics.scene import SCENES, Scene, build_scene
from qlsbench.physics.stepper import StepOptions, simulate, step

__all__ = [
    "LCP", "LCPResult", "LCPStatus", "LCP_SOLVERS", "Contacts", "NewtonOptions", "ProximalOptions", "SCENES",
    "Scene", "StepOptions", "SubsystemRecorder", "build_scene", "detect_contacts", "export_systems",
    "minmap_newton", "proximal_minmap", "simulate", "solve_lcp", "step",
]
