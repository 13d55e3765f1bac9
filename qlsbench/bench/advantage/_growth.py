"""The growth axes: each family's systems as its simulation (or grid) grows, one generator per family.

A family's size is the number its simulation is told (spheres, grid points per axis, qubits); each generator
returns the system the map measures at that size, unpadded and unnormalised (the map asks how the systems
themselves grow; padding to ``2^n`` is a quantum circuit's business, counted by the estimates).

* ``dem_c-mu0``: the frictionless sedimentation (seed 0, ``h = 1e-3``) after :data:`DEM_STEPS` steps, the
  largest min-map Newton subsystem of the steps kept (every :data:`DEM_EVERY`-th): about 2.4 unknowns per sphere
  once the pile has settled (1,000 spheres: 2,542 unknowns; 15,000: 36,221). 30,000 spheres are for a system of
  2^16 unknowns (the unknowns per sphere fall as piles grow: 2.54 at 3,000, 2.41 at 15,000): the 15,000-sphere
  pile took 1.9 h to settle (16 s a step at its end), so that one is built over several sittings (resumable,
  :func:`grown`); above :data:`DEM_CG_ABOVE` spheres the Newton directions are solved by CG.
* ``dem_c-mu0.3``: the same pile settled frictionless for :data:`DEM_STEPS` steps, then :data:`FRICTION_STEPS`
  steps at ``mu = 0.3`` with the frictional datasets' settings (8 friction directions, Tikhonov 1e-8); the largest
  Newton subsystem of those steps. Settling with friction costs 14 s a step at 1,000 spheres (docs/scale.md),
  which the frictionless fall avoids: the systems are those of a settled pile's first frictional steps.
* ``penalty-cloth``: the penalty-friction cloth falling onto a ball (``cloth-sphere``, ``size`` particles per side,
  3 size^2 unknowns, non-symmetric), the last Newton system of :data:`CLOTH_STEPS` backward-Euler steps (the cloth
  lies on the ball by then). The full axis stops at 48 per side (6,912 unknowns): its 20 steps took 897 s there
  against 30 s at 32, so 64 per side would take the better part of an hour.
* ``cd_lagrange-cradle``: Newton's cradle of ``size`` balls under the CD-Lagrange integrator with simultaneous
  impacts: the largest min-map Newton subsystem of the first impact's LCP (the impulse runs down the whole chain,
  so the last subsystem holds every contact: ``size - 1`` unknowns, tridiagonal).
* ``ising``: Bravo-Prieto et al.'s problem at ``kappa = 10`` (:func:`~qlsbench.problems.ising_inspired`).
* ``poisson-1d``, ``poisson-2d``, ``poisson-3d``: the control (:func:`~qlsbench.problems.poisson`), ``size`` points
  per axis. The 2-D axis stops at 512 (2^18 unknowns): at 256 GMRES(50) with ILU took 41-69 s a run (the
  whole size 497 s), and each doubling of the grid multiplies that by about 8.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from tqdm.auto import tqdm

from qlsbench.checks import whole_number
from qlsbench.errors import InputError
from qlsbench.problems import LinearSystem, ising_inspired, poisson

#: The frictionless pile's steps and how often a step's Newton subsystems are kept.
DEM_STEPS, DEM_EVERY = 1200, 50
#: Piles of more spheres take their Newton directions by conjugate gradients (``lu="cg"``,
#: :attr:`~qlsbench.physics.lcp.NewtonOptions.lu`): at 30,000 spheres a step took 113 s with a SuperLU factorisation
#: per Newton iteration (18 of them, 2.3-2.6 s of CPU each), CG 0.08 s a system. The sizes up to this one were built
#: by factorisation and keep their bytes; a step's answer meets the same tolerance either way.
DEM_CG_ABOVE = 15_000
#: Frictional steps taken from the settled pile.
FRICTION_STEPS = 2
#: Seconds between two saves of a resumable build (a 10,000-sphere pile's step takes about 4 s).
CHECKPOINT_SECONDS = 300.0
#: The cloth's backward-Euler steps (h = 5e-3: it falls 2 cm onto the ball within about 13).
CLOTH_STEPS = 20


@dataclass
class _Largest:
    """A ``capture`` that keeps, of the subsystems of every ``every``-th step with ``b != 0``, only the first of the
    largest: what :class:`~qlsbench.physics.SubsystemRecorder` would keep followed by ``max`` over its records,
    without the rest (at 15,000 spheres they would put ~0.5 GB in each checkpoint)."""

    every: int
    records: list = field(default_factory=list)

    def wants(self, step: int) -> bool:
        """Whether the stepper should hand over ``step``'s subsystems (it skips the work for the others)."""
        return step % self.every == 0

    def __call__(self, A, b, context: dict) -> None:
        if not self.wants(context["step"]) or not np.any(b):
            return
        if not self.records or A.shape[0] > self.records[0][0].shape[0]:
            self.records = [(A.copy(), b.copy(), dict(context))]


