"""The fixed-structure hardware-efficient ansatz V(alpha): R_y layers between CZ layers.

``layers`` blocks of (R_y on every qubit, then one CZ layer), closed by a final
R_y layer: ``n (layers + 1)`` parameters. Which neighbours a CZ layer links is
the ansatz's *structure*, by name in :data:`STRUCTURES`:

- ``brickwall`` (the default): CZ on the even pairs ``(0, 1), (2, 3), ...``,
  then on the odd pairs ``(1, 2), (3, 4), ...``, alternating. This is the
  layered ansatz of Bravo-Prieto et al. (the VQLS paper, arXiv:1909.05820,
  fig. 3), which De et al. cite for VQLS without drawing a circuit of their
  own. Its dynamical Lie algebra is all of ``so(2^n)`` (checked for n <= 5):
  with enough layers it reaches every real state.
- ``ladder``: CZ on every neighbouring pair ``(q, q + 1)`` in every layer -
  qlsbench's ansatz before it had a choice, kept so earlier results can be
  reproduced. The same R_y layer and the same CZ ladder repeated generate
  a Lie algebra of dimension 12 / 20 / 30 at n = 3 / 4 / 5 against so(2^n)'s
  28 / 120 / 496: most real states are out of its reach at any depth (a
  random state at n = 6 is fitted to fidelity about 0.5).

Every gate is real, so ``V(alpha)|0>`` is a real vector; :class:`RealAnsatz`
simulates it in numpy (Qiskit's qubit order: qubit ``q`` is bit ``q`` of the
index) and differentiates it by the adjoint method, which is what the
``exact`` backend and L-BFGS-B need. :func:`ansatz_circuit` is the same ansatz
as a Qiskit circuit, for the circuit backends (tests check the two agree).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from qlsbench.checks import whole_number
from qlsbench.errors import InputError


def _brickwall(n_qubits: int, layer: int) -> list[tuple[int, int]]:
    return [(q, q + 1) for q in range(layer % 2, n_qubits - 1, 2)]


def _ladder(n_qubits: int, layer: int) -> list[tuple[int, int]]:
    return [(q, q + 1) for q in range(n_qubits - 1)]


#: Ansatz structures by name: ``pairs(n_qubits, layer)`` lists the CZ pairs of entangling layer ``layer``.
STRUCTURES = {"brickwall": _brickwall, "ladder": _ladder}

#: The structure used when none is named.
DEFAULT_STRUCTURE = "brickwall"


def check_structure(structure: str) -> str:
    """``structure`` if it names an ansatz of :data:`STRUCTURES`, else an :class:`InputError` listing them."""
    if structure not in STRUCTURES:
        raise InputError(f"unknown ansatz {structure!r}; use one of {', '.join(STRUCTURES)}")
    return structure


def cz_pairs(n_qubits: int, layer: int, structure: str = DEFAULT_STRUCTURE) -> list[tuple[int, int]]:
    """The CZ pairs of entangling layer ``layer`` (0-based) of the ``structure`` ansatz."""
    return STRUCTURES[check_structure(structure)](n_qubits, layer)


def n_parameters(n_qubits: int, layers: int) -> int:
    """Parameters of the ansatz: one R_y angle per qubit per layer, plus the closing layer."""
    return n_qubits * (layers + 1)


def initial_parameters(n_qubits: int, layers: int, seed: int) -> np.ndarray:
    """Seeded starting angles, uniform in ``[0, 2 pi)``."""
    return np.random.default_rng(seed).uniform(0.0, 2 * np.pi, n_parameters(n_qubits, layers))


def ansatz_circuit(n_qubits: int, layers: int, structure: str = DEFAULT_STRUCTURE):
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
            for q, p in cz_pairs(n_qubits, layer, structure):
                qc.cz(q, p)
    return qc


def _check_layers(n_qubits: int, layers: int) -> None:
    whole_number(layers, "layers", low=0)
    if n_qubits < 1:
        raise InputError(f"the ansatz needs at least one qubit, got {n_qubits}")


def _cz_signs(n_qubits: int, pairs: list[tuple[int, int]]) -> np.ndarray:
    """A CZ layer is diagonal: ``(-1)^(number of its pairs with both qubits 1)`` on each basis state."""
    idx = np.arange(1 << n_qubits)
    ones = np.zeros(len(idx), dtype=int)
    for q, p in pairs:
        ones += (idx >> q) & (idx >> p) & 1
    return np.where(ones & 1, -1.0, 1.0)


@dataclass
class RealAnsatz:
    """Statevector simulator of V(alpha) with adjoint-method gradients.

    Parameters
    ----------
    n_qubits, layers : int
        Size of the ansatz.
    structure : str
        Which CZ pairs each entangling layer links; see :data:`STRUCTURES`.
    """

    n_qubits: int
    layers: int
    structure: str = DEFAULT_STRUCTURE
    _cz: list[np.ndarray] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        _check_layers(self.n_qubits, self.layers)
        check_structure(self.structure)
        self._cz = [
            _cz_signs(self.n_qubits, cz_pairs(self.n_qubits, layer, self.structure)) for layer in range(self.layers)
        ]

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
        """The gate sequence as ``(kind, qubit or layer, parameter index)``; ``kind`` is "ry" or "cz"."""
        k = 0
        for layer in range(self.layers + 1):
            for q in range(self.n_qubits):
                yield "ry", q, k
                k += 1
            if layer < self.layers:
                yield "cz", layer, -1

    def state(self, alpha: np.ndarray) -> np.ndarray:
        """``V(alpha)|0>`` as a real vector of length ``2^n``."""
        alpha = self._check(alpha)
        v = np.zeros(1 << self.n_qubits)
        v[0] = 1.0
        for kind, q, k in self._gates():
            v = self._ry(v, q, alpha[k]) if kind == "ry" else v * self._cz[q]
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
                phi, lam = phi * self._cz[q], lam * self._cz[q]
                continue
            phi = self._ry(phi, q, -alpha[k])  # the state before this gate
            grad[k] = 0.5 * lam @ self._ry(phi, q, alpha[k] + np.pi)
            lam = self._ry(lam, q, -alpha[k])  # R_y(t)^T = R_y(-t)
        return grad

    def _check(self, alpha) -> np.ndarray:
        alpha = np.asarray(alpha, dtype=float)
        if alpha.shape != (self.n_parameters,):
            raise InputError(
                f"the ansatz of {self.n_qubits} qubits and {self.layers} layers takes "
                f"{self.n_parameters} parameters, got shape {alpha.shape}"
            )
        return alpha
