"""What a fault-tolerant linear solver would cost on a system, from its LCU form, without simulating anything.

Inputs per system: the Pauli terms of ``A = sum_j c_j P_j`` (``L`` of them, kept at a relative tolerance),
their 1-norm ``alpha = sum_j |c_j|``, the condition number ``kappa`` and a target error ``epsilon``. The
benchmark's systems are normalised (``||A||_2 = 1``), so ``sigma_min = 1 / kappa`` and the block-encoded
matrix ``A / alpha`` has condition number ``kappa_eff = alpha kappa`` in the sense that matters: its smallest
singular value is ``1 / kappa_eff``. Every count below is an estimate from a formula, with its source; the
constants are those the sources state.

Block encoding by linear combination of unitaries (Childs and Wiebe, Quantum Inf. Comput. 12, 901 (2012)):
``PREPARE`` loads ``sqrt(|c_j| / alpha)`` on ``a = ceil(log2 L)`` ancilla qubits, ``SELECT`` applies ``P_j``
(with the sign or phase of ``c_j``) controlled on ``|j>``; ``<0|PREP^dag SELECT PREP|0> = A / alpha``.

* ``qubits = n + a`` (system and selection register; the one ancilla of unary iteration's ``a - 1`` work
  qubits is counted separately as ``work_qubits = a - 1``).
* ``SELECT`` by unary iteration: ``L - 1`` Toffoli gates, i.e. ``4 (L - 1)`` T gates, plus ``L`` singly
  controlled Pauli strings (Cliffords) (Babbush et al., Phys. Rev. X 8, 041015 (2018), sec. III A).
* ``PREPARE`` of real non-negative amplitudes by a binary tree of uniformly controlled ``R_y`` rotations
  (Mottonen et al., Quantum Inf. Comput. 5, 467 (2005)): ``2^a - 1`` rotations and ``2^a - 2`` CNOTs.

Inversion by QSVT (Gilyen, Su, Low, Wiebe, STOC 2019) with the odd polynomial of Childs, Kothari and Somma
(SIAM J. Comput. 46, 1920 (2017), Lemmas 17-19) that approximates ``1/x`` on ``[1/kappa, 1]`` to ``epsilon``:
``b = ceil(kappa^2 ln(kappa / epsilon))``, ``j0 = ceil(sqrt(b ln(4 b / epsilon)))``, degree ``d = 2 j0 + 1``:
``d`` queries to the block encoding per attempt. The polynomial is scaled by ``1/kappa``, so an attempt
succeeds with probability ``~1/kappa^2``; amplitude amplification then needs ``~kappa`` attempts:
``qsvt_queries_amplified = d ceil(kappa)`` (an upper estimate; variable-time amplification does better).

Discrete adiabatic solver (Costa, An, Sanders, Su, Babbush, Berry, PRX Quantum 3, 040303 (2022)): a quantum
walk of ``alpha_da kappa`` steps, one block-encoding query per step, to constant error, then eigenstate
filtering (Lin and Tong, Quantum 4, 361 (2020)) to ``epsilon`` with a Chebyshev filter of degree
``2 l``, ``l = ceil(kappa ln(2 / epsilon) / sqrt(2))``: ``optimal O(kappa log(1/epsilon))``. ``alpha_da =
2305`` is the paper's proven bound; numerical tests find ``1.84`` (Costa, An, Babbush, Berry,
arXiv:2312.07690 (2023)): both are given.
"""

from __future__ import annotations

import math

import numpy as np

from qlsbench.checks import POSITIVE
from qlsbench.errors import InputError

#: The discrete-adiabatic walk's constant: the proven bound and the one measured on random matrices.
ADIABATIC_BOUND, ADIABATIC_PRACTICAL = 2305.0, 1.84


def _check(kappa: float, epsilon: float) -> None:
    if not (np.isfinite(kappa) and kappa >= 1):
        raise InputError(f"resource estimate: kappa must be a finite number >= 1, got {kappa!r}")
    if not 0 < epsilon < 1:
        raise InputError(f"resource estimate: epsilon must be in (0, 1), got {epsilon!r}")


def block_encoding(n_qubits: int, terms: int) -> dict[str, int]:
    """Qubits and gates of the LCU block encoding of ``terms`` Pauli strings on ``n_qubits`` (module docstring)."""
    if terms < 1:
        raise InputError(f"resource estimate: a block encoding needs at least one term, got {terms!r}")
    a = max(1, math.ceil(math.log2(terms)))
    return {
        "select_qubits": a,
        "qubits": n_qubits + a,
        "work_qubits": a - 1,
        "select_toffolis": terms - 1,
        "select_t_gates": 4 * (terms - 1),
        "prepare_rotations": 2**a - 1,
        "prepare_cnots": 2**a - 2,
    }


def qsvt_degree(kappa: float, epsilon: float) -> int:
    """Degree of Childs-Kothari-Somma's odd polynomial for ``1/x`` on ``[1/kappa, 1]`` to ``epsilon``."""
    _check(kappa, epsilon)
    b = math.ceil(kappa**2 * math.log(kappa / epsilon))
    b = max(b, 1)
    j0 = math.ceil(math.sqrt(b * math.log(4 * b / epsilon)))
    return 2 * j0 + 1


def adiabatic_queries(kappa: float, epsilon: float, constant: float = ADIABATIC_BOUND) -> int:
    """Walk steps ``constant * kappa`` plus the filter's degree ``2 ceil(kappa ln(2/epsilon) / sqrt 2)``."""
    _check(kappa, epsilon)
    POSITIVE.check(constant, "adiabatic constant")
    filter_degree = 2 * math.ceil(kappa * math.log(2 / epsilon) / math.sqrt(2))
    return math.ceil(constant * kappa) + filter_degree


def estimate(n_qubits: int, terms: int, alpha: float, kappa: float, epsilon: float) -> dict[str, float | int]:
    """Everything of the module docstring for one system: block encoding, ``kappa_eff``, QSVT and adiabatic counts."""
    POSITIVE.check(alpha, "LCU 1-norm alpha")
    kappa_eff = alpha * kappa
    degree = qsvt_degree(kappa_eff, epsilon)
    # Query counts as floats: frictional systems (kappa ~ 1e9) give counts beyond 64-bit integers.
    return {
        **block_encoding(n_qubits, terms),
        "alpha": float(alpha),
        "kappa": float(kappa),
        "kappa_eff": float(kappa_eff),
        "epsilon": float(epsilon),
        "qsvt_degree": float(degree),
        "qsvt_queries_amplified": float(degree) * math.ceil(kappa_eff),
        "adiabatic_queries_bound": float(adiabatic_queries(kappa_eff, epsilon, ADIABATIC_BOUND)),
        "adiabatic_queries_practical": float(adiabatic_queries(kappa_eff, epsilon, ADIABATIC_PRACTICAL)),
    }


__all__ = ["ADIABATIC_BOUND", "ADIABATIC_PRACTICAL", "adiabatic_queries", "block_encoding", "estimate", "qsvt_degree"]
