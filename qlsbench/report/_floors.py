"""What not solving scores: the floor a fidelity must clear before it says a solver learned anything.

A fidelity bar is only as good as its floor. Where ``b`` is nearly the solution
(the Ising-inspired systems at small ``J``: their solution is nearly
``|+>^n``), returning ``b`` unchanged scores above 0.99; HHL's device read-out
takes its signs from the ideal statevector, so pure noise scores too. The
pages that judge fidelities (``docs/noisy.md``, ``docs/reproduction.md``) set
each beside its floor, computed here from the pinned systems.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from qlsbench.bench._metrics import b_fidelity, pinned_system


def floor_of(solver: str, system_id: str) -> float:
    """The fidelity ``solver`` scores on pinned system ``system_id`` without solving it: ``b`` returned as the
    answer (:func:`~qlsbench.bench._metrics.b_fidelity`), and for HHL the larger of that and its read-out of pure noise
    (:func:`~qlsbench.solvers.hhl.depolarised_fidelity`, whose signs come from the ideal statevector).
    NaN for a system outside the pinned set."""
    from qlsbench.solvers.hhl import depolarised_fidelity

    system = pinned_system(system_id)
    if system is None:
        return float("nan")
    floor = b_fidelity(system_id)
    return max(floor, depolarised_fidelity(system)) if solver == "hhl" else floor


def with_floors(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with ``b_fidelity`` (:func:`b_fidelity`) and ``floor`` (:func:`floor_of` its solver and system)."""
    return rows.assign(
        b_fidelity=rows["system_id"].map(b_fidelity),
        floor=[floor_of(solver, sid) for solver, sid in zip(rows["solver_name"], rows["system_id"])],
    )


def normalised(fidelity, floor):
    """``(F - floor) / (1 - floor)``, at least 0: 0 at or below what not solving scores, 1 for the solution;
    a size without a known floor keeps its fidelity (floor 0); one whose floor is 1 (``b`` is the solution) gives 0."""
    fidelity, floor = np.asarray(fidelity, dtype=float), np.nan_to_num(np.asarray(floor, dtype=float), nan=0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = np.where(floor < 1, (fidelity - floor) / (1 - floor), 0.0)
    return np.clip(np.nan_to_num(scaled, nan=0.0), 0.0, 1.0)
