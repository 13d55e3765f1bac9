"""The QSVT circuit: an LCU block encoding of ``A`` and the alternating phase sequence around it.

Registers, Qiskit's little-endian order: the system (``n`` qubits, qubit 0 the
least significant bit of a vector index), the selection register (``a =
ceil(log2 L)`` qubits for ``L`` Pauli terms) and one signal qubit. A basis
index is ``s + 2^n j + 2^(n+a) signal``, so the post-selected branch (selection
register and signal qubit 0) is the first ``2^n`` amplitudes.

Block encoding by a linear combination of unitaries (Childs and Wiebe, Quantum
Inf. Comput. 12, 901 (2012)): with ``A = sum_j c_j P_j`` and ``alpha = sum_j
|c_j|``, ``PREPARE |0> = sum_j sqrt(|c_j| / alpha) |j>`` and ``SELECT = sum_j
|j><j| (x) e^{i arg c_j} P_j``, so ``U_A = PREPARE^dag SELECT PREPARE`` has
``(<0| (x) I) U_A (|0> (x) I) = A / alpha``. Each term of SELECT is its Pauli
letters as gates controlled on the selection register holding ``j`` (the
register's zero bits flipped around them), and the phase of ``c_j`` (``+-1``,
``+-i`` for a real matrix) a multi-controlled phase.

QSVT (Gilyen, Su, Low, Wiebe, STOC 2019, Thm. 17 and Cor. 18): on each
two-dimensional subspace of a singular value ``sigma`` of ``A / alpha``, ``U``
and ``U^dag`` act as the reflection ``R(sigma) = [[sigma, s], [s, -sigma]]``
(``s = sqrt(1 - sigma^2)``) and the projector-controlled phase ``e^{i phi (2
Pi - I)}``, ``Pi`` the selection register's ``|0>``, as ``e^{i phi Z}``. The
phases come in the symmetric-QSP convention of Dong, Meng, Whaley and Lin
(Phys. Rev. A 103, 042419 (2021)): ``U(x) = e^{i phi_0 Z} W(x) e^{i phi_1 Z}
... W(x) e^{i phi_d Z}`` with ``W(x) = e^{i arccos(x) X}`` and ``Re <0|U(x)|0> =
p(x)``. Since ``W(x) = i e^{-i pi/4 Z} R(x) e^{-i pi/4 Z}``, the same product
with reflections takes ``psi_0 = phi_0 - pi/4``, ``psi_j = phi_j - pi/2`` (``0 <
j < d``) and ``psi_d = phi_d - pi/4``, and leaves the factor ``i^-d``. The
signal qubit takes the real part: in ``|+>`` it runs the sequence with ``psi``
(signal 0) and with ``-psi`` (signal 1), whose blocks are complex conjugates
(``R`` is real), and a final Hadamard post-selected on 0 keeps their mean; the
``i^d`` is put back by adding ``d pi / 2`` to ``psi_0``, which on the
post-selected branch multiplies signal 0 by ``i^d`` and signal 1 by ``i^-d``.
The block of the whole circuit is then ``p(sigma)`` on each singular value.

An odd ``p`` applied to the block encoding of ``A^dag`` (``U_A^dag``, applied
first, then ``U_A``, alternating: ``d`` applications for degree ``d``) maps
``A^dag = sum sigma |v><w|`` to ``sum p(sigma) |v><w|``, which for ``p(x) ~ c /
x`` is ``c (A / alpha)^-1``: the post-selected state is ``A^-1 b`` up to scale.
For a Hermitian ``A`` this is ``p(A / alpha)`` itself.
"""

from __future__ import annotations

import math

import numpy as np

#: Terms of SELECT whose coefficient's phase is within this of a multiple of pi/2 are given that phase exactly.
PHASE_SNAP = 1e-12


def select_qubits(terms: int) -> int:
    """Qubits of the selection register for ``terms`` Pauli strings: ``ceil(log2 terms)``, at least 1."""
    return max(1, math.ceil(math.log2(max(terms, 1))))


def block_encoding(decomposition, n_qubits: int):
    """``U_A = PREPARE^dag SELECT PREPARE`` on ``n_qubits + a`` qubits (system first) and ``alpha``.

    Every gate is one Aer applies as it is (``u``, ``cx``, ``x``, ``h``, ``s``, ``sdg``, ``mcx``, ``mcphase``), so
    the circuit runs, and repeats inside :func:`qsvt`, without a transpiler pass: PREPARE is Qiskit's
    ``StatePreparation`` decomposed once into ``u`` and ``cx``.

    Parameters
    ----------
    decomposition : PauliDecomposition
        The terms of ``A`` (:func:`qlsbench.pauli._lcu.lcu_form`), zero coefficients left out.
    n_qubits : int
        System qubits.

    Returns
    -------
    (qiskit.QuantumCircuit, float)
        The circuit and ``alpha = sum |c_j|``.
    """
    from qiskit import QuantumCircuit
    from qiskit.circuit.library import StatePreparation

    coeffs = np.asarray(decomposition.coeffs, dtype=complex)
    magnitude = np.abs(coeffs)
    alpha = float(magnitude.sum())
    a = select_qubits(len(coeffs))
    amplitudes = np.zeros(2**a)
    amplitudes[: len(coeffs)] = np.sqrt(magnitude / alpha)
    amplitudes /= np.linalg.norm(amplitudes)  # rounding: StatePreparation wants norm 1 to 1e-10
    system, select = list(range(n_qubits)), list(range(n_qubits, n_qubits + a))
    prepare = QuantumCircuit(a, name="PREPARE")
    prepare.append(StatePreparation(amplitudes), range(a))
    prepare = basic_gates(prepare)
    circuit = QuantumCircuit(n_qubits + a, name="U_A")
    circuit.compose(prepare, select, inplace=True)
    for j, (label, c) in enumerate(zip(decomposition.labels(), coeffs)):
        _controlled_term(circuit, label[::-1], float(np.angle(c)), j, system, select)
    circuit.compose(prepare.inverse(), select, inplace=True)
    return circuit, alpha


