"""The CD-Lagrange test scenes of app. B: a pendulum, a bouncing ball and Newton's cradle, by name.

Each builder returns an :class:`~qlsbench.physics.cdlagrange.impacts.ImpactSystem`
with its initial positions and velocities; :func:`run_scene` checks the
parameters and integrates one (the ``trajectories`` family's data).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from qlsbench.checks import Real, Whole
from qlsbench.errors import InputError
from qlsbench.physics.cdlagrange.impacts import ImpactSystem, integrate

G = 9.81


def pendulum(
    q0: float = 1.0, mass: float = 1.0, length: float = 1.0, g: float = G
) -> tuple[ImpactSystem, ArrayLike, ArrayLike]:
    """A pendulum (angle ``q``, no contacts): ``M = m l^2``, ``V = -m g l cos q``; app. B: q0 = 1, h = 0.02."""
    system = ImpactSystem(
        np.array([mass * length**2]),
        lambda Q: -mass * g * length * np.sin(Q),
        lambda Q: -mass * g * length * float(np.cos(Q[0])),
        np.zeros((0, 1)),
        np.zeros(0),
        1.0,
    )
    return system, [q0], [0.0]


def bouncing_ball(
    q0: float = 10.0, e: float = 1.0, mass: float = 1.0, g: float = G
) -> tuple[ImpactSystem, ArrayLike, ArrayLike]:
    """A ball at height ``q`` above the ground ``q = 0``; app. B: q0 = 10, e = 1 (also 0.8, 0.7), h = 0.02."""
    system = ImpactSystem(
        np.array([mass]),
        lambda Q: np.array([-mass * g]),
        lambda Q: mass * g * float(Q[0]),
        np.ones((1, 1)),
        np.zeros(1),
        e,
    )
    return system, [q0], [0.0]


def newtons_cradle(
    balls: int = 2, speed: float = 2.0, e: float = 1.0, mass: float = 1.0, length: float = 1.0, g: float = G
) -> tuple[ImpactSystem, ArrayLike, ArrayLike]:
    """Pendulums of zero size on one pivot (angles ``Q``), neighbours touching when ``Q_{i+1} - Q_i <= 0``.

    App. B: two balls, ``Q0 = (0, 0)``, ``Qdot0 = (2, 0)``, e = 1, ``A = [[-1, 1], [1, -1]]``, ``L = (1, -1)``.
    """
    if int(balls) != balls or balls < 2:
        raise InputError(f"newtons-cradle: balls must be an integer >= 2, got {balls!r}")
    balls = int(balls)
    normals = np.zeros((balls - 1, balls))
    for k in range(balls - 1):
        normals[k, k], normals[k, k + 1] = -1.0, 1.0
    system = ImpactSystem(
        np.full(balls, mass * length**2),
        lambda Q: -mass * g * length * np.sin(Q),
        lambda Q: -mass * g * length * float(np.cos(Q).sum()),
        normals,
        np.zeros(balls - 1),
        e,
    )
    return system, np.zeros(balls), np.r_[speed, np.zeros(balls - 1)]


#: Scene builders by name, with the paper's time step.
CD_SCENES: dict[str, Callable[..., tuple[ImpactSystem, ArrayLike, ArrayLike]]] = {
    "pendulum": pendulum,
    "bouncing-ball": bouncing_ball,
    "newtons-cradle": newtons_cradle,
}

#: Every scene parameter's bounds, checked before a scene is built (one line naming the scene and parameter):
#: angles, heights and speeds in [-1e6, 1e6], masses in [1e-12, 1e12] and lengths in [1e-6, 1e6] (so that the
#: inertia m l^2 stays a positive double), gravity in [0, 1e6], restitution in [0, 1], from 2 to 100 balls.
SCENE_PARAMETERS: dict[str, Real | Whole] = {
    "q0": Real(-1e6, 1e6),
    "speed": Real(-1e6, 1e6),
    "mass": Real(1e-12, 1e12),
    "length": Real(1e-6, 1e6),
    "g": Real(0.0, 1e6),
    "e": Real(0.0, 1.0),
    "balls": Whole(2, 100),
}


def check_scene_parameters(name: str, params: dict) -> dict:
    """``params`` of scene ``name`` checked against its builder's parameters and :data:`SCENE_PARAMETERS`."""
    import inspect

    taken = list(inspect.signature(CD_SCENES[name]).parameters)
    unknown = sorted(set(params) - set(taken))
    if unknown:
        raise InputError(f"scene {name}: unknown parameter(s) {', '.join(unknown)}; it takes {', '.join(taken)}")
    return {key: SCENE_PARAMETERS[key].check(value, f"scene {name}: {key}") for key, value in params.items()}


def run_scene(name: str, steps: int, h: float = 0.02, mode: str = "sequential", **params) -> pd.DataFrame:
    """Simulate scene ``name`` (``pendulum``, ``bouncing-ball``, ``newtons-cradle``) for ``steps`` steps.

    Returns the trajectory of :func:`integrate`.
    """
    if name not in CD_SCENES:
        raise InputError(f"unknown CD-Lagrange scene {name!r}; choose from {', '.join(CD_SCENES)}")
    system, Q0, Qdot0 = CD_SCENES[name](**check_scene_parameters(name, params))
    return integrate(system, Q0, Qdot0, h, steps, mode)
