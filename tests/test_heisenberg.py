"""The split of noisy circuits at their parameterised front, on a two-qubit case small enough to check by hand.

Truth: Aer's density-matrix simulation of the whole noisy circuit (the reference the device backend keeps), and
the readout confusion's effect written out.
"""

from __future__ import annotations

import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit import ParameterVector
from qiskit_aer import AerSimulator
from qiskit_aer.noise import NoiseModel, depolarizing_error

from qlsbench.solvers.heisenberg import split, whole_p0


def _tests():
    """Two Hadamard-test-like circuits sharing the front ``ry(a0) ry(a1)``, with different fixed rests."""
    alpha = ParameterVector("alpha", 2)
    circuits = []
    for rest in ("cx", "cz"):
        qc = QuantumCircuit(2, 1)
        qc.ry(alpha[0], 0)
        qc.ry(alpha[1], 1)
        getattr(qc, rest)(0, 1)
        qc.h(0)
        qc.measure(0, 0)
        circuits.append(qc)
    return circuits


def test_a_shared_front_and_its_observables_give_the_whole_noisy_circuits_probabilities():
    error = depolarizing_error(0.2, 2)
    model = NoiseModel()
    model.add_quantum_error(error, ["cx", "cz"], [0, 1])
    noisy = AerSimulator(method="density_matrix", noise_model=model)
    circuits, alpha = _tests(), np.array([0.7, -1.9])
    parts = split(circuits, {("cx", (0, 1)): error, ("cz", (0, 1)): error}, {})
    assert len(parts.fronts) == 1 and list(parts.group) == [0, 0]  # one density matrix serves both tests
    reference = whole_p0(circuits, noisy, alpha)
    ideal = whole_p0(circuits, AerSimulator(method="density_matrix"), alpha)
    assert np.abs(reference - ideal).min() > 1e-3  # the noise matters: an observable without it would fail
    np.testing.assert_allclose(parts.p0(noisy, alpha), reference, atol=1e-12)
    # The readout's confusion is the effect of reading 0: P(0|0) p + P(0|1) (1 - p).
    confused = split(circuits, {("cx", (0, 1)): error, ("cz", (0, 1)): error}, {0: (0.9, 0.2)})
    np.testing.assert_allclose(confused.p0(noisy, alpha), 0.9 * reference + 0.2 * (1 - reference), atol=1e-12)