def basic_gates(circuit):
    """``circuit`` transpiled to ``u`` and ``cx`` (Qiskit level 1, seed 0)."""
    from qiskit import transpile

    return transpile(circuit, basis_gates=["u", "cx"], optimization_level=1, seed_transpiler=0)


def _controlled_term(circuit, letters: str, phase: float, j: int, system: list, select: list) -> None:
    """``|j><j| (x) e^{i phase} P`` (``letters[q]`` acts on system qubit ``q``), the rest of the register untouched.

    The register's zero bits of ``j`` are flipped around the term, so every control is on 1; ``Y = S X S^dag``
    and ``Z = H X H`` make each letter a multi-controlled X."""
    zeros = [q for k, q in enumerate(select) if not (j >> k) & 1]
    if zeros:
        circuit.x(zeros)
    for q, letter in enumerate(letters):
        target = system[q]
        if letter == "X":
            circuit.mcx(select, target)
        elif letter == "Y":
            circuit.sdg(target)
            circuit.mcx(select, target)
            circuit.s(target)
        elif letter == "Z":
            circuit.h(target)
            circuit.mcx(select, target)
            circuit.h(target)
    quarter = phase / (np.pi / 2)
    if abs(quarter - round(quarter)) < PHASE_SNAP:
        phase = round(quarter) * np.pi / 2
    if phase != 0:
        if len(select) > 1:
            circuit.mcp(phase, select[:-1], select[-1])
        else:
            circuit.p(phase, select[0])
    if zeros:
        circuit.x(zeros)


def prepare_state(b: np.ndarray):
    """``|0> -> b`` (a unit vector) in ``u`` and ``cx`` gates (HHL's state preparation, decomposed)."""
    from qiskit import QuantumCircuit

    from qlsbench.solvers.hhl.circuit import _state_preparation

    n = int(np.log2(len(b)))
    circuit = QuantumCircuit(n, name="prepare_b")
    circuit.append(_state_preparation(np.asarray(b, dtype=complex)), range(n))
    return basic_gates(circuit)


def reflection_phases(phases: np.ndarray) -> np.ndarray:
    """The symmetric-QSP phases ``phi_0..phi_d`` in the reflection convention, ``i^d`` folded in (module docstring)."""
    phases = np.asarray(phases, dtype=float)
    d = len(phases) - 1
    psi = phases - np.pi / 2
    psi[0] = phases[0] - np.pi / 4 + d * np.pi / 2
    psi[-1] = phases[-1] - np.pi / 4
    return psi


def projector_phase(circuit, phi: float, select: list, signal: int) -> None:
    """``e^{i phi (2 Pi - I)}`` with signal 0 and ``e^{-i phi (2 Pi - I)}`` with signal 1 (``Pi``: register 0)."""
    # The signal qubit flipped when the register is 0, turned by e^{-i phi Z}, flipped back.
    circuit.x(select)
    circuit.mcx(select, signal)
    circuit.rz(2.0 * phi, signal)
    circuit.mcx(select, signal)
    circuit.x(select)


def qsvt(b: np.ndarray, block, n_qubits: int, phases: np.ndarray, *, measure: bool = False):
    """The QSVT circuit for ``|b>``: the phases' sequence around ``block`` (``U_A``) and ``block^dag``.

    Parameters
    ----------
    b : numpy.ndarray
        The right-hand side, a unit vector of length ``2^n_qubits``.
    block : qiskit.QuantumCircuit
        :func:`block_encoding`'s circuit (system, then selection register).
    n_qubits : int
        System qubits.
    phases : numpy.ndarray
        Symmetric-QSP phases ``phi_0..phi_d`` of an odd polynomial (``d`` odd).
    measure : bool
        Measure every qubit at the end (the shot backend).

    Returns
    -------
    qiskit.QuantumCircuit
        On ``n_qubits + a + 1`` qubits: system, selection register, signal.
    """
    from qiskit import QuantumCircuit

    a = block.num_qubits - n_qubits
    system, select, signal = list(range(n_qubits)), list(range(n_qubits, n_qubits + a)), n_qubits + a
    width = n_qubits + a + 1
    circuit = QuantumCircuit(width, width if measure else 0, name="qsvt")
    circuit.compose(prepare_state(b), system, inplace=True)
    circuit.h(signal)
    forward, backward = block.inverse(), block  # U_A^dag first: the polynomial of A^dag gives A^-1
    psi = reflection_phases(phases)
    on = system + select
    # psi_d acts first (the product is read right to left), then U, psi_{d-1}, U^dag, ...
    for k, phi in enumerate(psi[::-1]):
        projector_phase(circuit, phi, select, signal)
        if k < len(psi) - 1:
            circuit.compose(forward if k % 2 == 0 else backward, on, inplace=True)
    circuit.h(signal)
    if measure:
        circuit.measure(range(width), range(width))
    return circuit


def postselected(state: np.ndarray, n_qubits: int) -> np.ndarray:
    """The system's amplitudes with the selection register and the signal qubit 0 (not renormalised)."""
    return np.asarray(state)[: 2**n_qubits]


__all__ = [
    "basic_gates",
    "block_encoding",
    "postselected",
    "prepare_state",
    "projector_phase",
    "qsvt",
    "reflection_phases",
    "select_qubits",
]
