"""What a simulation leaves for the benchmark, recorded through callbacks.

:class:`SubsystemRecorder` (a ``capture`` callback) keeps Newton subsystems and
:func:`export_systems` turns them into benchmark linear systems;
:class:`SnapshotRecorder` (an ``observer``) keeps sphere states at chosen steps.
Both hand plain data to the caller, which writes the files.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg  # noqa: F401  (sp.linalg.norm)

from qlsbench.checks import whole_number
from qlsbench.physics.scene import Scene, SphericalContainer
from qlsbench.physics.sphere_stepping import StepReport
from qlsbench.problems import (
    LinearSystem,
    condition_number,
    hermitian_defect,
    pad_and_normalize,
)
from qlsbench.problems.spectra import DENSE_LIMIT

FAMILY = "dem_c"


@dataclass
class SubsystemRecorder:
    """A ``capture`` callback that keeps the Newton subsystems of selected steps.

    Parameters
    ----------
    every : int
        Keep subsystems of every ``every``-th step (``step % every == 0``).
    max_systems : int or None
        Stop keeping after this many.

    Attributes
    ----------
    records : list of (A, b, context)
        Copies of the kept subsystems with their context (step, time, Newton
        iteration, contacts, active size, mu, s, h, scene).
    skipped_trivial : int
        Subsystems not kept because ``b`` was zero (nothing to solve).
    """

    every: int = 1
    max_systems: int | None = None
    records: list = field(default_factory=list)
    skipped_trivial: int = 0

    def wants(self, step: int) -> bool:
        """Whether subsystems of time step ``step`` would be kept (the stepper skips work for the others)."""
        return step % self.every == 0 and (self.max_systems is None or len(self.records) < self.max_systems)

    def __call__(self, A: sp.csr_matrix, b: np.ndarray, context: dict) -> None:
        if not self.wants(context["step"]):
            return
        if not np.any(b):
            self.skipped_trivial += 1
            return
        self.records.append((A.copy(), b.copy(), dict(context)))


#: Context keys a DEM-C system keeps (other families keep their whole context).
#: ``proximal_iter`` and ``proximal_shift`` mark subsystems of the proximal fallback (absent otherwise); ``phase``
#: (``nsgs_newton`` or ``proximal``) and ``presolve_sweeps`` mark those of the v2 frictional chain.
DEM_C_KEYS = ("step", "newton_iter", "time", "contacts", "active_size", "mu", "s", "h", "scale", "regularization",
              "proximal_iter", "proximal_shift", "phase", "presolve_sweeps")


def _meta(context: dict, seed, family: str) -> dict:
    keep = DEM_C_KEYS if family == FAMILY else tuple(k for k in context if k != "scene")
    meta = {k: context[k] for k in keep if k in context}
    meta.update(family=family, scene=context.get("scene", ""), seed=seed)
    return meta


def asymmetry(A: sp.spmatrix) -> float:
    """``||A - A^T||_F / ||A||_F`` (0 for a symmetric matrix)."""
    norm = sp.linalg.norm(A)
    return float(sp.linalg.norm(A - A.T) / norm) if norm else 0.0


def export_systems(recorder: SubsystemRecorder, *, kappa_cap: float | None = None, seed: int | None = None,
                   scene: str | None = None, family: str = FAMILY) -> tuple[list[LinearSystem], dict]:
    """Pad, normalise and measure the recorded subsystems.

    Parameters
    ----------
    recorder : SubsystemRecorder
        Filled by a simulation.
    kappa_cap : float or None
        Keep only systems with 2-norm condition number at most this (singular
        systems, ``cond = inf``, are then dropped too).
    seed : int or None
        Seed of the scene, stored with each system.
    scene : str or None
        Scene label overriding the one in the context (e.g. ``sedimentation-n32-mu0.3``).
    family : str
        Dataset family (``dem_c``, ``penalty``, ...). A DEM-C system keeps
        :data:`DEM_C_KEYS` of its context; other families keep all of it and
        also get ``asymmetry`` (:func:`asymmetry` of the unpadded matrix).

    Returns
    -------
    systems : list of LinearSystem
        Of ``family``; ``meta`` holds the context, ``cond``, ``cond_exact``
        (dense SVD, ``dim <= 4096``; above it an ARPACK estimate) and ``symmetric``.
    stats : dict
        ``captured``, ``exported``, ``dropped_kappa`` and ``skipped_trivial`` counts
        and the condition-number range of the exported systems.
    """
    systems, dropped = [], 0
    for A, b, context in recorder.records:
        meta = _meta(context, seed, family)
        if scene is not None:
            meta["scene"] = scene
        meta["symmetric"] = hermitian_defect(A) == 0.0
        if family != FAMILY:  # DEM-C files stay as they were, byte for byte (the pinned set hashes them)
            meta["asymmetry"] = asymmetry(A)
        system = pad_and_normalize(LinearSystem(A, b, meta), min_qubits=1)
        cond = condition_number(system.A)
        if kappa_cap is not None and not cond <= kappa_cap:
            dropped += 1
            continue
        system.meta.update(cond=cond, cond_exact=system.dim <= DENSE_LIMIT)
        systems.append(system)
    conds = [s.meta["cond"] for s in systems]
    stats = {"captured": len(recorder.records), "exported": len(systems), "dropped_kappa": dropped,
             "skipped_trivial": recorder.skipped_trivial, "kappa_cap": kappa_cap,
             "cond_min": min(conds) if conds else None, "cond_max": max(conds) if conds else None}
    return systems, stats


def snapshot_steps(steps: int, count: int) -> np.ndarray:
    """``count`` step indices at equal intervals of simulated time, the last being the run's last step.

    Step ``k`` (0-based) ends at time ``(k + 1) h``, so steps
    ``floor(j * steps / count) - 1`` for ``j = 1..count`` end at ``j / count``
    of the run. The start (spheres at rest, no contacts) shows nothing of
    the contact forces, so it is not one of them. Fewer steps than ``count``
    give every step.

    Raises
    ------
    InputError
        If ``steps`` or ``count`` is not an integer >= 1.
    """
    for name, value in (("steps (with snapshots)", steps), ("snapshot count", count)):
        whole_number(value, name, low=1)
    j = np.arange(1, min(count, steps) + 1, dtype=np.int64)
    return j * steps // min(count, steps) - 1


def sphere_impulses(pairs: np.ndarray, normal_impulses: np.ndarray, n_spheres: int) -> np.ndarray:
    """Per sphere, the sum of the normal impulse magnitudes of its contacts.

    A sphere-sphere contact counts for both spheres; a wall contact (body
    ``-1``) for its sphere only. Hence the total over spheres is twice the
    sphere-sphere impulses plus the wall impulses.
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    magnitude = np.abs(np.asarray(normal_impulses, dtype=np.float64))
    ends = pairs.reshape(-1)
    weights = np.repeat(magnitude, 2)
    on_sphere = ends >= 0  # -1 is a static wall: nothing to add to
    return np.bincount(ends[on_sphere], weights=weights[on_sphere], minlength=n_spheres)


