"""The sphere states a simulation leaves for the figures, recorded through an observer.

:class:`SnapshotRecorder` (an ``observer`` of
:func:`~qlsbench.physics.spheres.stepping.simulate`) keeps positions, radii
and per-sphere contact impulses at the steps :func:`snapshot_steps` picks; it
hands plain data to the caller, which writes the file
(:mod:`qlsbench.data._snapshots`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from qlsbench.checks import whole_number
from qlsbench.physics.spheres.scenes import Scene, SphericalContainer
from qlsbench.physics.spheres.stepping import StepReport


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
        self.records.append(
            {
                "step": int(report.step),
                "time": float(report.time),
                "positions": scene.positions.copy(),
                "radii": scene.radii.copy(),
                "impulse": sphere_impulses(report.pairs, report.normal_impulses, scene.n_spheres),
            }
        )

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
