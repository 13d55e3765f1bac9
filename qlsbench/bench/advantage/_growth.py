"""The growth axes: each family's systems as its simulation (or grid) grows, one generator per family.

A family's size is the number its simulation is told (spheres, grid points per axis, qubits); each generator
returns the system the map measures at that size, unpadded and unnormalised (the map asks how the systems
themselves grow; padding to ``2^n`` is a quantum circuit's business, counted by the estimates).

* ``dem_c-mu0``: the frictionless sedimentation (seed 0, ``h = 1e-3``) after :data:`DEM_STEPS` steps, the
  largest min-map Newton subsystem of the steps kept (every :data:`DEM_EVERY`-th): about 2.5 unknowns per sphere
  once the pile has settled (1,000 spheres: 2,542 unknowns).
* ``ising``: Bravo-Prieto et al.'s problem at ``kappa = 10`` (:func:`~qlsbench.problems.ising_inspired`).
* ``poisson-1d``, ``poisson-2d``, ``poisson-3d``: the control (:func:`~qlsbench.problems.poisson`), ``size`` points
  per axis.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from qlsbench.checks import whole_number
from qlsbench.errors import InputError
from qlsbench.problems import LinearSystem, ising_inspired, poisson

#: The frictionless pile's steps and how often a step's Newton subsystems are kept.
DEM_STEPS, DEM_EVERY = 1200, 50


def _dem_c_mu0(spheres: int) -> LinearSystem:
    from qlsbench.physics import StepOptions, SubsystemRecorder, build_scene, simulate

    scene = build_scene("sedimentation", n_spheres=spheres, seed=0)
    recorder = SubsystemRecorder(every=DEM_EVERY)
    simulate(scene, DEM_STEPS, StepOptions(h=1e-3, mu=0.0), capture=recorder)
    if not recorder.records:
        raise InputError(f"growth dem_c-mu0: {spheres} spheres formed no contact in {DEM_STEPS} steps")
    A, b, context = max(recorder.records, key=lambda record: record[0].shape[0])  # the first of the largest
    return LinearSystem(A, b, meta={"family": "dem_c", "spheres": spheres, "step": context.get("step")})


@dataclass(frozen=True)
class Axis:
    """A family's growth axis: what its size counts, the sizes of the small and full sweeps, the generator."""

    counts: str
    small: tuple[int, ...]
    full: tuple[int, ...]
    build: Callable[[int], LinearSystem]
    largest: int  # the largest size built: past it a typo asks for more than the machine holds


#: The growth axes, by family.
AXES = {
    "dem_c-mu0": Axis(
        "spheres", (10, 30, 100, 300, 1000), (10, 30, 100, 300, 1000, 3000, 10000, 15000), _dem_c_mu0, 20000
    ),
    "ising": Axis(
        "qubits", (4, 6, 8, 10, 12), (4, 6, 8, 10, 12, 14, 16, 18, 20), lambda n: ising_inspired(n, 10.0), 20
    ),
    "poisson-1d": Axis(
        "points", (64, 256, 1024, 4096), (64, 256, 1024, 4096, 16384, 65536), lambda m: poisson(1, m), 2**20
    ),
    "poisson-2d": Axis("points per axis", (8, 16, 32, 64), (8, 16, 32, 64, 128, 256), lambda m: poisson(2, m), 1024),
    "poisson-3d": Axis("points per axis", (4, 8, 16), (4, 8, 16, 32, 40), lambda m: poisson(3, m), 100),
}


def check_sizes(family: str, sizes) -> list[int]:
    """``sizes`` as whole numbers within ``family``'s axis, or one line naming the first that is not."""
    if family not in AXES:
        raise InputError(f"growth family {family!r} is unknown; known: {', '.join(AXES)}")
    axis = AXES[family]
    return [whole_number(size, f"growth {family}: {axis.counts}", low=1, high=axis.largest) for size in sizes]


def grown(family: str, size: int) -> LinearSystem:
    """The system of ``family`` at ``size`` (module docstring)."""
    (size,) = check_sizes(family, [size])
    return AXES[family].build(size)
