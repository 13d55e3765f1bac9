"""Comparisons of solution vectors, shared by the benchmark metrics and the Pauli studies."""

from __future__ import annotations

import numpy as np


def state_fidelity(x: np.ndarray, y: np.ndarray) -> float:
    """``|<x|y>|^2 / (||x||^2 ||y||^2)``: 1 when ``x`` and ``y`` are parallel, whatever their scale and phase.

    A zero vector has fidelity 0 with anything.
    """
    xx, yy = float(np.vdot(x, x).real), float(np.vdot(y, y).real)
    return float(abs(np.vdot(x, y)) ** 2 / (xx * yy)) if xx > 0 and yy > 0 else 0.0
