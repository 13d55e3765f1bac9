"""Penalty contact with Coulomb friction, backward Euler in ``dv`` and Newton-GMRES (the ``penalty`` family).

After the technical document of *Penalty Force for Coupling Materials with
Coulomb Friction* (SCA 2018), alg. 1-5, 8 and 9-12: particles with springs and
rigid spheres against level sets and each other, particles against triangle
meshes of particles (DD, with mesh relaxation), attachments relaxed inside the
friction cone, and a stabilised Newton solver whose linear systems are
non-symmetric wherever contacts slide. Those systems are this family's data.

Layers, each depending only on those above it: ``levelsets``, ``geometry``
(projections, alg. 3) and ``jets`` (forward-mode derivatives), ``mesh``
(triangle meshes and RELAX_MESH, alg. 10-12), ``model`` (bodies),
``attachments`` (alg. 5 and 8) and ``attachments_mesh`` (DD, alg. 9),
``equations`` (alg. 1's ``g`` and ``H``), ``newton`` (alg. 2),
``backward_euler``, ``scenes``.
"""

from qlsbench.physics.penalty.backward_euler import (
    PenaltyStepReport,
    simulate_penalty,
    time_step,
)
from qlsbench.physics.penalty.equations import Evaluation, evaluate
from qlsbench.physics.penalty.geometry import project_to_surface, relax_plane
from qlsbench.physics.penalty.levelsets import (
    Box,
    Plane,
    SphereObstacle,
    inclined_plane,
)
from qlsbench.physics.penalty.mesh import TriangleMesh, relax_mesh
from qlsbench.physics.penalty.model import Particles, PenaltyModel, Spheres
from qlsbench.physics.penalty.newton import (
    NewtonReport,
    PenaltyNewtonOptions,
    newton_solve,
    wolfe_line_search,
)
from qlsbench.physics.penalty.scenes import PENALTY_SCENES, build_penalty_scene

__all__ = [
    "PENALTY_SCENES",
    "Box",
    "Evaluation",
    "NewtonReport",
    "Particles",
    "PenaltyModel",
    "PenaltyNewtonOptions",
    "PenaltyStepReport",
    "Plane",
    "SphereObstacle",
    "Spheres",
    "TriangleMesh",
    "build_penalty_scene",
    "evaluate",
    "inclined_plane",
    "newton_solve",
    "project_to_surface",
    "relax_mesh",
    "relax_plane",
    "simulate_penalty",
    "time_step",
    "wolfe_line_search",
]
