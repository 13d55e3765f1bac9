"""The HHL circuit (Harrow, Hassidim, Lloyd 2009): phase estimation, eigenvalue inversion, uncomputation.

Registers, Qiskit's little-endian order: the system (``n`` qubits, qubit 0 the
least significant bit of a vector index), the clock (``m`` qubits) and one
ancilla. For a Hermitian ``H`` with eigenvalues in ``[-1, 1]``:

1. ``|b>`` is prepared on the system (``StatePreparation``);
2. phase estimation: Hadamards on the clock, clock qubit ``j`` controls
   ``U^(2^j)`` with ``U = e^{iHt}``, then the inverse QFT, so an eigenvector
   of eigenvalue ``lambda`` leaves the clock near ``k = 2^m lambda t / 2 pi``
   (modulo ``2^m``; ``k >= 2^(m-1)`` reads as negative);
3. eigenvalue inversion: a uniformly controlled ``R_y(2 arcsin(C / lambda_k))``
   on the ancilla, ``lambda_k`` the eigenvalue that clock state ``k`` stands for
   and ``C`` the smallest nonzero one (so every angle is defined); ``k = 0``
   is left alone (no eigenvalue to invert);
4. the inverse of step 2, after which the system holds ``C A^{-1} |b>`` in the
   branch with the ancilla 1 and the clock 0 (post-selection).

``U^(2^j)`` comes either exactly from the eigendecomposition of ``H``
(``evolution="exact"``) or from qlsbench's own Pauli decomposition by a
first-order Trotter product of ``r`` steps per unit of ``2^j``
(``evolution="trotter"``): each term ``c P`` gives ``exp(i c t P / r) =
cos(c t / r) I + i sin(c t / r) P``. Either way the controlled power enters the
circuit as one dense unitary, which Aer applies directly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


def clock_eigenvalues(m: int, t: float) -> np.ndarray:
    """``lambda_k`` for each clock state ``k``: ``2 pi k / (2^m t)``, with ``k >= 2^(m-1)`` read as ``k - 2^m``."""
    k = np.arange(2**m)
    signed = np.where(k >= 2 ** (m - 1), k - 2**m, k)
    return 2.0 * np.pi * signed / (2**m * t)


def default_time(m: int) -> float:
    """``t = pi (1 - 2^(1-m))``: eigenvalue 1 lands on the largest positive clock state ``2^(m-1) - 1``."""
    return float(np.pi * (1.0 - 2.0 ** (1 - m)))


def inversion_angles(m: int, t: float, C: float | None = None) -> tuple[np.ndarray, float]:
    """R_y angles per clock state and the constant ``C``.

    ``C`` defaults to the smallest nonzero ``|lambda_k|`` (one clock unit), which
    inverts every clock state exactly but post-selects with probability
    ``~4^-m``; a larger ``C`` inverts clock states below it as if they stood
    for ``+-C``.
    """
    lam = clock_eigenvalues(m, t)
    C = float(np.min(np.abs(lam[1:]))) if C is None else float(C)
    angles = np.zeros(2**m)
    angles[1:] = 2.0 * np.arcsin(np.clip(C / lam[1:], -1.0, 1.0))
    return angles, C


def phase_estimation(b: np.ndarray, qpe: PhaseEstimation):
    """``|b>`` followed by phase estimation alone: its clock distribution shows where the eigenvalues are."""
    from qiskit import QuantumCircuit
    from qiskit_aer.library import SaveStatevector

    n, m = qpe.n, qpe.m
    circuit = QuantumCircuit(n + m)
    circuit.append(_state_preparation(b), range(n))
    circuit.compose(qpe.forward, range(n + m), inplace=True)
    circuit.append(SaveStatevector(n + m), range(n + m))
    return circuit


def exact_powers(H: np.ndarray, t: float, m: int) -> list[np.ndarray]:
    """``e^{i H t 2^j}`` for ``j < m`` from the eigendecomposition of the Hermitian ``H``."""
    w, V = np.linalg.eigh(H)
    return [(V * np.exp(1j * w * t * 2**j)) @ V.conj().T for j in range(m)]


def trotter_powers(terms, t: float, m: int, steps: int) -> list[np.ndarray]:
    """``(prod_j exp(i c_j P_j t / steps))^(steps 2^j)`` from a :class:`~qlsbench.pauli.PauliDecomposition`.

    Coefficients must be real (a Hermitian ``H``). Each factor is applied as
    ``cos(theta) M + i sin(theta) P M``, exact for ``P^2 = I``.
    """
    n = terms.n_qubits
    step = np.eye(2**n, dtype=complex)
    for x, z, c in zip(terms.x_int, terms.z_int, terms.coeffs):
        P = _pauli_matrix(int(x), int(z), n)
        theta = float(np.real(c)) * t / steps
        step = np.cos(theta) * step + 1j * np.sin(theta) * (P @ step)
    unit = np.linalg.matrix_power(step, steps)
    powers = [unit]
    for _ in range(1, m):
        powers.append(powers[-1] @ powers[-1])
    return powers


def _pauli_matrix(x: int, z: int, n: int) -> sp.csr_matrix:
    """The Pauli string with X part ``x`` and Z part ``z`` (bit ``q`` is qubit ``q``), in the convention
    ``P = i^{popcount(x & z)} X^x Z^z`` that makes a ``Y`` from ``x = z = 1``."""
    index = np.arange(2**n)
    phase = (-1.0) ** np.array([bin(i & z).count("1") for i in index]) * 1j ** bin(x & z).count("1")
    return sp.csr_matrix((phase, (index ^ x, index)), shape=(2**n, 2**n))


def controlled(U: np.ndarray) -> np.ndarray:
    """``|0><0| (x) I + |1><1| (x) U`` with the control as the most significant qubit."""
    d = U.shape[0]
    out = np.eye(2 * d, dtype=complex)
    out[d:, d:] = U
    return out


def build(b: np.ndarray, qpe: PhaseEstimation, angles: np.ndarray, *, measure: bool = False, save: bool = True):
    """The HHL circuit for the normalised ``b`` and the phase estimation ``qpe``.

    Qubits: system ``0..n-1``, clock ``n..n+m-1``, ancilla ``n+m``. With
    ``measure`` every qubit is measured (shots); otherwise, with ``save``, the
    statevector is saved for Aer (``save_statevector``).
    """
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import UCRYGate

    n, m = qpe.n, qpe.m
    system, clock, ancilla = list(range(n)), list(range(n, n + m)), n + m
    circuit = QuantumCircuit(n + m + 1, n + m + 1 if measure else 0)
    circuit.append(_state_preparation(b), system)
    circuit.compose(qpe.forward, system + clock, inplace=True)
    circuit.append(UCRYGate(list(angles)), [ancilla] + clock)
    circuit.compose(qpe.inverse, system + clock, inplace=True)
    if measure:
        circuit.measure(range(n + m + 1), range(n + m + 1))
    elif save:
        from qiskit_aer.library import SaveStatevector

        circuit.append(SaveStatevector(n + m + 1), range(n + m + 1))
    return circuit


def _state_preparation(b: np.ndarray):
    """A gate taking ``|0>`` to ``b``: Qiskit's ``StatePreparation``, or a Householder unitary where it fails.

    Qiskit 2.6 builds ``StatePreparation`` from uniformly controlled gates whose 2x2 blocks can miss its own
    unitarity check on some vectors (a penalty Newton system's right-hand side with exact zeros and pairs of
    opposite entries raised "Input matrix is not unitary"; HighLevelSynthesis then reports it cannot
    synthesize "state_preparation"). The dense Householder reflection prepares the same state exactly.
    """
    from qiskit.circuit.library import StatePreparation

    gate = StatePreparation(b)
    try:
        _ = gate.definition  # built here, lazily: where it fails, it fails now rather than inside a transpile
        return gate
    except ValueError:
        return householder_preparation(b)


def householder_preparation(b: np.ndarray):
    """``UnitaryGate(U)`` with ``U |0> = b`` (``b`` a unit vector): a phase times a Householder reflection."""
    from qiskit.circuit.library import UnitaryGate

    b = np.asarray(b, dtype=complex)
    theta = float(np.angle(b[0])) if abs(b[0]) > 0 else 0.0
    target = np.zeros_like(b)
    target[0] = np.exp(1j * theta)
    u = b - target
    norm2 = float(np.vdot(u, u).real)
    # The reflection I - 2 u u^H / |u|^2 swaps b and e^{i theta} e_0 (their overlap is real): U e_0 = b.
    H = np.eye(len(b), dtype=complex) - (2.0 / norm2) * np.outer(u, u.conj()) if norm2 > 1e-30 else np.eye(len(b))
    return UnitaryGate(np.exp(1j * theta) * H, label="state_preparation")


@dataclass(frozen=True)
class PhaseEstimation:
    """Phase estimation on ``n`` system and ``m`` clock qubits (clock after the system), and its inverse.

    Two forms of the same operator. :meth:`from_powers` is the textbook one:
    Hadamards, clock qubit ``j`` controlling ``U^(2^j)`` as a dense unitary,
    the inverse QFT; its transpiled gate counts are HHL's. :meth:`in_eigenbasis`
    is the form Aer runs fast for exact evolution: with ``H = V diag(w) V^dagger``
    every controlled power is ``V`` times a controlled diagonal, so the ``m``
    controlled ``n``-qubit unitaries become ``V^dagger``, one diagonal on the
    ``n + m`` qubits (phase ``e^{i w_s t c}`` on system state ``s`` and clock
    state ``c``) and ``V``, and the ``V`` that closes the forward part cancels
    the ``V^dagger`` that opens the inverse (the inversion acts on the clock and
    the ancilla only). At 10 system qubits and an 8-qubit clock that is one
    diagonal instead of sixteen 11-qubit unitaries on a 19-qubit state.
    """

    n: int
    m: int
    forward: object
    inverse: object

    @classmethod
    def from_powers(cls, powers: list[np.ndarray], n: int) -> PhaseEstimation:
        """Clock qubit ``j`` controls the dense unitary ``powers[j] = U^(2^j)``."""
        from qiskit import QuantumCircuit
        from qiskit.circuit.library import QFTGate, UnitaryGate

        m = len(powers)
        system = list(range(n))
        forward, inverse = QuantumCircuit(n + m, name="qpe"), QuantumCircuit(n + m, name="qpe_dg")
        forward.h(range(n, n + m))
        for j, U in enumerate(powers):
            forward.append(UnitaryGate(controlled(U), check_input=False), system + [n + j])
        forward.append(QFTGate(m).inverse(), range(n, n + m))
        # the inverse written out: QuantumCircuit.inverse() would check every adjoint unitary again (seconds at n = 9)
        inverse.append(QFTGate(m), range(n, n + m))
        for j, U in reversed(list(enumerate(powers))):
            inverse.append(UnitaryGate(controlled(U.conj().T), check_input=False), system + [n + j])
        inverse.h(range(n, n + m))
        return cls(n, m, forward, inverse)

    @classmethod
    def in_eigenbasis(cls, w: np.ndarray, V: np.ndarray, t: float, m: int) -> PhaseEstimation:
        """``U = e^{iHt}`` with ``H = V diag(w) V^dagger``, applied through ``V`` and one diagonal."""
        from qiskit import QuantumCircuit
        from qiskit.circuit.library import DiagonalGate, QFTGate, UnitaryGate

        n = int(np.log2(len(w)))
        system, every = list(range(n)), list(range(n + m))
        # index c * 2^n + s (little-endian: the system's qubits are the low bits)
        phases = np.exp(1j * t * np.outer(np.arange(2**m), w)).ravel()
        forward, inverse = QuantumCircuit(n + m, name="qpe"), QuantumCircuit(n + m, name="qpe_dg")
        forward.append(UnitaryGate(V.conj().T, check_input=False), system)
        forward.h(range(n, n + m))
        forward.append(DiagonalGate(list(phases)), every)
        forward.append(QFTGate(m).inverse(), range(n, n + m))
        inverse.append(QFTGate(m), range(n, n + m))
        inverse.append(DiagonalGate(list(phases.conj())), every)
        inverse.h(range(n, n + m))
        inverse.append(UnitaryGate(V, check_input=False), system)
        return cls(n, m, forward, inverse)


def postselected(state: np.ndarray, n: int, m: int) -> np.ndarray:
    """The system's amplitudes in the branch ancilla 1, clock 0 (not renormalised)."""
    return np.asarray(state).reshape(2, 2**m, 2**n)[1, 0, :]


__all__ = [
    "PhaseEstimation",
    "build",
    "clock_eigenvalues",
    "controlled",
    "default_time",
    "exact_powers",
    "inversion_angles",
    "phase_estimation",
    "postselected",
    "trotter_powers",
]