def _settle(scene, steps: int, options, recorder, checkpoint=None, key: str = "") -> float:
    """``simulate(scene, steps, options, capture=recorder)``, saving itself to ``checkpoint`` as it goes.

    A build killed part way resumes from the last save and ends as the uninterrupted one would (the state saved
    is the scene, the warm start, the sweep budget and the recorder: everything a step reads). Returns the
    seconds spent by earlier, interrupted parts.
    """
    from qlsbench.physics import SweepBudget, WarmStart, step

    state = checkpoint.load(key) if checkpoint is not None else None
    if state is None:
        state = {"scene": scene, "warm": WarmStart() if options.warm_start else None, "budget": SweepBudget()}
        state.update(recorder=recorder, next=0, seconds=0.0)
    else:
        scene.__dict__.update(state["scene"].__dict__)  # the caller's scene object advances, as simulate's does
        recorder.records = state["recorder"].records
    earlier, start = state["seconds"], time.perf_counter()
    label = f"{scene.name} N={scene.n_spheres}"  # shown on a terminal only (disable=None): a build of hours
    bar = tqdm(total=steps, initial=state["next"], desc=label, unit="step", leave=False, disable=None)
    with bar:
        for k in range(state["next"], steps):
            step(scene, options, index=k, capture=recorder, warm=state["warm"], budget=state["budget"])
            bar.update()
            if checkpoint is not None:
                state.update(scene=scene, recorder=recorder, next=k + 1, seconds=earlier + time.perf_counter() - start)
                checkpoint.save(key, state, force=k + 1 == steps)
    return earlier


def _dem_c_mu0(spheres: int, checkpoint=None) -> LinearSystem:
    from qlsbench.physics import NewtonOptions, StepOptions, build_scene

    scene = build_scene("sedimentation", n_spheres=spheres, seed=0)
    recorder = _Largest(every=DEM_EVERY)
    options = StepOptions(h=1e-3, mu=0.0, newton=NewtonOptions(lu="cg" if spheres > DEM_CG_ABOVE else "symmetric"))
    # a changed axis never resumes an old build; the options by what the build reads (StepOptions.identity)
    key = f"('dem_c-mu0', {spheres}, {DEM_STEPS}, {DEM_EVERY}, {options.identity()})"
    earlier = _settle(scene, DEM_STEPS, options, recorder, checkpoint, key)
    if not recorder.records:
        raise InputError(f"growth dem_c-mu0: {spheres} spheres formed no contact in {DEM_STEPS} steps")
    A, b, context = recorder.records[0]  # the first of the largest
    meta = {"family": "dem_c", "spheres": spheres, "step": context.get("step")}
    if options.newton.lu == "cg":  # only then: the smaller piles' systems keep their bytes
        meta["newton_lu"] = "cg"
    return LinearSystem(A, b, meta=meta if checkpoint is None else {**meta, "earlier_seconds": earlier})


def _dem_c_mu03(spheres: int) -> LinearSystem:
    from qlsbench.families.spheres import SphereOptions
    from qlsbench.physics import StepOptions, SubsystemRecorder, build_scene, simulate

    scene = build_scene("sedimentation", n_spheres=spheres, seed=0)
    simulate(scene, DEM_STEPS, StepOptions(h=1e-3, mu=0.0))
    recorder = SubsystemRecorder(every=1)
    # the frictional datasets' own settings (dataset v2's chain, Tikhonov 1e-8 as paper.yaml's frictional run):
    # without the regularisation a settled pile's contact sets give exactly singular Newton systems
    frictional = SphereOptions(mu=0.3, regularization=1e-8).step_options("dem_c")
    simulate(scene, FRICTION_STEPS, frictional, capture=recorder)
    if not recorder.records:
        raise InputError(f"growth dem_c-mu0.3: {spheres} spheres formed no contact in {DEM_STEPS} steps")
    A, b, context = max(recorder.records, key=lambda record: record[0].shape[0])
    return LinearSystem(A, b, meta={"family": "dem_c", "spheres": spheres, "mu": 0.3, "step": context.get("step")})


def _penalty_cloth(side: int) -> LinearSystem:
    from qlsbench.families.penalty import capture_into
    from qlsbench.physics import SubsystemRecorder
    from qlsbench.physics.penalty import PENALTY_SCENES, build_penalty_scene, simulate_penalty

    model = build_penalty_scene("cloth-sphere", n=side)
    recorder = SubsystemRecorder(every=1)
    simulate_penalty(model, CLOTH_STEPS, PENALTY_SCENES["cloth-sphere"][1], capture=capture_into(recorder, 3 * side**2))
    A, b, context = recorder.records[-1]
    return LinearSystem(A, b, meta={"family": "penalty", "scene": model.name, "step": context.get("step")})


