"""Rigid spheres in static walls, with contacts posed as LCPs: De et al.'s DEM-C model (``dem_c``, ``cd_lagrange``).

Layers, each depending only on those above it: ``scenes`` (spheres and walls,
plain state), ``contacts`` (detection, normals and tangent frames),
``assembly`` (the contact LCP of eq. 6 and the CD-Lagrange impact LCP on the
same contact geometry), ``nsgs`` (nonsmooth Gauss-Seidel on that LCP),
``stepping`` (the two time integrators of the sphere system: alg. 1 and the
CD-Lagrange impact step; their Newton subsystems reach
:class:`~qlsbench.physics.capture.SubsystemRecorder`) and ``snapshots`` (sphere
states at chosen steps, for the figures). The general LCP methods are
:mod:`qlsbench.physics.lcp`'s.
"""

from qlsbench.physics.spheres.assembly import ContactLCP, assemble, assemble_impact
from qlsbench.physics.spheres.contacts import Contacts, detect_contacts
from qlsbench.physics.spheres.exact_cone import ExactConeResult, exact_cone_nsgs, exact_cone_residual
from qlsbench.physics.spheres.nsgs import NSGSOptions, SweepBudget, nsgs
from qlsbench.physics.spheres.scenes import MAX_SPHERES, SCENES, Scene, build_scene, turning_gravity
from qlsbench.physics.spheres.snapshots import (
    SnapshotRecorder,
    container_of,
    snapshot_steps,
)
from qlsbench.physics.spheres.stepping import (
    StepOptions,
    StepReport,
    WarmStart,
    simulate,
    step,
    step_cd_lagrange,
)

__all__ = [
    "MAX_SPHERES",
    "SCENES",
    "ContactLCP",
    "Contacts",
    "ExactConeResult",
    "NSGSOptions",
    "Scene",
    "SnapshotRecorder",
    "StepOptions",
    "StepReport",
    "SweepBudget",
    "WarmStart",
    "assemble",
    "assemble_impact",
    "build_scene",
    "container_of",
    "detect_contacts",
    "exact_cone_nsgs",
    "exact_cone_residual",
    "nsgs",
    "simulate",
    "snapshot_steps",
    "step",
    "step_cd_lagrange",
    "turning_gravity",
]
