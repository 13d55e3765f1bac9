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


def checked_operator(model, kinds, h=1e-2, seed=1):
    """The penalty model's backward-Euler evaluation at a random velocity step and its assembled matrix, after
    checking that it holds every contact of ``kinds`` (``(kind, sticking)`` pairs) and that the matrix matches
    central differences of the residual ``g`` to 1e-6 of its largest entry."""
    from qlsbench.physics.penalty import evaluate

    dv = np.random.default_rng(seed).normal(size=model.ndof) * 0.01
    ev = evaluate(model, dv, h)
    found = {(t.key[0], t.sticking) for t in ev.contacts}
    assert kinds <= found, found
    H = ev.matrix().toarray()
    fd = central_jacobian(lambda z: evaluate(model, z, h).g, dv)
    assert np.abs(H - fd).max() <= 1e-6 * np.abs(H).max()
    return ev, H
