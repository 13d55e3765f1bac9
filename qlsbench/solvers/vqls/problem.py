"""A linear system in the form VQLS takes it: ``A`` on ``n`` qubits, ``|b>`` and a unitary ``U|0> = |b>``.

The local cost depends on the whole of ``U``, not only on ``U|0>``, so ``U``
is fixed here once for every backend: ``H^n`` (times a phase) when ``|b>`` is
the uniform superposition, as in the Ising-inspired problem, and otherwise
the Householder reflection that maps ``|0>`` to ``|b>`` (times a phase).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from qlsbench.pauli._walsh import fwht
from qlsbench.problems import LinearSystem
from qlsbench.solvers.variational import qubits_of


@dataclass(frozen=True)
class VQLSProblem:
    """``A x = b`` scaled for VQLS: ``A`` as given (sparse), ``b`` normalised, ``U`` fixed.

    Attributes
    ----------
    A : scipy.sparse.csr_matrix
        The matrix, ``2^n x 2^n``.
    b : numpy.ndarray
        ``b / ||b||`` (complex).
    n_qubits : int
        ``log2`` of the dimension.
    preparation : str
        ``"hadamard"`` or ``"householder"``: how ``U`` is built.
    phase : complex
        Global phase of ``U`` (``U|0> = |b>`` exactly).
    """

    A: sp.csr_matrix
    b: np.ndarray
    n_qubits: int
    preparation: str
    phase: complex
    _w: np.ndarray | None = field(default=None, repr=False)

    @classmethod
    def from_system(cls, system: LinearSystem) -> VQLSProblem:
        """Build from a :class:`LinearSystem` of power-of-two dimension with ``b != 0``."""
        n = qubits_of(system, "VQLS")
        N = system.dim
        b = np.asarray(system.b, dtype=complex) / np.linalg.norm(system.b)
        phase = b[0] / abs(b[0]) if b[0] != 0 else 1.0 + 0j
        if np.allclose(b, b[0], rtol=0, atol=1e-14):
            return cls(sp.csr_matrix(system.A), b, n, "hadamard", complex(b[0] * np.sqrt(N)))
        w = phase * np.eye(1, N, 0, dtype=complex)[0] - b  # reflection taking phase|0> to |b>
        return cls(sp.csr_matrix(system.A), b, n, "householder", complex(phase), w if np.any(w) else None)

    @cached_property
    def A_H(self) -> sp.csr_matrix:
        """``A^dagger``, kept for gradients."""
        return sp.csr_matrix(self.A.conj().T)

    def u_dagger(self, y: np.ndarray) -> np.ndarray:
        """``U^dagger y``."""
        if self.preparation == "hadamard":
            return np.conj(self.phase) * fwht(np.array(y, dtype=complex)) / np.sqrt(len(y))
        if self._w is None:
            return np.conj(self.phase) * np.asarray(y, dtype=complex)
        w = self._w
        return np.conj(self.phase) * (y - 2 * w * (np.vdot(w, y) / np.vdot(w, w)))

    def u(self, y: np.ndarray) -> np.ndarray:
        """``U y`` (both constructions are a phase times a Hermitian matrix)."""
        return self.phase**2 * self.u_dagger(y)

    def u_matrix(self) -> np.ndarray:
        """``U`` as a dense matrix (for circuits; ``2^n x 2^n``)."""
        return np.column_stack([self.u(e) for e in np.eye(1 << self.n_qubits, dtype=complex)])

    def u_circuit(self):
        """``U`` as a Qiskit circuit on ``n`` qubits (global phase included, so it can be controlled)."""
        from qiskit import QuantumCircuit
        from qiskit.circuit.library import UnitaryGate

        qc = QuantumCircuit(self.n_qubits, name="U")
        if self.preparation == "hadamard":
            qc.h(range(self.n_qubits))
            qc.global_phase = float(np.angle(self.phase))
        else:
            qc.append(UnitaryGate(self.u_matrix(), label="U"), range(self.n_qubits))
        return qc
