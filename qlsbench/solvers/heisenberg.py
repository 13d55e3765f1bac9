"""Noisy circuits that share a parameterised front, evaluated once per front: the fixed rest as an observable.

A VQLS cost evaluation runs hundreds of Hadamard tests on a device's noise. Each routed
test splits into its *front*, every operation a parameterised gate depends on (the gates
before it on its qubits, and theirs: the ansatz ``V(theta)``), and its *rest*, which no
parameter touches (controlled Paulis, ``U``, the ancilla's gates, the measurement). The
device's noise is Markovian and local: each gate is followed by an error on its own
qubits and the readout by a confusion per qubit; idle qubits do not decohere (as in
:mod:`qlsbench.solvers.devices`). So the circuit's channel is the rest's channel after
the front's, and the probability of reading 0 is

    p0 = Tr[ R^dagger(M0) rho_front(theta) ],

with ``M0`` the readout's effect for outcome 0 (the confusion included) and ``R^dagger``
the dual (Heisenberg-picture) channel of the rest, propagated through the rest's noisy
gates once per solve. Many tests share one front (the same routed ansatz on the same
physical qubits), so an evaluation runs one Aer density-matrix simulation per distinct
front and a dot product per test, then draws each test's shots from its ``p0``: the same
binomial distribution the full circuit's sampled shots have.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Widest region split this way: each test keeps one observable of ``4**k`` complex entries (k = 8: 1 MiB).
HEISENBERG_QUBITS = 8


@dataclass(frozen=True)
class Split:
    """The tests of a batch grouped by front.

    Attributes
    ----------
    fronts : list
        One parameterised circuit per distinct front (region width, ending in ``save_density_matrix``).
    group : np.ndarray
        The front of each test (index into ``fronts``).
    observables : np.ndarray
        ``R^dagger(M0)`` of each test, transposed and flattened, so that ``p0 = Re(observables[i] @
        rho.ravel())``; shape ``(tests, 4**k)``.
    """

    fronts: list
    group: np.ndarray
    observables: np.ndarray

    def p0(self, simulator, alpha: np.ndarray) -> np.ndarray:
        """Each test's probability of reading 0 at parameters ``alpha`` (one Aer run of the fronts)."""
        bound = [
            qc.assign_parameters({p: alpha[p.index] for p in qc.parameters}) if qc.num_parameters else qc
            for qc in self.fronts
        ]
        result = simulator.run(bound, shots=1).result()
        rhos = np.array([np.asarray(result.data(i)["front"]).ravel() for i in range(len(bound))])
        return np.einsum("ij,ij->i", self.observables, rhos[self.group]).real


def split(circuits: list, gate_errors: dict, readout: dict) -> Split:
    """Split routed circuits measuring one qubit each at their front (see the module docstring).

    Parameters
    ----------
    circuits : list
        Routed circuits on the same ``k`` qubits, each with one final measurement and no parameter after its front.
    gate_errors : dict
        ``(operation name, qubits) -> QuantumError`` applied after that gate (the device's noise model).
    readout : dict
        ``qubit -> (P(read 0 | 0), P(read 0 | 1))``.
    """
    from threadpoolctl import threadpool_limits

    # Thousands of contractions of a few thousand entries each: BLAS threads only cost here (one 2-qubit dual
    # at 6 qubits: 0.10 ms on one thread, 4.4 ms on two beside busy processes).
    with threadpool_limits(limits=1, user_api="blas"):
        return _split(circuits, gate_errors, readout)


def _split(circuits: list, gate_errors: dict, readout: dict) -> Split:
    fronts: dict[tuple, int] = {}
    front_circuits: list = []
    group: list[int] = []
    observables: list[np.ndarray] = []
    channels: dict[tuple, np.ndarray] = {}  # the tests repeat a few gates: each noisy gate's channel once
    for qc in circuits:
        front, rest = _front_and_rest(qc)
        key = tuple(_key(qc, inst) for inst in front)
        if key not in fronts:
            fronts[key] = len(front_circuits)
            front_circuits.append(_front_circuit(qc, front))
        group.append(fronts[key])
        observables.append(_dual(qc, rest, gate_errors, readout, channels).T.ravel())
    return Split(front_circuits, np.array(group, dtype=int), np.array(observables))


def whole_p0(circuits: list, simulator, alpha: np.ndarray) -> np.ndarray:
    """The reference for :meth:`Split.p0`: each whole circuit's exact probability of reading 0 before readout
    error, from one Aer run of ``simulator`` (a density-matrix simulator with the noise)."""
    from qiskit import QuantumCircuit

    whole: list[QuantumCircuit] = []
    for qc in circuits:
        (qubit,) = (qc.find_bit(inst.qubits[0]).index for inst in qc.data if inst.operation.name == "measure")
        bound = qc.remove_final_measurements(inplace=False)
        bound = bound.assign_parameters({p: alpha[p.index] for p in bound.parameters}) if bound.parameters else bound
        bound.save_probabilities([qubit], label="p")
        whole.append(bound)
    result = simulator.run(whole, shots=1).result()
    return np.array([result.data(i)["p"][0] for i in range(len(whole))])


