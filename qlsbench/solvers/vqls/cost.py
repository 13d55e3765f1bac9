"""The VQLS costs at operator level, from the state ``v = V(alpha)|0>``, with their gradients in ``v``.

With ``|psi> = A|v>``:

- global: ``C_G = <psi|(I - |b><b|)|psi> = <psi|psi> - |<b|psi>|^2``;
- local: ``C_L = <psi|U (I - (1/n) sum_j |0_j><0_j| (x) I) U^dagger|psi>``, which
  with ``phi = U^dagger psi`` is ``(1/n) sum_x popcount(x) |phi_x|^2``;
- ``normalized``: each divided by ``<psi|psi>`` (Bravo-Prieto et al.; the seed's
  choice), so the cost lies in ``[0, 1]`` and ignores the scale of ``A``.

Both vanish exactly at ``v`` proportional to ``A^{-1} b``. ``v`` is real (the
ansatz is), so gradients are real: ``d<psi|M|psi>/dv = 2 Re(A^dagger M psi)``.
"""

from __future__ import annotations

import numpy as np

from qlsbench.pauli._walsh import popcount
from qlsbench.solvers.vqls.problem import VQLSProblem

COSTS = ("global", "local")


def cost_and_gradient(
    problem: VQLSProblem, v: np.ndarray, kind: str, normalized: bool, gradient: bool = True
) -> tuple[float, np.ndarray | None]:
    """Cost of ``v`` and, if asked, its gradient ``dC/dv``.

    Parameters
    ----------
    problem : VQLSProblem
        ``A``, ``|b>`` and ``U``.
    v : numpy.ndarray
        Real ansatz state.
    kind : {"global", "local"}
        Which cost.
    normalized : bool
        Divide by ``<psi|psi>``.
    gradient : bool
        Also return ``dC/dv``.
    """
    psi = problem.A @ v
    norm2 = float(np.vdot(psi, psi).real)
    if kind == "global":
        overlap = np.vdot(problem.b, psi)
        numerator = norm2 - abs(overlap) ** 2
        # d|<b|psi>|^2/dv = 2 Re(conj(<b|psi>) A^T conj(b)) = 2 Re(A^dagger b <b|psi>)
        dnum = (2 * (problem.A_H @ (psi - problem.b * overlap)).real) if gradient else None
    else:
        phi = problem.u_dagger(psi)
        weights = popcount(np.arange(len(phi))) / problem.n_qubits
        numerator = float(np.sum(weights * np.abs(phi) ** 2))
        dnum = (2 * (problem.A_H @ problem.u(weights * phi)).real) if gradient else None
    numerator = float(numerator)
    if not normalized:
        return numerator, dnum
    if norm2 == 0:
        return 1.0, (np.zeros_like(v) if gradient else None)
    value = numerator / norm2
    if not gradient:
        return value, None
    dnorm2 = 2 * (problem.A_H @ psi).real
    return value, (dnum - value * dnorm2) / norm2
