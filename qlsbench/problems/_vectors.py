"""Comparisons of solution vectors, shared by the benchmark metrics and the Pauli studies."""

from __future__ import annotations

import numpy as np


def state_fidelity(x: np.ndarray, y: np.ndarray) -> float:
    """``|<x|y>|^2 / (||x||^2 ||y||^2)``: 1 when ``x`` and ``y`` are parallel, whatever their scale and phase.

    A zero vector has fidelity 0 with anything. Entries so large (or small)
    that their squares overflow (or vanish) are divided by the largest entry
    first, so an answer of entries near 1e200 gets the fidelity of its
    direction, not NaN; other vectors are taken as they are, to the last bit.
    """
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        xx, yy = float(np.vdot(x, x).real), float(np.vdot(y, y).real)
        if np.isfinite(xx * yy) and xx > 1e-250 and yy > 1e-250:
            return float(abs(np.vdot(x, y)) ** 2 / (xx * yy))
    sx, sy = _scaled(x), _scaled(y)
    if sx is None or sy is None:
        return 0.0
    xx, yy = float(np.vdot(sx, sx).real), float(np.vdot(sy, sy).real)
    return float(abs(np.vdot(sx, sy)) ** 2 / (xx * yy))


def _scaled(v: np.ndarray) -> np.ndarray | None:
    """``v`` over its largest absolute entry; ``None`` for a zero vector."""
    v = np.asarray(v)
    top = float(np.max(np.abs(v))) if v.size else 0.0
    return v / top if top > 0 else None
