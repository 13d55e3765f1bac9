"""The CD-Lagrange impact integrator for single-node bodies (seed 000, app. A) and the test scenes of app. B.

Layers: ``impacts`` (the integrator, eqs. 38-50: :class:`ImpactSystem`,
:func:`impulses`, :func:`integrate`), ``scenes`` (pendulum, bouncing ball,
Newton's cradle; :func:`run_scene`). It shares the LCP solvers
(:mod:`qlsbench.physics.lcp`) and nothing else: many spheres in 3-D take the
same restitution law through the sphere model
(:func:`qlsbench.physics.spheres.stepping.step_cd_lagrange`).
"""

from qlsbench.physics.cdlagrange.impacts import (
    ImpactSystem,
    contact_matrix,
    impulses,
    integrate,
    mass_ratio,
)
from qlsbench.physics.cdlagrange.scenes import (
    CD_SCENES,
    SCENE_PARAMETERS,
    bouncing_ball,
    check_scene_parameters,
    newtons_cradle,
    pendulum,
    run_scene,
)

__all__ = [
    "CD_SCENES",
    "SCENE_PARAMETERS",
    "ImpactSystem",
    "bouncing_ball",
    "check_scene_parameters",
    "contact_matrix",
    "impulses",
    "integrate",
    "mass_ratio",
    "newtons_cradle",
    "pendulum",
    "run_scene",
]
