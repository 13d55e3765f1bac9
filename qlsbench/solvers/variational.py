"""What every variational solver needs: a system on qubits, and a read-out that fits the scale.

A variational state is a direction; ``A x = b`` needs a length. The read-out
fits the scale by least squares, so residuals and errors of variational
solvers mean what they mean for every other solver.
"""

from __future__ import annotations

import numpy as np

from qlsbench.errors import InputError
from qlsbench.problems import LinearSystem


def qubits_of(system: LinearSystem, who: str) -> int:
    """``n`` with ``dim = 2^n``; refuses other dimensions and ``b = 0`` (``|b>`` must be a state)."""
    N = system.dim
    if N < 1 or N & (N - 1):
        raise InputError(
            f"{who} needs a power-of-two dimension, got {N}; pad the system first (qlsbench.problems.pad_and_normalize)"
        )
    if not np.any(system.b):
        raise InputError(f"{who} needs b != 0: |b> is a normalised state")
    return N.bit_length() - 1


def least_squares_readout(system: LinearSystem, v: np.ndarray) -> np.ndarray:
    """``s v`` with ``s`` minimising ``||A s v - b||``.

    A complex state carries a global phase that the fitted ``s`` removes, so a
    real system gets a real ``x`` whenever the fit leaves no imaginary part.
    """
    Av = system.A @ v
    denom = np.vdot(Av, Av)
    x = (np.vdot(Av, system.b) / denom if denom else 0.0) * v
    real_system = np.isrealobj(system.A.data) and np.isrealobj(system.b)
    if real_system and np.linalg.norm(np.imag(x)) <= 1e-10 * np.linalg.norm(x):
        return np.real(x).copy()
    return x


def progress_marks(budget: int) -> list[int]:
    """Cost-evaluation counts at which a variational solve records its read-out.

    Every power of two up to ``budget`` and every tenth of it: powers of two
    resolve the start of a run on a log axis, tenths its whole length on a
    linear one.
    """
    budget = int(budget)
    if budget < 1:
        return []
    powers = {1 << k for k in range(budget.bit_length()) if 1 << k <= budget}
    tenths = {max(1, round(budget * j / 10)) for j in range(1, 11)}
    return sorted(powers | tenths)