def _front_and_rest(qc) -> tuple[list, list]:
    """The operations parameterised gates depend on (in circuit order), and the others."""
    last: dict[int, int] = {}  # qubit -> index of the last operation on it so far
    parents: list[set[int]] = []
    for index, inst in enumerate(qc.data):
        qubits = [qc.find_bit(q).index for q in inst.qubits]
        parents.append({last[q] for q in qubits if q in last})
        for q in qubits:
            last[q] = index
    needed: set[int] = set()
    stack = [i for i, inst in enumerate(qc.data) if _parameterised(inst)]
    while stack:
        i = stack.pop()
        if i not in needed:
            needed.add(i)
            stack.extend(parents[i])
    front = [inst for i, inst in enumerate(qc.data) if i in needed]
    rest = [inst for i, inst in enumerate(qc.data) if i not in needed]
    if any(_parameterised(inst) for inst in rest):  # pragma: no cover - the closure takes every one
        raise AssertionError("a parameterised gate outside the front")
    return front, rest


def _parameterised(inst) -> bool:
    return any(getattr(p, "parameters", None) for p in inst.operation.params)


def _key(qc, inst) -> tuple:
    qubits = tuple(qc.find_bit(q).index for q in inst.qubits)
    return inst.operation.name, qubits, tuple(str(p) for p in inst.operation.params)


def _front_circuit(qc, front: list):
    """The front as its own circuit on the region's qubits, saving its density matrix."""
    from qiskit import QuantumCircuit

    out = QuantumCircuit(qc.num_qubits)
    for inst in front:
        out.append(inst.operation, [qc.find_bit(q).index for q in inst.qubits])
    out.save_density_matrix(label="front")
    return out


def _dual(qc, rest: list, gate_errors: dict, readout: dict, channels: dict) -> np.ndarray:
    """``R^dagger(M0)`` as a ``2**k`` square matrix (Qiskit order: bit q of an index is qubit q); ``channels``
    caches each noisy gate's superoperator by :func:`_key`."""
    k = qc.num_qubits
    measures = [inst for inst in rest if inst.operation.name == "measure"]
    if len(measures) != 1 or rest[-1] is not measures[0]:
        raise ValueError("a split circuit ends in exactly one measurement")
    (qubit,) = (qc.find_bit(q).index for q in measures[0].qubits)
    p00, p01 = readout.get(qubit, (1.0, 0.0))
    # The effect of reading 0: the qubit's projector blurred by its confusion, the identity elsewhere.
    tensor = _embed(np.diag([p00, p01]).astype(complex), qubit, k)
    for inst in reversed(rest[:-1]):
        name = inst.operation.name
        if name == "barrier":
            continue
        key = _key(qc, inst)
        if key not in channels:
            channels[key] = _noisy_gate(inst.operation, gate_errors.get(key[:2]))
        tensor = _apply_dual(tensor, channels[key], list(key[1]), k)
    return tensor.reshape(1 << k, 1 << k)


def _noisy_gate(operation, error) -> np.ndarray:
    """The superoperator of ``operation`` followed by ``error`` (None: the gate alone), as a tensor of ``4m``
    axes (Qiskit's column-stacking convention: output column, output row, input column, input row bits).

    A superoperator, not Kraus operators: converting a calibrated error to Kraus form drops eigenvalues of its
    Choi matrix below a tolerance (4e-9 off Aer's probabilities at 5 qubits)."""
    from qiskit.quantum_info import SuperOp

    channel = SuperOp(operation)
    if error is not None:
        channel = channel.compose(error.to_quantumchannel())
    return channel.data.reshape((2,) * (4 * operation.num_qubits))


def _embed(matrix: np.ndarray, qubit: int, k: int) -> np.ndarray:
    """``matrix`` on ``qubit``, the identity elsewhere, as a tensor of ``2k`` axes (rows, then columns)."""
    full = np.eye(1, dtype=complex)
    for q in reversed(range(k)):  # the most significant qubit first
        full = np.kron(full, matrix if q == qubit else np.eye(2))
    return full.reshape((2,) * (2 * k))


def _apply_dual(tensor: np.ndarray, superop: np.ndarray, qubits: list[int], k: int) -> np.ndarray:
    """The dual of the channel ``superop`` on ``qubits`` (Qiskit order: bit j of its index is ``qubits[j]``)
    applied to ``O``, a tensor whose axis ``k - 1 - q`` is qubit ``q``'s row and ``2k - 1 - q`` its column.

    ``Tr[O E(rho)] = sum O[c, r] S[(c, r), (c', r')] rho[r', c']``, so ``E^dagger(O)[c', r'] = sum_{c, r}
    S[(c, r), (c', r')] O[c, r]``: the superoperator's output columns meet ``O``'s rows, its output rows ``O``'s
    columns, and its input columns and rows become the new rows and columns.
    """
    m = len(qubits)
    rows = [k - 1 - q for q in reversed(qubits)]  # the most significant bit of the gate's index first
    cols = [2 * k - 1 - q for q in reversed(qubits)]
    out = np.tensordot(superop, tensor, axes=(list(range(2 * m)), rows + cols))
    return np.moveaxis(out, list(range(2 * m)), rows + cols)


__all__ = ["HEISENBERG_QUBITS", "Split", "split", "whole_p0"]