class SnapshotRecorder:
    """An ``observer`` for :func:`qlsbench.physics.simulate` keeping sphere states at chosen steps.

    Parameters
    ----------
    steps : sequence of int
        Step indices to keep (see :func:`snapshot_steps`).

    Attributes
    ----------
    records : list of dict
        One per kept step: ``step``, ``time``, ``positions`` ``(N, 3)``,
        ``radii`` ``(N,)`` and ``impulse`` ``(N,)``, copies taken when the
        step ended.
    """

    def __init__(self, steps: Sequence[int]) -> None:
        self.steps = [int(k) for k in steps]
        self._wanted = set(self.steps)
        self.records: list[dict] = []

    def __call__(self, scene: Scene, report: StepReport) -> None:
        if report.step not in self._wanted:
            return
        self.records.append({
            "step": int(report.step), "time": float(report.time),
            "positions": scene.positions.copy(), "radii": scene.radii.copy(),
            "impulse": sphere_impulses(report.pairs, report.normal_impulses, scene.n_spheres),
        })

    @property
    def missing(self) -> list[int]:
        """Requested steps not seen (the run was shorter than planned)."""
        return sorted(self._wanted - {r["step"] for r in self.records})


def container_of(scene: Scene) -> dict:
    """Centre and radius of the scene's spherical container (``None`` for each when it has none)."""
    for wall in scene.walls:
        if isinstance(wall, SphericalContainer):
            return {"container_center": [float(c) for c in wall.center], "container_radius": float(wall.radius)}
    return {"container_center": None, "container_radius": None}
