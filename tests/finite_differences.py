"""Central differences for the derivative tests (the penalty family's force Jacobians)."""

from __future__ import annotations

import numpy as np


def central_jacobian(f, x, eps=1e-6):
    """``df/dx`` column by column, ``(f(x + eps e_j) - f(x - eps e_j)) / (2 eps)``: error O(eps^2)."""
    cols = []
    for j in range(len(x)):
        e = np.zeros_like(x)
        e[j] = eps
        cols.append((f(x + e) - f(x - e)) / (2 * eps))
    return np.column_stack(cols)
