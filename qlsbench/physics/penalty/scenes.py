"""Scenes of the penalty family: a block on an incline, a cloth on a ball, spheres rolling downhill,
a cloth on a rolling ball, cloth on cloth.

Each builder returns a :class:`PenaltyModel` at rest (or with the stated
initial velocities) plus the time step it was tuned for; the scene name is
stored with every exported system.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

from qlsbench.checks import MAX_QUANTITY, number_text, real_number, whole_number
from qlsbench.errors import InputError
from qlsbench.physics.penalty.levelsets import Plane, SphereObstacle, inclined_plane
from qlsbench.physics.penalty.mesh import TriangleMesh
from qlsbench.physics.penalty.model import Particles, PenaltyModel, Spheres

#: Most particles per side (or edge) of a grid: a cloth of 64 x 64 particles. Setting up a scene is quadratic in
#: its particles (the springs within reach of each), so a size of thousands would hang before the first step.
MAX_GRID = 64


#: Smallest value of a quantity that must be positive: its reciprocal (a spin speed / radius, a time over a mass)
#: stays far from overflow, where a subnormal radius gave infinities.
MIN_QUANTITY = 1e-12


def _check(name: str, value, low: float, *, strict: bool = True) -> float:
    """A finite real number above ``low`` (at least ``low`` when not ``strict``; at least :data:`MIN_QUANTITY`
    when ``low`` is 0 and ``strict``) and at most :data:`MAX_QUANTITY`; one line otherwise, whatever was given
    (text, NaN, infinity)."""
    if strict and low == 0:
        return real_number(value, name, low=MIN_QUANTITY, high=MAX_QUANTITY)
    return real_number(value, name, low=low, open_low=strict, high=MAX_QUANTITY)


def _count(name: str, value) -> int:
    """A grid's particles per side or edge: a whole number (``4`` or ``4.0``) from 2 to :data:`MAX_GRID`."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return whole_number(value, name, low=2, high=MAX_GRID)


def incline_frame(angle: float) -> np.ndarray:
    """Rows: downhill direction, across, surface normal of :func:`inclined_plane` (``angle`` radians)."""
    return np.array([[np.cos(angle), 0.0, -np.sin(angle)], [0.0, 1.0, 0.0], [np.sin(angle), 0.0, np.cos(angle)]])


