"""Scenes of the penalty family: a spring block on an incline, a cloth on a ball, spheres rolling downhill.

Each builder returns a :class:`PenaltyModel` at rest (or with the stated
initial velocities) plus the time step it was tuned for; the scene name is
stored with every exported system.
"""

from __future__ import annotations

import itertools

import numpy as np

from qlsbench.errors import InputError
from qlsbench.physics.penalty.levelsets import Plane, SphereObstacle, inclined_plane
from qlsbench.physics.penalty.model import Particles, PenaltyModel, Spheres


def _check(name: str, value, low: float, *, strict: bool = True) -> float:
    value = float(value)
    if not np.isfinite(value) or (value <= low if strict else value < low):
        raise InputError(f"{name} must be {'>' if strict else '>='} {low:g}, got {value!r}")
    return value


def incline_frame(angle: float) -> np.ndarray:
    """Rows: downhill direction, across, surface normal of :func:`inclined_plane` (``angle`` radians)."""
    return np.array([[np.cos(angle), 0.0, -np.sin(angle)], [0.0, 1.0, 0.0], [np.sin(angle), 0.0, np.cos(angle)]])


def springs_within(x: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
    """Every particle pair closer than ``reach``, with its current length as rest length."""
    pairs = [(i, j) for i, j in itertools.combinations(range(len(x)), 2) if np.linalg.norm(x[i] - x[j]) <= reach]
    pairs = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    return pairs, np.linalg.norm(x[pairs[:, 1]] - x[pairs[:, 0]], axis=1)


def incline_block(angle: float = 20.0, mu: float = 0.5, n: int = 2, size: float = 0.1, mass: float = 1.0,
                  spring_stiffness: float = 2e4, stiffness: float = 1e4) -> PenaltyModel:
    """A cube of ``n^3`` particles joined by springs (edges, face and body diagonals) resting on an incline.

    Parameters
    ----------
    angle : float
        Incline angle in degrees. The block sticks when ``tan(angle) < mu``
        and otherwise slides with ``a = g (sin - mu cos)``.
    mu : float
        Friction coefficient.
    n : int
        Particles per edge (``>= 2``).
    size, mass : float
        Edge length (m) and total mass (kg).
    spring_stiffness, stiffness : float
        Block springs and contact penalty (N/m).
    """
    if int(n) != n or n < 2:
        raise InputError(f"incline-block: n (particles per edge) must be an integer >= 2, got {n!r}")
    n = int(n)
    a = np.radians(_check("incline-block: angle", angle, 0.0, strict=False))
    frame = incline_frame(a)
    grid = np.array(list(itertools.product(range(n), repeat=3)), dtype=float) * (_check("size", size, 0) / (n - 1))
    x = grid @ frame  # local (downhill, across, normal) coordinates to world
    spacing = size / (n - 1)
    springs, rest = springs_within(x, spacing * np.sqrt(3) * 1.001)
    m = _check("mass", mass, 0) / len(x)
    particles = Particles(x, np.zeros_like(x), np.full(len(x), m), springs, rest,
                          _check("spring_stiffness", spring_stiffness, 0))
    return PenaltyModel(particles, Spheres.empty(), (inclined_plane(a),), mu=_check("mu", mu, 0, strict=False),
                        stiffness=_check("stiffness", stiffness, 0), name=f"incline-block-a{angle:g}-mu{mu:g}")


def cloth_sphere(n: int = 8, size: float = 1.0, mass: float = 0.1, mu: float = 0.3, radius: float = 0.3,
                 drop: float = 0.02, spring_stiffness: float = 200.0, stiffness: float = 500.0) -> PenaltyModel:
    """A square cloth of ``n x n`` particles falling onto a fixed ball, with the floor below.

    Structural, shear and bending springs (neighbours at 1, sqrt 2 and 2 grid
    spacings) hold the sheet together; friction holds it on the ball.
    """
    if int(n) != n or n < 2:
        raise InputError(f"cloth-sphere: n (particles per side) must be an integer >= 2, got {n!r}")
    n = int(n)
    size = _check("cloth-sphere: size", size, 0)
    radius = _check("cloth-sphere: radius", radius, 0)
    side = np.linspace(-size / 2, size / 2, n)
    gx, gy = np.meshgrid(side, side, indexing="ij")
    x = np.column_stack([gx.ravel(), gy.ravel(), np.full(n * n, radius + _check("drop", drop, 0, strict=False))])
    spacing = size / (n - 1)
    springs, rest = springs_within(x, 2.0 * spacing * 1.001)
    particles = Particles(x, np.zeros_like(x), np.full(n * n, _check("mass", mass, 0) / (n * n)), springs, rest,
                          _check("spring_stiffness", spring_stiffness, 0))
    obstacles = (SphereObstacle((0.0, 0.0, 0.0), radius), Plane((0.0, 0.0, -radius), (0.0, 0.0, 1.0)))
    return PenaltyModel(particles, Spheres.empty(), obstacles, mu=_check("mu", mu, 0, strict=False),
                        stiffness=_check("stiffness", stiffness, 0), name=f"cloth-sphere-n{n}-mu{mu:g}")


def spheres_incline(count: int = 3, angle: float = 20.0, mu: float = 0.5, radius: float = 0.05, mass: float = 0.1,
                    gap: float = 0.02, speed: float = 1.0, stiffness: float = 1e4) -> PenaltyModel:
    """Rigid balls in a row on an incline, the uphill one launched downhill at ``speed`` so it hits the others.

    With ``mu >= 2/7 tan(angle)`` a lone ball rolls without slipping,
    ``a = 5/7 g sin(angle)``; with less friction it slides and spins up.
    """
    if int(count) != count or count < 1:
        raise InputError(f"spheres-incline: count must be an integer >= 1, got {count!r}")
    count = int(count)
    a = np.radians(_check("spheres-incline: angle", angle, 0.0, strict=False))
    radius = _check("radius", radius, 0)
    frame = incline_frame(a)
    local = np.column_stack([np.arange(count) * (2 * radius + _check("gap", gap, 0, strict=False)),
                             np.zeros(count), np.full(count, radius)])
    x = local @ frame
    v = np.zeros_like(x)
    v[0] = _check("speed", speed, 0, strict=False) * frame[0]
    spheres = Spheres(x, v, np.zeros_like(x), np.full(count, _check("mass", mass, 0)), np.full(count, radius))
    return PenaltyModel(Particles.empty(), spheres, (inclined_plane(a),), mu=_check("mu", mu, 0, strict=False),
                        stiffness=_check("stiffness", stiffness, 0), name=f"spheres-incline-n{count}-mu{mu:g}")


#: Scene builders by name (``qlsbench simulate --scene ...``), with the time step each was tuned for.
PENALTY_SCENES = {
    "incline-block": (incline_block, 1e-3),
    "cloth-sphere": (cloth_sphere, 5e-3),
    "spheres-incline": (spheres_incline, 1e-3),
}


def build_penalty_scene(name: str, **params) -> PenaltyModel:
    """Build scene ``name`` with keyword parameters of its builder."""
    if name not in PENALTY_SCENES:
        raise InputError(f"unknown penalty scene {name!r}; choose from {', '.join(PENALTY_SCENES)}")
    builder = PENALTY_SCENES[name][0]
    try:
        return builder(**params)
    except TypeError as exc:
        raise InputError(f"scene {name}: {exc}") from None
