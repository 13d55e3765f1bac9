"""The simulated world of the penalty family: particles with springs, rigid spheres, fixed obstacles.

Degrees of freedom are velocities, laid out as ``[particle 0 (3), ..., particle
P-1 (3), sphere 0 (v 3, omega 3), ...]``; backward Euler solves for their
change ``dv`` over one step. The registered attachments (one per touching
pair) are the only history a step carries besides positions and velocities.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from qlsbench.errors import InputError
from qlsbench.physics.penalty.mesh import TriangleMesh


def _array(value, shape_tail: tuple, name: str, dtype=float) -> np.ndarray:
    arr = np.asarray(value, dtype=dtype)
    if arr.ndim != 1 + len(shape_tail) or arr.shape[1:] != shape_tail:
        raise InputError(f"{name} must have shape (n, {', '.join(map(str, shape_tail))}), got {arr.shape}")
    if dtype is float and not np.all(np.isfinite(arr)):
        raise InputError(f"{name} holds a non-finite value")
    return arr.copy()


@dataclass
class Particles:
    """Point masses joined by linear springs (a deformable body: block, cloth)."""

    x: np.ndarray
    v: np.ndarray
    mass: np.ndarray
    springs: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    rest: np.ndarray = field(default_factory=lambda: np.zeros(0))
    stiffness: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def __post_init__(self):
        self.x = _array(self.x, (3,), "particles.x")
        self.v = _array(self.v, (3,), "particles.v")
        self.mass = np.asarray(self.mass, dtype=float).reshape(-1).copy()
        self.springs = _array(self.springs, (2,), "particles.springs", dtype=np.int64)
        self.rest = np.asarray(self.rest, dtype=float).reshape(-1).copy()
        self.stiffness = np.broadcast_to(np.asarray(self.stiffness, dtype=float), self.rest.shape).copy()
        n = len(self.x)
        if self.v.shape != self.x.shape or self.mass.shape != (n,):
            raise InputError(f"particles: x {self.x.shape}, v {self.v.shape} and mass {self.mass.shape} disagree")
        if not np.all(self.mass > 0):
            raise InputError("particles.mass must be > 0")
        if len(self.rest) != len(self.springs):
            raise InputError(f"particles: {len(self.springs)} springs but {len(self.rest)} rest lengths")
        if len(self.springs) and (self.springs.min() < 0 or self.springs.max() >= n):
            raise InputError(f"particles.springs index a particle outside 0..{n - 1}")

    @classmethod
    def empty(cls) -> Particles:
        return cls(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0))


@dataclass
class Spheres:
    """Rigid balls (uniform density, so the inertia ``2/5 m r^2`` is isotropic and gyroscopic terms vanish)."""

    x: np.ndarray
    v: np.ndarray
    omega: np.ndarray
    mass: np.ndarray
    radius: np.ndarray
    R: np.ndarray = None  # type: ignore[assignment]  # None: identity rotations, set by __post_init__

    def __post_init__(self):
        self.x = _array(self.x, (3,), "spheres.x")
        self.v = _array(self.v, (3,), "spheres.v")
        self.omega = _array(self.omega, (3,), "spheres.omega")
        n = len(self.x)
        self.mass = np.asarray(self.mass, dtype=float).reshape(-1).copy()
        self.radius = np.asarray(self.radius, dtype=float).reshape(-1).copy()
        self.R = np.tile(np.eye(3), (n, 1, 1)) if self.R is None else np.asarray(self.R, dtype=float).copy()
        if self.mass.shape != (n,) or self.radius.shape != (n,) or self.R.shape != (n, 3, 3):
            raise InputError("spheres: x, mass, radius and R disagree in length")
        if not (np.all(self.mass > 0) and np.all(self.radius > 0)):
            raise InputError("spheres.mass and spheres.radius must be > 0")

    @classmethod
    def empty(cls) -> Spheres:
        return cls(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0), np.zeros(0))

    @property
    def inertia(self) -> np.ndarray:
        return 0.4 * self.mass * self.radius**2


@dataclass
class PenaltyModel:
    """Bodies, obstacles and contact parameters of one penalty-friction scene.

    Parameters
    ----------
    particles, spheres : Particles, Spheres
    obstacles : sequence
        Fixed level sets (:mod:`qlsbench.physics.penalty.levelsets`).
    mu : float
        Coulomb friction coefficient of every contact.
    stiffness : float
        Penalty stiffness ``k`` (N/m): a contact pushes with ``k (Y - Z)``.
    gravity : ndarray (3,)
    name : str
        Scene label stored with exported systems.
    surfaces : tuple of TriangleMesh
        Deformable surfaces over the particles; other particles touching
        them make DD contacts (alg. 9-12).
    obstacle_mu : tuple of (float or None)
        Friction against each obstacle, by index; ``None`` or missing: ``mu``.
    obstacle_particles : tuple of (ndarray or None)
        The particles each obstacle acts on, by index; ``None`` or missing:
        all. Penalty cloths have no thickness, so a cloth lying on another on
        the ground sinks as deep as the one below it; restricting the ground to
        the bottom cloth keeps the top one's support where it belongs.
    """

    particles: Particles
    spheres: Spheres
    obstacles: tuple
    mu: float
    stiffness: float
    gravity: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, -9.81]))
    name: str = ""
    time: float = 0.0
    steps_taken: int = 0
    attachments: dict = field(default_factory=dict)
    surfaces: tuple = ()
    obstacle_mu: tuple = ()
    obstacle_particles: tuple = ()

    def __post_init__(self):
        if not (np.isfinite(self.mu) and self.mu >= 0):
            raise InputError(f"mu must be >= 0, got {self.mu!r}")
        if not (np.isfinite(self.stiffness) and self.stiffness > 0):
            raise InputError(f"penalty stiffness must be > 0, got {self.stiffness!r}")
        self.obstacles = tuple(self.obstacles)
        self.gravity = np.asarray(self.gravity, dtype=float).reshape(3)
        self.surfaces = tuple(self.surfaces)
        for i, mesh in enumerate(self.surfaces):
            if not isinstance(mesh, TriangleMesh):
                raise InputError(f"surface {i} must be a TriangleMesh, got {type(mesh).__name__}")
            if mesh.triangles.max() >= self.n_particles:
                raise InputError(
                    f"surface {i} uses particle {mesh.triangles.max()}, but there are {self.n_particles} particles"
                )
        self.obstacle_mu = tuple(None if m is None else float(m) for m in self.obstacle_mu)
        if len(self.obstacle_mu) > len(self.obstacles):
            raise InputError(f"obstacle_mu has {len(self.obstacle_mu)} entries for {len(self.obstacles)} obstacles")
        if any(m is not None and not (np.isfinite(m) and m >= 0) for m in self.obstacle_mu):
            raise InputError(f"obstacle_mu must be >= 0, got {self.obstacle_mu!r}")
        if len(self.obstacle_particles) > len(self.obstacles):
            raise InputError(
                f"obstacle_particles has {len(self.obstacle_particles)} entries for {len(self.obstacles)} obstacles"
            )
        self.obstacle_particles = tuple(
            None if ps is None else np.unique(np.asarray(ps, dtype=np.int64)) for ps in self.obstacle_particles
        )
        for ps in self.obstacle_particles:
            if ps is not None and len(ps) and (ps[0] < 0 or ps[-1] >= self.n_particles):
                raise InputError(f"obstacle_particles index a particle outside 0..{self.n_particles - 1}")

    def friction(self, obstacle: int) -> float:
        """The friction coefficient against obstacle ``obstacle``."""
        if obstacle < len(self.obstacle_mu) and self.obstacle_mu[obstacle] is not None:
            return self.obstacle_mu[obstacle]
        return self.mu

    def touching(self, obstacle: int, distance: np.ndarray) -> np.ndarray:
        """Particles penetrating obstacle ``obstacle`` (``distance <= 0``) among those it acts on."""
        hit = distance <= 0.0
        if obstacle < len(self.obstacle_particles) and self.obstacle_particles[obstacle] is not None:
            hit &= np.isin(np.arange(len(distance)), self.obstacle_particles[obstacle])
        return np.flatnonzero(hit)

    @property
    def n_particles(self) -> int:
        return len(self.particles.x)

    @property
    def n_spheres(self) -> int:
        return len(self.spheres.x)

    @property
    def ndof(self) -> int:
        return 3 * self.n_particles + 6 * self.n_spheres

    def sphere_dofs(self, b: int) -> np.ndarray:
        """Indices of sphere ``b``'s ``(v, omega)`` in the velocity vector."""
        start = 3 * self.n_particles + 6 * b
        return np.arange(start, start + 6)

    def mass_vector(self) -> np.ndarray:
        """Diagonal of the mass matrix ``M``."""
        sp = self.spheres
        per_sphere = np.column_stack([np.repeat(sp.mass[:, None], 3, 1), np.repeat(sp.inertia[:, None], 3, 1)])
        return np.concatenate([np.repeat(self.particles.mass, 3), per_sphere.reshape(-1)])

    def velocity_vector(self) -> np.ndarray:
        sp = self.spheres
        return np.concatenate([self.particles.v.reshape(-1), np.column_stack([sp.v, sp.omega]).reshape(-1)])

    def momentum(self) -> np.ndarray:
        """Total linear momentum."""
        return self.particles.mass @ self.particles.v + self.spheres.mass @ self.spheres.v

    def kinetic_energy(self) -> float:
        return 0.5 * float(self.mass_vector() @ self.velocity_vector() ** 2)
