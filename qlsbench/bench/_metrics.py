"""Accuracy metrics, computed in one place for every solver."""

from __future__ import annotations

import functools

import numpy as np

from qlsbench.problems import LinearSystem, state_fidelity

NAN_METRICS = {"rel_residual": np.nan, "rel_error": np.nan, "fidelity": np.nan}


def rhs_fidelity(system: LinearSystem) -> float:
    """The fidelity a solver scores by returning ``b`` unchanged: ``|<b|x_ref>|^2 / (||b||^2 ||x_ref||^2)``.

    A fidelity bar means something only above it: where ``A`` is near a multiple of the identity on ``b``
    (the Ising-inspired systems at small ``J``), ``b`` is already nearly the solution. NaN without a reference.
    """
    ref = system.x_ref
    if ref is None or not np.all(np.isfinite(ref)):
        return float("nan")
    return state_fidelity(system.b, ref)


def metrics(system: LinearSystem, x: np.ndarray | None) -> dict[str, float]:
    """Relative residual, relative error and state fidelity of ``x``.

    Parameters
    ----------
    system : LinearSystem
        The system; ``system.x_ref`` is the reference for error and fidelity.
    x : numpy.ndarray or None
        Candidate solution.

    Returns
    -------
    dict
        ``rel_residual = ||A x - b|| / ||b||``,
        ``rel_error = ||x - x_ref|| / ||x_ref||`` and
        ``fidelity = |<x|x_ref>|^2 / (||x||^2 ||x_ref||^2)``; NaN where a
        quantity is undefined (no ``x``, non-finite ``x``, no reference).
    """
    if x is None:
        return dict(NAN_METRICS)
    x = np.asarray(x)
    if x.shape != system.b.shape or not np.all(np.isfinite(x)):
        return dict(NAN_METRICS)
    bnorm = np.linalg.norm(system.b)
    out = {"rel_residual": float(np.linalg.norm(system.A @ x - system.b) / bnorm)}
    ref = system.x_ref
    if ref is None or not np.all(np.isfinite(ref)):
        out.update(rel_error=np.nan, fidelity=np.nan)
        return out
    out["rel_error"] = float(np.linalg.norm(x - ref) / np.linalg.norm(ref))
    out["fidelity"] = state_fidelity(x, ref)
    return out


@functools.lru_cache(maxsize=1)
def _pinned_systems() -> dict:
    """The pinned systems by id (the board's tracks run on them; a system outside the set has no known b score)."""
    from qlsbench.data._pinned import pinned
    from qlsbench.data._reader import to_system

    return {system.system_id: system for system in (to_system(r) for _, r in pinned().iterrows())}


def pinned_system(system_id: str) -> LinearSystem | None:
    """Pinned system ``system_id``, or ``None`` for a system outside the pinned set."""
    return _pinned_systems().get(system_id)


def b_fidelity(system_id: str) -> float:
    """The fidelity of ``b`` returned as the answer on pinned system ``system_id`` (:func:`rhs_fidelity`); NaN for a
    system outside the pinned set."""
    system = pinned_system(system_id)
    return float("nan") if system is None else rhs_fidelity(system)
