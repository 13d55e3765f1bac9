"""The Newton subsystems a simulation leaves for the benchmark, recorded through a callback: every model's.

:class:`SubsystemRecorder` (a ``capture`` callback) keeps the Newton
subsystems of chosen steps of any model (the rigid spheres' contact LCP, the
penalty model's backward Euler) and :func:`export_systems` turns them into
benchmark linear systems; it hands plain data to the caller, which writes the
files. A model's own records (the spheres' snapshots,
:mod:`~qlsbench.physics.spheres.snapshots`) live with the model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg  # noqa: F401  (sp.linalg.norm)

from qlsbench.problems import (
    LinearSystem,
    condition_number,
    hermitian_defect,
    pad_and_normalize,
)
from qlsbench.problems._spectra import DENSE_LIMIT

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
DEM_C_KEYS = (
    "step",
    "newton_iter",
    "time",
    "contacts",
    "active_size",
    "mu",
    "s",
    "h",
    "scale",
    "regularization",
    "proximal_iter",
    "proximal_shift",
    "phase",
    "presolve_sweeps",
)


def _meta(context: dict, seed, family: str) -> dict:
    keep = DEM_C_KEYS if family == FAMILY else tuple(k for k in context if k != "scene")
    meta = {k: context[k] for k in keep if k in context}
    meta.update(family=family, scene=context.get("scene", ""), seed=seed)
    return meta


def asymmetry(A: sp.spmatrix) -> float:
    """``||A - A^T||_F / ||A||_F`` (0 for a symmetric matrix)."""
    norm = sp.linalg.norm(A)
    return float(sp.linalg.norm(A - A.T) / norm) if norm else 0.0


def export_systems(
    recorder: SubsystemRecorder,
    *,
    kappa_cap: float | None = None,
    seed: int | None = None,
    scene: str | None = None,
    family: str = FAMILY,
) -> tuple[list[LinearSystem], dict]:
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
    stats = {
        "captured": len(recorder.records),
        "exported": len(systems),
        "dropped_kappa": dropped,
        "skipped_trivial": recorder.skipped_trivial,
        "kappa_cap": kappa_cap,
        "cond_min": min(conds) if conds else None,
        "cond_max": max(conds) if conds else None,
    }
    return systems, stats