def springs_within(x: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
    """Every particle pair closer than ``reach``, with its current length as rest length.

    Pairs come in lexicographic order ``(i, j)``, ``i < j``. A k-d tree finds the candidates (the all-pairs loop
    cost seconds per cloth, and the workflow builds scenes to name their datasets); each candidate is then judged
    by the same per-pair norm as ever, so a pair at the reach's edge falls on the same side on every machine.
    """
    from scipy.spatial import cKDTree

    candidates = cKDTree(x).query_pairs(reach * (1.0 + 1e-9), output_type="ndarray").reshape(-1, 2)
    candidates = candidates[np.lexsort((candidates[:, 1], candidates[:, 0]))]
    kept = [(int(i), int(j)) for i, j in candidates if np.linalg.norm(x[i] - x[j]) <= reach]
    pairs = np.array(kept, dtype=np.int64).reshape(-1, 2)
    return pairs, np.linalg.norm(x[pairs[:, 1]] - x[pairs[:, 0]], axis=1)


def incline_block(
    angle: float = 20.0,
    mu: float = 0.5,
    n: int = 2,
    size: float = 0.1,
    mass: float = 1.0,
    spring_stiffness: float = 2e4,
    stiffness: float = 1e4,
) -> PenaltyModel:
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
    n = _count("incline-block: n (particles per edge)", n)
    a = np.radians(_check("incline-block: angle", angle, 0.0, strict=False))
    frame = incline_frame(a)
    grid = np.array(list(itertools.product(range(n), repeat=3)), dtype=float) * (_check("size", size, 0) / (n - 1))
    x = grid @ frame  # local (downhill, across, normal) coordinates to world
    spacing = size / (n - 1)
    springs, rest = springs_within(x, spacing * np.sqrt(3) * 1.001)
    m = _check("mass", mass, 0) / len(x)
    particles = Particles(
        x,
        np.zeros_like(x),
        np.full(len(x), m),
        springs,
        rest,
        np.asarray(_check("spring_stiffness", spring_stiffness, 0)),
    )
    return PenaltyModel(
        particles,
        Spheres.empty(),
        (inclined_plane(a),),
        mu=_check("mu", mu, 0, strict=False),
        stiffness=_check("stiffness", stiffness, 0),
        name=f"incline-block-a{angle:g}-mu{mu:g}",
    )


def cloth_sphere(
    n: int = 8,
    size: float = 1.0,
    mass: float = 0.1,
    mu: float = 0.3,
    radius: float = 0.3,
    drop: float = 0.02,
    spring_stiffness: float = 200.0,
    stiffness: float = 500.0,
) -> PenaltyModel:
    """A square cloth of ``n x n`` particles falling onto a fixed ball, with the floor below.

    Structural, shear and bending springs (neighbours at 1, sqrt 2 and 2 grid
    spacings) hold the sheet together; friction holds it on the ball.
    """
    n = _count("cloth-sphere: n (particles per side)", n)
    size = _check("cloth-sphere: size", size, 0)
    radius = _check("cloth-sphere: radius", radius, 0)
    side = np.linspace(-size / 2, size / 2, n)
    gx, gy = np.meshgrid(side, side, indexing="ij")
    x = np.column_stack([gx.ravel(), gy.ravel(), np.full(n * n, radius + _check("drop", drop, 0, strict=False))])
    spacing = size / (n - 1)
    springs, rest = springs_within(x, 2.0 * spacing * 1.001)
    particles = Particles(
        x,
        np.zeros_like(x),
        np.full(n * n, _check("mass", mass, 0) / (n * n)),
        springs,
        rest,
        np.asarray(_check("spring_stiffness", spring_stiffness, 0)),
    )
    obstacles = (SphereObstacle(np.zeros(3), radius), Plane(np.array([0.0, 0.0, -radius]), np.array([0.0, 0.0, 1.0])))
    return PenaltyModel(
        particles,
        Spheres.empty(),
        obstacles,
        mu=_check("mu", mu, 0, strict=False),
        stiffness=_check("stiffness", stiffness, 0),
        name=f"cloth-sphere-n{n}-mu{mu:g}",
    )


def spheres_incline(
    count: int | float = 3,
    angle: float = 20.0,
    mu: float = 0.5,
    radius: float = 0.05,
    mass: float = 0.1,
    gap: float = 0.02,
    speed: float = 1.0,
    stiffness: float = 1e4,
) -> PenaltyModel:
    """Rigid balls in a row on an incline, the uphill one launched downhill at ``speed`` so it hits the others.

    With ``mu >= 2/7 tan(angle)`` a lone ball rolls without slipping,
    ``a = 5/7 g sin(angle)``; with less friction it slides and spins up.
    """
    count = whole_number(
        int(count) if isinstance(count, float) and count.is_integer() else count,
        "spheres-incline: count",
        low=1,
        high=MAX_GRID**2,
    )
    count = int(count)
    a = np.radians(_check("spheres-incline: angle", angle, 0.0, strict=False))
    radius = _check("radius", radius, 0)
    frame = incline_frame(a)
    local = np.column_stack(
        [np.arange(count) * (2 * radius + _check("gap", gap, 0, strict=False)), np.zeros(count), np.full(count, radius)]
    )
    x = local @ frame
    v = np.zeros_like(x)
    v[0] = _check("speed", speed, 0, strict=False) * frame[0]
    spheres = Spheres(x, v, np.zeros_like(x), np.full(count, _check("mass", mass, 0)), np.full(count, radius))
    return PenaltyModel(
        Particles.empty(),
        spheres,
        (inclined_plane(a),),
        mu=_check("mu", mu, 0, strict=False),
        stiffness=_check("stiffness", stiffness, 0),
        name=f"spheres-incline-n{count}-mu{mu:g}",
    )


def cloth_rolling_sphere(
    n: int = 8,
    size: float = 0.5,
    mass: float = 0.1,
    mu: float = 0.5,
    radius: float = 0.2,
    ball_mass: float = 1.0,
    speed: float = 0.5,
    angle: float = 0.0,
    drop: float = 0.01,
    spring_stiffness: float = 200.0,
    stiffness: float = 2e3,
) -> PenaltyModel:
    """A cloth of ``n x n`` particles dropped onto a free rigid ball that rolls along the floor (the DR case).

    The ball is launched rolling without slipping, ``v = speed`` downhill and
    ``omega r = speed``; the cloth starts at rest, flat, ``drop`` above the
    ball's top, so the ball's surface drags it along through friction
    (particle against rigid body contacts, alg. 6) while the floor carries the
    ball (sphere against level set) and catches any cloth corner that reaches it.

    Parameters
    ----------
    n : int
        Particles per side (``>= 2``).
    size, mass : float
        The cloth's side (m; about 2.5 radii hangs to near the equator) and total mass (kg).
    mu : float
        Friction coefficient of every contact.
    radius, ball_mass, speed : float
        The ball (m, kg) and its launch speed (m/s).
    angle : float
        Floor tilt in degrees (the ball is launched downhill).
    drop : float
        Gap between the ball's top and the cloth (m).
    spring_stiffness, stiffness : float
        Cloth springs and contact penalty (N/m).
    """
    n = _count("cloth-rolling-sphere: n (particles per side)", n)
    a = np.radians(_check("cloth-rolling-sphere: angle", angle, 0.0, strict=False))
    size = _check("cloth-rolling-sphere: size", size, 0)
    radius = _check("cloth-rolling-sphere: radius", radius, 0)
    speed = _check("cloth-rolling-sphere: speed", speed, 0, strict=False)
    frame = incline_frame(a)  # rows: downhill, across, normal
    side = np.linspace(-size / 2, size / 2, n)
    gx, gy = np.meshgrid(side, side, indexing="ij")
    height = 2 * radius + _check("cloth-rolling-sphere: drop", drop, 0, strict=False)
    x = np.column_stack([gx.ravel(), gy.ravel(), np.full(n * n, height)]) @ frame
    springs, rest = springs_within(x, 2.0 * size / (n - 1) * 1.001)
    particles = Particles(
        x,
        np.zeros_like(x),
        np.full(n * n, _check("cloth-rolling-sphere: mass", mass, 0) / (n * n)),
        springs,
        rest,
        np.asarray(_check("cloth-rolling-sphere: spring_stiffness", spring_stiffness, 0)),
    )
    # Rolling without slipping: the contact point's velocity v + omega x (-r normal) vanishes.
    spin = speed / radius * np.cross(frame[2], frame[0])
    ball_mass = _check("cloth-rolling-sphere: ball_mass", ball_mass, 0)
    stiffness = _check("cloth-rolling-sphere: stiffness", stiffness, 0)
    # Start the ball sunk to where the floor's penalty spring carries its weight, so it does not bounce.
    sink = ball_mass * 9.81 * np.cos(a) / stiffness
    ball = Spheres(
        np.array([(radius - sink) * frame[2]]),
        np.array([speed * frame[0]]),
        np.array([spin]),
        np.array([ball_mass]),
        np.array([radius]),
    )
    mu = _check("cloth-rolling-sphere: mu", mu, 0, strict=False)
    return PenaltyModel(
        particles, ball, (inclined_plane(a),), mu=mu, stiffness=stiffness, name=f"cloth-rolling-sphere-n{n}-mu{mu:g}"
    )


def grid_cloth(n: int, size: float, frame: np.ndarray, origin) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """An ``n x n`` square cloth of side ``size`` in the plane of ``frame``'s first two rows.

    Particle ``(i, j)`` (index ``n i + j``) sits at ``origin + (i, j) spacing``
    along ``frame[0]`` and ``frame[1]``; two triangles per cell, counter-clockwise
    about ``frame[2]`` (their normal). Springs join neighbours up to two
    spacings apart (structural, shear, bending).

    Returns
    -------
    x, springs, rest, triangles : ndarray
    """
    side = np.arange(n) * (size / (n - 1))
    gi, gj = np.meshgrid(side, side, indexing="ij")
    x = np.asarray(origin, dtype=float) + np.column_stack([gi.ravel(), gj.ravel(), np.zeros(n * n)]) @ frame
    springs, rest = springs_within(x, 2.0 * size / (n - 1) * 1.001)
    cells = [
        (n * i + j, n * (i + 1) + j, n * (i + 1) + j + 1, n * i + j + 1) for i in range(n - 1) for j in range(n - 1)
    ]
    triangles = np.array([tri for a, b, c, d in cells for tri in ((a, b, c), (a, c, d))], dtype=np.int64)
    return x, springs, rest, triangles


def cloth_on_cloth(
    angle: float = 30.0,
    mu: float = 0.3,
    ground_mu: float = 1.0,
    n: int = 6,
    size: float = 1.0,
    top_n: int = 4,
    top_size: float = 0.3,
    mass: float = 0.1,
    top_mass: float = 0.02,
    speed: float = 0.0,
    gap: float = 0.002,
    spring_stiffness: float = 200.0,
    stiffness: float = 1000.0,
) -> PenaltyModel:
    """A small square cloth on a larger one lying on an incline (DD contacts, alg. 9-12).

    The bottom cloth (``n x n``, side ``size``) rests on the incline, held by
    friction ``ground_mu``; the top one (``top_n x top_n``, side ``top_size``)
    starts ``gap`` above its uphill half, launched downhill at ``speed``. Both
    cloths are surfaces; the top one's particles touch the bottom one through
    DD contacts with friction ``mu``. A uniform top cloth moves like a block:
    it sticks when ``tan(angle) < mu`` and otherwise slides with
    ``a = g (sin - mu cos)``; ``angle = 0`` with ``speed > 0`` is two cloths
    sliding over each other until friction stops the top one. The ground acts
    on the bottom cloth only: a penalty cloth has no thickness, so the top one
    would otherwise sink into the ground as deep as the bottom one.

    Parameters
    ----------
    angle : float
        Incline angle in degrees.
    mu, ground_mu : float
        Cloth-cloth and cloth-ground friction coefficients.
    n, top_n : int
        Particles per side of the bottom and the top cloth (``>= 2``).
    size, top_size, mass, top_mass : float
        Sides (m) and total masses (kg).
    speed, gap : float
        Initial downhill speed of the top cloth (m/s) and its height above the bottom one (m).
    spring_stiffness, stiffness : float
        Cloth springs and contact penalty (N/m).
    """
    n, top_n = (
        _count(f"cloth-on-cloth: {name} (particles per side)", value) for name, value in (("n", n), ("top_n", top_n))
    )
    a = np.radians(_check("cloth-on-cloth: angle", angle, 0.0, strict=False))
    size = _check("cloth-on-cloth: size", size, 0)
    top_size = _check("cloth-on-cloth: top_size", top_size, 0)
    if top_size > 0.5 * size:
        raise InputError(f"cloth-on-cloth: top_size must be at most half of size, got {top_size!r} > {0.5 * size!r}")
    frame = incline_frame(a)
    xb, sb, rb, tb = grid_cloth(n, size, frame, np.zeros(3))
    # On the uphill half, off the bottom grid's lines so no particle starts over an edge or a vertex.
    origin = (
        np.array([0.12 * size, 0.5 * (size - top_size) + 0.0131 * size, _check("cloth-on-cloth: gap", gap, 0)]) @ frame
    )
    xt, st, rt, tt = grid_cloth(top_n, top_size, frame, origin)
    nb = len(xb)
    x = np.vstack([xb, xt])
    v = np.zeros_like(x)
    v[nb:] = _check("cloth-on-cloth: speed", speed, 0, strict=False) * frame[0]
    masses = np.concatenate(
        [
            np.full(nb, _check("cloth-on-cloth: mass", mass, 0) / nb),
            np.full(len(xt), _check("cloth-on-cloth: top_mass", top_mass, 0) / len(xt)),
        ]
    )
    particles = Particles(
        x,
        v,
        masses,
        np.vstack([sb, st + nb]),
        np.concatenate([rb, rt]),
        np.asarray(_check("cloth-on-cloth: spring_stiffness", spring_stiffness, 0)),
    )
    surfaces = (TriangleMesh(tb), TriangleMesh(tt + nb))
    return PenaltyModel(
        particles,
        Spheres.empty(),
        (inclined_plane(a),),
        mu=_check("cloth-on-cloth: mu", mu, 0, strict=False),
        stiffness=_check("cloth-on-cloth: stiffness", stiffness, 0),
        name=f"cloth-on-cloth-a{angle:g}-mu{mu:g}",
        surfaces=surfaces,
        obstacle_mu=(_check("cloth-on-cloth: ground_mu", ground_mu, 0, strict=False),),
        obstacle_particles=(np.arange(nb),),
    )


#: Scene builders by name (``qlsbench simulate --scene ...``), with the time step each was tuned for.
PENALTY_SCENES: dict[str, tuple[Callable[..., PenaltyModel], float]] = {
    "incline-block": (incline_block, 1e-3),
    "cloth-sphere": (cloth_sphere, 5e-3),
    "spheres-incline": (spheres_incline, 1e-3),
    "cloth-rolling-sphere": (cloth_rolling_sphere, 2.5e-3),
    "cloth-on-cloth": (cloth_on_cloth, 2e-3),
}


def build_penalty_scene(name: str, **params) -> PenaltyModel:
    """Build scene ``name`` with keyword parameters of its builder."""
    if name not in PENALTY_SCENES:
        raise InputError(f"unknown penalty scene {name!r}; choose from {', '.join(PENALTY_SCENES)}")
    builder = PENALTY_SCENES[name][0]
    # Text a number's spelling ("1e6" from YAML 1.1 or --param) is that number here, as on every path.
    params = {key: number_text(value) for key, value in params.items()}
    try:
        return builder(**params)
    except TypeError as exc:
        raise InputError(f"scene {name}: {exc}") from None
