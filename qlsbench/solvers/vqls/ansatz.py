"""The fixed-structure hardware-efficient ansatz V(alpha): R_y layers and CZ ladders.

``layers`` blocks of (R_y on every qubit, then CZ on neighbours (q, q + 1)),
closed by a final R_y layer: ``n (layers + 1)`` parameters. Every gate is
real, so ``V(alpha)|0>`` is a real vector; :class:`RealAnsatz` simulates it in
numpy (Qiskit's qubit order: qubit ``q`` is bit ``q`` of the index) and
differentiates it by the adjoint method, which is what the ``exact`` backend
and L-BFGS-B need. :func:`ansatz_circuit` is the same ansatz as a Qiskit
circuit, for the circuit backends (tests check the two agree).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from qlsbench.errors import InputError


def n_parameters(n_qubits: int, layers: int) -> int:
    """Parameters of the ansatz: one R_y angle per qubit per layer, plus the closing layer."""
    return n_qubits * (layers + 1)


def initial_parameters(n_qubits: int, layers: int, seed: int) -> np.ndarray:
    """Seeded starting angles, uniform in ``[0, 2 pi)``."""
    return np.random.default_rng(seed).uniform(0.0, 2 * np.pi, n_parameters(n_qubits, layers))


def ansatz_circuit(n_qubits: int, layers: int):
    """V(alpha) as a parametrised Qiskit circuit (parameters ``alpha[0..P-1]`` in gate order)."""
    from qiskit import QuantumCircuit
    from qiskit.circuit import ParameterVector

    alpha = ParameterVector("alpha", n_parameters(n_qubits, layers))
    qc = QuantumCircuit(n_qubits, name="V")
    k = 0
    for layer in range(layers + 1):
        for q in range(n_qubits):
            qc.ry(alpha[k], q)
            k += 1
        if layer < layers:
            for q in range(n_qubits - 1):
                qc.cz(q, q + 1)
    return qc


def _check_layers(n_qubits: int, layers: int) -> None:
    if isinstance(layers, bool) or not isinstance(layers, (int, np.integer)) or layers < 0:
        raise InputError(f"layers must be an integer >= 0, got {layers!r}")
    if n_qubits < 1:
        raise InputError(f"the ansatz needs at least one qubit, got {n_qubits}")


@dataclass
class RealAnsatz:
    """Statevector simulator of V(alpha) with adjoint-method gradients.

    Parameters
    ----------
    n_qubits, layers : int
        Size of the ansatz.
    """

    n_qubits: int
    layers: int
    _cz: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        _check_layers(self.n_qubits, self.layers)
        idx = np.arange(1 << self.n_qubits)
        bits = (idx[:, None] >> np.arange(self.n_qubits)) & 1
        # The CZ ladder is diagonal: (-1)^(number of neighbouring 1-1 pairs).
        pairs = (bits[:, :-1] & bits[:, 1:]).sum(axis=1) if self.n_qubits > 1 else np.zeros(len(idx), int)
        self._cz = np.where(pairs & 1, -1.0, 1.0)

    @property
    def n_parameters(self) -> int:
        return n_parameters(self.n_qubits, self.layers)

    def _ry(self, state: np.ndarray, q: int, theta: float) -> np.ndarray:
        """R_y(theta) on qubit ``q`` of a ``(2,) * n`` view (axis ``n - 1 - q``), new array."""
        c, s = np.cos(theta / 2), np.sin(theta / 2)
        view = state.reshape(-1, 2, 1 << q)
        out = np.empty_like(view)
        out[:, 0] = c * view[:, 0] - s * view[:, 1]
        out[:, 1] = s * view[:, 0] + c * view[:, 1]
        return out.reshape(-1)

    def _gates(self):
        """The gate sequence as ``(kind, qubit, parameter index)``; ``kind`` is "ry" or "cz"."""
        k = 0
        for layer in range(self.layers + 1):
            for q in range(self.n_qubits):
                yield "ry", q, k
                k += 1
            if layer < self.layers:
                yield "cz", -1, -1

    def state(self, alpha: np.ndarray) -> np.ndarray:
        """``V(alpha)|0>`` as a real vector of length ``2^n``."""
        alpha = self._check(alpha)
        v = np.zeros(1 << self.n_qubits)
        v[0] = 1.0
        for kind, q, k in self._gates():
            v = self._ry(v, q, alpha[k]) if kind == "ry" else v * self._cz
        return v

    def states(self, alphas: np.ndarray) -> np.ndarray:
        """States for a batch of parameter vectors, ``(B, 2^n)``."""
        return np.array([self.state(a) for a in np.atleast_2d(alphas)])

    def gradient(self, alpha: np.ndarray, dcost_dv: np.ndarray) -> np.ndarray:
        """``dC/dalpha`` from ``dC/dv`` (real) by one backward sweep (adjoint method).

        ``dC/dalpha_k = lambda_k . dG_k/dalpha_k phi_{k-1}``, with ``phi`` the
        state before gate ``k`` (uncomputed gate by gate, as every gate is
        orthogonal) and ``lambda`` the cost gradient pulled back through the
        gates after it. ``dR_y(t)/dt = R_y(t + pi) / 2``.
        """
        alpha = self._check(alpha)
        phi = self.state(alpha)
        lam = np.asarray(dcost_dv, dtype=float).copy()
        grad = np.zeros(self.n_parameters)
        for kind, q, k in reversed(list(self._gates())):
            if kind == "cz":
                phi, lam = phi * self._cz, lam * self._cz
                continue
            phi = self._ry(phi, q, -alpha[k])  # the state before this gate
            grad[k] = 0.5 * lam @ self._ry(phi, q, alpha[k] + np.pi)
            lam = self._ry(lam, q, -alpha[k])  # R_y(t)^T = R_y(-t)
        return grad

    def _check(self, alpha) -> np.ndarray:
        alpha = np.asarray(alpha, dtype=float)
        if alpha.shape != (self.n_parameters,):
            raise InputError(f"the ansatz of {self.n_qubits} qubits and {self.layers} layers takes "
                             f"{self.n_parameters} parameters, got shape {alpha.shape}")
        return alpha
