"""A fault-tolerant linear solve counted end to end: the block encoding, the solver's queries, preparing ``b``,
and reading ``x`` out, in logical qubits, Toffolis and rotations.

The solver (constants and sources: :mod:`qlsbench.pauli`'s estimates) queries the block encoding of
``A / alpha`` as if its condition number were ``kappa_eff = alpha / sigma_min``:

* QSVT with the Childs-Kothari-Somma polynomial: ``d`` queries and one use of ``U_b`` and its inverse per
  attempt, ``ceil(kappa_eff)`` attempts under amplitude amplification;
* the discrete adiabatic walk with eigenstate filtering (Costa et al., PRX Quantum 3, 040303 (2022)): one
  query to ``A`` and one reflection about ``|b>`` (``U_b`` twice) per step, with the practical constant 1.84
  (Costa, An, Babbush, Berry, arXiv:2312.07690) and the proven 2305 both given.

Output, both ways, never only the favourable one:

* one observable ``<x|O|x>`` to additive ``epsilon`` by amplitude estimation: ``ceil(pi / epsilon)`` Grover
  iterations, each running the solver forward and back (Brassard, Hoyer, Mosca, Tapp, Contemp. Math. 305
  (2002), thm. 12): ``2 ceil(pi / epsilon)`` solves;
* the whole ``x`` to ``epsilon`` in the 2-norm by sampling: ``N / epsilon^2`` solves (the count the advantage
  map's issue states; tomography bounds are of this order up to logarithms, van Apeldoorn et al.,
  arXiv:2207.08800).
"""

from __future__ import annotations

import math

from qlsbench.checks import POSITIVE
from qlsbench.errors import InputError
from qlsbench.estimates._loading import BITS, state_preparation
from qlsbench.pauli import ADIABATIC_PRACTICAL, adiabatic_queries, qsvt_degree

#: The solvers counted, by name.
SOLVERS = ("qsvt", "adiabatic")
#: The two outputs, by name: one observable, or every entry of ``x``.
READOUTS = ("observable", "sampling")


def solver_queries(method: str, kappa_eff: float, epsilon: float) -> dict[str, float]:
    """Block-encoding queries and ``U_b`` uses of one solve by ``method`` (module docstring)."""
    if method == "qsvt":
        attempts = math.ceil(kappa_eff)
        return {"queries": float(qsvt_degree(kappa_eff, epsilon)) * attempts, "state_preparations": 2.0 * attempts}
    if method == "adiabatic":
        steps = float(adiabatic_queries(kappa_eff, epsilon, ADIABATIC_PRACTICAL))
        return {"queries": steps, "state_preparations": 2.0 * steps}
    raise InputError(f"resource estimate: solver must be one of {', '.join(SOLVERS)}, got {method!r}")


def repetitions(readout: str, dim: int, epsilon: float) -> float:
    """Solves needed for the output ``readout`` to ``epsilon`` (module docstring)."""
    if readout == "observable":
        return 2.0 * math.ceil(math.pi / epsilon)
    if readout == "sampling":
        return float(dim) / epsilon**2
    raise InputError(f"resource estimate: readout must be one of {', '.join(READOUTS)}, got {readout!r}")


def one_solve(encoding: dict, sigma_min: float, dim: int, method: str, epsilon: float) -> dict[str, float]:
    """Logical counts of one solve of an ``N = dim`` system whose block encoding is ``encoding``.

    Parameters
    ----------
    encoding : dict
        A record of :func:`~qlsbench.estimates.sparse_access` or :func:`~qlsbench.estimates.pauli_lcu`.
    sigma_min : float
        Smallest singular value of ``A`` (unnormalised, as ``alpha`` is).
    dim : int
        Unknowns.
    method : str
        ``"qsvt"`` or ``"adiabatic"``.
    epsilon : float
        Target error of the solve.

    Returns
    -------
    dict
        ``kappa_eff``, ``queries``, ``toffolis``, ``rotations`` and ``qubits`` (logical, the largest register
        any part needs at once: encoding and state preparation share the system register).
    """
    POSITIVE.check(sigma_min, "sigma_min")
    if not 0 < epsilon < 1:
        raise InputError(f"resource estimate: epsilon must be in (0, 1), got {epsilon!r}")
    kappa_eff = max(1.0, encoding["alpha"] / sigma_min)
    used = solver_queries(method, kappa_eff, epsilon)
    prep = state_preparation(dim, BITS)
    return {
        "kappa_eff": kappa_eff,
        "queries": used["queries"],
        "toffolis": used["queries"] * encoding["toffolis_per_query"] + used["state_preparations"] * prep["toffolis"],
        "rotations": used["queries"] * encoding["rotations_per_query"],
        # the solver's own ancillas: QSVT's signal qubit, the walk's two (Costa et al.)
        "qubits": float(max(encoding["qubits"], prep["qubits"] + prep["ancillas"]) + 2),
    }