def _cradle(balls: int) -> LinearSystem:
    from qlsbench.physics.cdlagrange import newtons_cradle
    from qlsbench.physics.lcp import LCP, NewtonOptions, minmap_newton

    system, Q0, v0 = newtons_cradle(balls=balls)
    h, inv_m, v = 0.02, 1.0 / system.mass, np.asarray(v0, dtype=float)
    Q = np.asarray(Q0, dtype=float) + h * v
    v_free = v + h * system.force(Q) * inv_m
    N = sp.csr_matrix(system.normals[np.flatnonzero(system.gaps(Q) <= 0.0)])
    captured: list = []
    D = sp.csr_matrix(N @ sp.diags(inv_m) @ N.T)
    lcp = LCP(D, N @ v_free + system.restitution * np.minimum(0.0, N @ v))
    # From zero the active set grows by about one contact per Newton iteration as the impulse runs down the chain.
    options = NewtonOptions(max_iter=2 * balls + 50)
    minmap_newton(lcp, options=options, capture=lambda A, b, _: captured.append((A, b)))
    A, b = max(captured, key=lambda record: record[0].shape[0])
    return LinearSystem(sp.csr_matrix(A), np.asarray(b, dtype=float), meta={"family": "cd_lagrange", "balls": balls})


@dataclass(frozen=True)
class Axis:
    """A family's growth axis: what its size counts, the sizes of the small and full sweeps, the generator."""

    counts: str
    small: tuple[int, ...]
    full: tuple[int, ...]
    build: Callable[..., LinearSystem]  # (size) or, where resumable, (size, checkpoint=...)
    largest: int  # the largest size built: past it a typo asks for more than the machine holds
    #: Largest N a sparse factorisation (SuperLU, CHOLMOD, the incomplete LU, the shift-invert behind sigma_min) runs
    #: at: above it CG stands in (``None``: every size). The Ising matrices fill in to ~0.7 N^2 entries: 46 million
    #: and 31 s at 2^13, 46 GB at 2^16.
    direct_limit: int | None = None
    #: Whether ``build`` takes a ``checkpoint`` (:class:`~qlsbench.bench._checkpoints.Checkpoint`) to save itself
    #: to as it goes: a build of hours (the 15,000-sphere pile) is resumed, not started again.
    resumable: bool = False

    def factorise(self, n: int) -> bool:
        """Whether a system of ``n`` unknowns on this axis is factorised."""
        return self.direct_limit is None or n <= self.direct_limit


#: The growth axes, by family.
AXES = {
    "dem_c-mu0": Axis(
        "spheres",
        (10, 30, 100, 300, 1000),
        (10, 30, 100, 300, 1000, 3000, 10000, 15000, 30000),
        _dem_c_mu0,
        30000,
        resumable=True,
    ),
    "dem_c-mu0.3": Axis("spheres", (10, 30, 100, 300), (10, 30, 100, 300, 1000), _dem_c_mu03, 2000),
    "penalty-cloth": Axis("particles per side", (4, 8, 16, 24), (4, 8, 16, 24, 32, 48), _penalty_cloth, 128),
    "cd_lagrange-cradle": Axis("balls", (4, 16, 64, 256, 1024), (4, 16, 64, 256, 1024, 4096), _cradle, 4096),
    "ising": Axis(
        "qubits", (4, 6, 8, 10, 12), (4, 6, 8, 10, 12, 14, 16, 18, 20), lambda n: ising_inspired(n, 10.0), 20, 2**13
    ),
    "poisson-1d": Axis(
        "points", (64, 256, 1024, 4096), (64, 256, 1024, 4096, 16384, 65536), lambda m: poisson(1, m), 2**20
    ),
    "poisson-2d": Axis(
        "points per axis", (8, 16, 32, 64), (8, 16, 32, 64, 128, 256, 512), lambda m: poisson(2, m), 1024
    ),
    "poisson-3d": Axis("points per axis", (4, 8, 16), (4, 8, 16, 32, 40), lambda m: poisson(3, m), 100),
}


def check_sizes(family: str, sizes) -> list[int]:
    """``sizes`` as whole numbers within ``family``'s axis, or one line naming the first that is not."""
    if family not in AXES:
        raise InputError(f"growth family {family!r} is unknown; known: {', '.join(AXES)}")
    axis = AXES[family]
    return [whole_number(size, f"growth {family}: {axis.counts}", low=1, high=axis.largest) for size in sizes]


def grown(family: str, size: int, state: Path | None = None, every: float = CHECKPOINT_SECONDS) -> LinearSystem:
    """The system of ``family`` at ``size`` (module docstring).

    With ``state`` (a folder), an axis whose build is resumable saves itself there
    (:func:`growth_checkpoint`) every ``every`` seconds as it goes and resumes from what it finds; the
    seconds of earlier, interrupted parts are then in the system's ``meta["earlier_seconds"]`` (a timing: the
    caller takes it out before the system is stored).
    """
    (size,) = check_sizes(family, [size])
    axis = AXES[family]
    if not (axis.resumable and state is not None):
        return axis.build(size)
    from qlsbench.bench._checkpoints import Checkpoint

    return axis.build(size, checkpoint=Checkpoint(growth_checkpoint(state, family, size), every=every))


def growth_checkpoint(state: Path, family: str, size: int) -> Path:
    """Where a resumable build of ``family`` at ``size`` saves itself under ``state`` (:func:`grown`); the caller
    removes it once what it built is stored."""
    return Path(state) / f".growth-{family}-{size}.checkpoint"
