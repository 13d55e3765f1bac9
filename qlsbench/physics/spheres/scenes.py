"""Scenes: rigid spheres and the static walls around them.

A scene is plain state (positions, velocities, radii, densities, gravity and
walls); the time stepper advances it and nothing here knows about solvers.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from qlsbench.checks import whole_number
from qlsbench.errors import InputError

GRAVITY = 9.81
#: Most spheres a scene holds. Placement is linear in the count (a cell grid), but the contact LCPs of the
#: stepper are solved on one core; 50,000 is far past what a time step of a few seconds allows.
MAX_SPHERES = 50_000


@dataclass(frozen=True)
class Plane:
    """A half-space wall ``{x : (x - point) . normal >= 0}`` is free; normal is unit."""

    point: np.ndarray
    normal: np.ndarray


@dataclass(frozen=True)
class SphericalContainer:
    """A hollow rigid sphere; spheres live inside it."""

    center: np.ndarray
    radius: float


Wall = Plane | SphericalContainer


@dataclass
class Scene:
    """State of ``N`` spheres (translation only, as in the DEM-C paper).

    Attributes
    ----------
    positions, velocities : numpy.ndarray
        ``(N, 3)`` centres and velocities.
    radii, densities : numpy.ndarray
        ``(N,)`` per sphere.
    gravity : numpy.ndarray
        Acceleration vector ``(3,)``.
    walls : tuple of Plane or SphericalContainer
        Static boundaries.
    name : str
        Scene kind, recorded with exported systems.
    time : float
        Simulated time.
    """

    positions: np.ndarray
    velocities: np.ndarray
    radii: np.ndarray
    densities: np.ndarray
    gravity: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, -GRAVITY]))
    walls: tuple = ()
    name: str = "custom"
    time: float = 0.0

    def __post_init__(self) -> None:
        self.positions = np.array(self.positions, dtype=np.float64).reshape(-1, 3)
        n = len(self.positions)
        self.velocities = np.array(self.velocities, dtype=np.float64).reshape(n, 3)
        self.radii = np.broadcast_to(np.asarray(self.radii, dtype=np.float64), (n,)).copy()
        self.densities = np.broadcast_to(np.asarray(self.densities, dtype=np.float64), (n,)).copy()
        self.gravity = np.asarray(self.gravity, dtype=np.float64).reshape(3)
        if np.any(self.radii <= 0):
            raise InputError("sphere radii must be > 0")
        if np.any(self.densities <= 0):
            raise InputError("sphere densities must be > 0")
        if not (np.all(np.isfinite(self.positions)) and np.all(np.isfinite(self.velocities))):
            raise InputError("sphere positions and velocities must be finite")

    @property
    def n_spheres(self) -> int:
        return int(len(self.positions))

    @property
    def masses(self) -> np.ndarray:
        """``(N,)`` masses, density times volume."""
        return self.densities * (4.0 / 3.0) * np.pi * self.radii**3

    def copy(self) -> Scene:
        return replace(self, positions=self.positions.copy(), velocities=self.velocities.copy())


def _check_count(n_spheres: int) -> int:
    return whole_number(n_spheres, "n_spheres", low=1, high=MAX_SPHERES)


#: Volume fraction above which placement is refused before any attempt. Random sequential addition jams near 0.38
#: in bulk (lower against a wall); its attempts would run out after seconds (500 spheres: 11 s) to the same end.
RSA_REFUSED_FRACTION = 0.5


def place_in_sphere(
    n_spheres: int, radius: float, container_radius: float, rng: np.random.Generator, max_attempts_per_sphere: int = 200
) -> np.ndarray:
    """Random non-overlapping centres inside a sphere (random sequential addition).

    Random sequential addition jams near a volume fraction of 0.38; past that
    no number of attempts helps, so the attempt budget is kept small and the
    failure is reported quickly.

    Raises
    ------
    InputError
        If the spheres cannot all be placed: too many for the container.
    """
    free = container_radius - radius
    if free <= 0:
        raise InputError(f"sphere radius {radius:g} does not fit in container radius {container_radius:g}")
    fraction = n_spheres * (radius / container_radius) ** 3
    if fraction > RSA_REFUSED_FRACTION:  # no attempt budget can place these: say so at once, not after 200 per sphere
        raise InputError(
            f"{n_spheres} spheres of radius {radius:g} would fill {fraction:.0%} of a container of "
            f"radius {container_radius:g}; random placement jams near 38%: use fewer spheres or a "
            "larger container"
        )
    centres = np.empty((n_spheres, 3))
    grid = _CellGrid(2 * radius)
    placed = 0
    attempts = 0
    limit = max_attempts_per_sphere * n_spheres
    while placed < n_spheres:
        if attempts >= limit:
            raise InputError(
                f"could place only {placed} of {n_spheres} spheres of radius {radius:g} without "
                f"overlap in a container of radius {container_radius:g}; use fewer spheres or a "
                "larger container"
            )
        # Draw candidates in batches: uniform in the ball via normalised Gaussian direction and r ~ U^(1/3).
        batch = rng.normal(size=(64, 3))
        batch *= (free * rng.random(64) ** (1 / 3) / np.linalg.norm(batch, axis=1))[:, None]
        for c in batch:
            attempts += 1
            near = grid.near(c)
            if not near or np.min(np.sum((centres[near] - c) ** 2, axis=1)) >= (2 * radius) ** 2:
                centres[placed] = c
                grid.add(c, placed)
                placed += 1
                if placed == n_spheres:
                    break
    return centres


class _CellGrid:
    """Placed centres by cell of a cubic grid, so an overlap test looks at the 27 cells around a point only.

    Cells are a hair wider than the contact distance ``d``: a centre two or
    more cells away is then farther than ``d`` by far more than rounding, so
    the test accepts exactly what a test against every centre would (and
    placements, hence datasets, are those of the all-pairs test), in time
    independent of the number placed.
    """

    def __init__(self, distance: float) -> None:
        self.size = distance * (1 + 1e-9)
        self.cells: dict[tuple[int, int, int], list[int]] = {}

    def _cell(self, c: np.ndarray) -> tuple[int, int, int]:
        i, j, k = np.floor(c / self.size).astype(int)
        return int(i), int(j), int(k)

    def near(self, c: np.ndarray) -> list[int]:
        """Indices of placed centres in the cell of ``c`` and its 26 neighbours, in placement order."""
        i, j, k = self._cell(c)
        found = [
            p
            for di in (-1, 0, 1)
            for dj in (-1, 0, 1)
            for dk in (-1, 0, 1)
            for p in self.cells.get((i + di, j + dj, k + dk), ())
        ]
        return sorted(found)

    def add(self, c: np.ndarray, index: int) -> None:
        self.cells.setdefault(self._cell(c), []).append(index)


def sedimentation(
    n_spheres: int = 32,
    *,
    radius: float = 0.05,
    density: float = 1000.0,
    packing: float = 0.2,
    container_radius: float | None = None,
    seed: int = 0,
) -> Scene:
    """Spheres at rest, placed at random inside a hollow spherical container, falling under gravity.

    Parameters
    ----------
    n_spheres : int
        Number of spheres.
    radius, density : float
        Of every sphere (monodisperse).
    packing : float
        Volume fraction used to size the container when ``container_radius`` is not given.
    container_radius : float, optional
        Inner radius of the container.
    seed : int
        Seed of the placement.
    """
    n = _check_count(n_spheres)
    if radius <= 0 or density <= 0:
        raise InputError(f"radius and density must be > 0, got radius={radius!r}, density={density!r}")
    if container_radius is None:
        if not 0 < packing < 0.5:
            raise InputError(f"packing must be in (0, 0.5), got {packing!r}")
        container_radius = radius * (n / packing) ** (1 / 3) + radius
    rng = np.random.default_rng(seed)
    centres = place_in_sphere(n, radius, container_radius, rng)
    return Scene(
        centres,
        np.zeros((n, 3)),
        np.asarray(radius),
        np.asarray(density),
        walls=(SphericalContainer(np.zeros(3), float(container_radius)),),
        name="sedimentation",
    )


def floor(positions, *, radius: float = 0.05, density: float = 1000.0, gravity=None, velocities=None) -> Scene:
    """Spheres above the floor ``z = 0`` under gravity (default straight down)."""
    positions = np.asarray(positions, dtype=float).reshape(-1, 3)
    g = np.array([0.0, 0.0, -GRAVITY]) if gravity is None else np.asarray(gravity, dtype=float)
    v = np.zeros_like(positions) if velocities is None else velocities
    return Scene(
        positions,
        v,
        np.asarray(radius),
        np.asarray(density),
        gravity=g,
        walls=(Plane(np.zeros(3), np.array([0.0, 0.0, 1.0])),),
        name="floor",
    )


def free(positions, velocities, *, radius: float = 0.05, density: float = 1000.0) -> Scene:
    """Spheres with no gravity and no walls."""
    return Scene(positions, velocities, np.asarray(radius), np.asarray(density), gravity=np.zeros(3), name="free")


#: Scenes the command line and workflow can build by name.
SCENES = {"sedimentation": sedimentation}


def turning_gravity(start_deg: float, omega: float, h: float):
    """``gravity(k)`` for step ``k`` of length ``h``: ``GRAVITY`` tilted from -z towards +y by ``start_deg`` at
    the start and turning at ``omega`` rad/s, so the bottom of a spherical container keeps moving away from the
    pile (a container tumbling about a horizontal axis, its centrifugal and Coriolis forces left out)."""

    def gravity(k: int) -> np.ndarray:
        angle = np.radians(start_deg) + omega * (k + 1) * h
        return GRAVITY * np.array([0.0, np.sin(angle), -np.cos(angle)])

    return gravity


def build_scene(name: str, **params) -> Scene:
    """Build a named scene; unknown names raise an error listing the known ones."""
    if name not in SCENES:
        raise InputError(f"unknown scene {name!r}; available: {', '.join(sorted(SCENES))}")
    return SCENES[name](**params)
