"""Hadamard-test circuits for the VQLS costs (Bravo-Prieto et al., arXiv:1909.05820).

``A = sum_l c_l P_l`` (Pauli strings from :mod:`qlsbench.pauli`). Every term is
a real or imaginary part of ``<0|W|0>`` for a unitary ``W``, read from the
ancilla of a Hadamard test (``H``, controlled ``W``, optionally ``S^dagger``,
``H``: ``<Z_anc> = Re<W>``, or ``Im<W>`` with ``S^dagger``):

- ``beta_{ll'} = <v|P_{l'} P_l|v>`` (``l < l'``; ``beta_ll = 1``): ``P_{l'} P_l``
  is a phase ``omega`` times a Hermitian Pauli string, so ``beta`` is real or
  imaginary as ``omega`` is, and one circuit per pair suffices;
- ``gamma_l = <b|P_l|v> = <0|U^dagger P_l V|0>``: a Hadamard test with controlled
  ``V`` and ``U^dagger``, real and imaginary parts;
- ``delta^j_{ll'} = <v|P_{l'} U Z_j U^dagger P_l|v>`` (``l <= l'``, local cost):
  only ``P_l``, ``Z_j`` and ``P_{l'}`` are controlled; imaginary parts only when
  the coefficients are complex.

Then ``<psi|psi> = sum |c_l|^2 + 2 Re sum_{l<l'} conj(c_l') c_l beta_{ll'}``,
``<b|psi> = sum_l c_l gamma_l`` and
``sum_j <psi|U Z_j U^dagger|psi> = sum_j sum_{l,l'} conj(c_l') c_l delta^j_{ll'}``.
The ancilla is the last qubit, so the system keeps Qiskit's qubit order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from qlsbench.solvers.vqls.ansatz import DEFAULT_STRUCTURE, cz_pairs, n_parameters


@dataclass(frozen=True)
class Term:
    """One Hadamard test: which quantity, which indices, real (``part = 0``) or imaginary part (1)."""

    kind: str  # "beta", "gamma" or "delta"
    l: int
    lp: int  # l' (unused for gamma)
    j: int  # qubit of Z_j (delta only)
    part: int


@lru_cache(maxsize=1 << 16)  # combine asks for the same pairs at every cost evaluation
def pauli_phase(label_l: str, label_lp: str) -> complex:
    """``omega`` with ``P_{l'} P_l = omega Q``, ``Q`` a Hermitian Pauli string (labels in Qiskit order)."""
    from qiskit.quantum_info import Pauli

    product = Pauli(label_lp).dot(Pauli(label_l))
    prefix = product.to_label()[: len(product.to_label()) - len(label_l)]
    return {"": 1, "-": -1, "i": 1j, "-i": -1j}[prefix]


def terms(labels: list[str], coeffs: np.ndarray, kind: str) -> list[Term]:
    """All Hadamard tests one evaluation of the ``kind`` cost needs."""
    L, n = len(labels), len(labels[0]) if labels else 0
    out = []
    for l in range(L):
        for lp in range(l + 1, L):
            out.append(Term("beta", l, lp, -1, 0 if pauli_phase(labels[l], labels[lp]).imag == 0 else 1))
    if kind == "global":
        out += [Term("gamma", l, -1, -1, part) for l in range(L) for part in (0, 1)]
        return out
    complex_coeffs = bool(np.any(np.asarray(coeffs).imag != 0))
    for j in range(n):
        for l in range(L):
            out.append(Term("delta", l, l, j, 0))
            for lp in range(l + 1, L):
                out += [Term("delta", l, lp, j, part) for part in ((0, 1) if complex_coeffs else (0,))]
    return out


def circuit_count(n_terms: int, n_qubits: int, kind: str, complex_coeffs: bool) -> int:
    """Circuits per cost evaluation, without building them (to refuse what would not run)."""
    pairs = n_terms * (n_terms - 1) // 2
    if kind == "global":
        return pairs + 2 * n_terms
    return pairs + n_qubits * (n_terms + pairs * (2 if complex_coeffs else 1))


def _controlled_ansatz(qc, n: int, layers: int, alpha, anc: int, structure: str) -> None:
    """Controlled V: every R_y becomes CRY and every CZ a CCZ, controlled on ``anc``."""
    k = 0
    for layer in range(layers + 1):
        for q in range(n):
            qc.cry(alpha[k], anc, q)
            k += 1
        if layer < layers:
            for q, p in cz_pairs(n, layer, structure):
                qc.ccz(anc, q, p)


def _controlled_pauli(qc, label: str, anc: int) -> None:
    """Controlled Pauli string (Qiskit label order: the last character is qubit 0)."""
    for q, ch in enumerate(reversed(label)):
        if ch == "X":
            qc.cx(anc, q)
        elif ch == "Y":
            qc.cy(anc, q)
        elif ch == "Z":
            qc.cz(anc, q)


def build(
    term: Term, labels: list[str], layers: int, ansatz, u_circuit, measure: bool, structure: str = DEFAULT_STRUCTURE
):
    """The Hadamard-test circuit of ``term``; ``<Z>`` of the ancilla is the wanted part.

    ``ansatz`` is V as a circuit of the ``structure`` ansatz (``gamma`` terms
    build its controlled version gate by gate). ``measure``: end with a
    measurement of the ancilla (shot backends); otherwise with Aer's exact
    ``save_expectation_value`` of ``Z`` on it.
    """
    from qiskit import QuantumCircuit
    from qiskit.circuit import ParameterVector
    from qiskit.quantum_info import Pauli

    n = len(labels[0])
    anc = n
    qc = QuantumCircuit(n + 1, 1 if measure else 0)
    qc.h(anc)
    if term.kind == "gamma":
        alpha = ParameterVector("alpha", n_parameters(n, layers))
        _controlled_ansatz(qc, n, layers, alpha, anc, structure)
        _controlled_pauli(qc, labels[term.l], anc)
        qc.append(u_circuit.inverse().to_gate().control(1), [anc, *range(n)])
    else:
        qc.compose(ansatz, range(n), inplace=True)
        _controlled_pauli(qc, labels[term.l], anc)
        if term.kind == "delta":
            qc.compose(u_circuit.inverse(), range(n), inplace=True)
            qc.cz(anc, term.j)
            qc.compose(u_circuit, range(n), inplace=True)
        _controlled_pauli(qc, labels[term.lp], anc)
    if term.part:
        qc.sdg(anc)
    qc.h(anc)
    if measure:
        qc.measure(anc, 0)
    else:
        qc.save_expectation_value(Pauli("Z"), [anc], label="z")
    return qc


def combine(
    values: dict[Term, float], coeffs: np.ndarray, labels: list[str], kind: str, n: int, normalized: bool
) -> float:
    """The cost from the measured parts (see the module docstring for the sums)."""
    c = np.asarray(coeffs, dtype=complex)
    L = len(c)
    norm2 = float(np.sum(np.abs(c) ** 2))
    for l in range(L):
        for lp in range(l + 1, L):
            omega = pauli_phase(labels[l], labels[lp])
            part = values[Term("beta", l, lp, -1, 0 if omega.imag == 0 else 1)]
            beta = part if omega.imag == 0 else 1j * part
            norm2 += 2 * float((np.conj(c[lp]) * c[l] * beta).real)
    if kind == "global":
        gamma = np.array(
            [values[Term("gamma", l, -1, -1, 0)] + 1j * values[Term("gamma", l, -1, -1, 1)] for l in range(L)]
        )
        numerator = norm2 - abs(np.sum(c * gamma)) ** 2
    else:
        zsum = 0.0
        for j in range(n):
            for l in range(L):
                zsum += abs(c[l]) ** 2 * values[Term("delta", l, l, j, 0)]
                for lp in range(l + 1, L):
                    re = values[Term("delta", l, lp, j, 0)]
                    im = values.get(Term("delta", l, lp, j, 1), 0.0)
                    zsum += 2 * float((np.conj(c[lp]) * c[l] * (re + 1j * im)).real)
        numerator = norm2 / 2 - zsum / (2 * n)
    if not normalized:
        return float(numerator)
    return float(numerator / norm2) if norm2 > 0 else 1.0
