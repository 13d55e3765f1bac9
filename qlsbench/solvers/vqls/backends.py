"""Where a VQLS cost is evaluated: one meaning, three backends, chosen from :data:`BACKENDS`.

- ``exact``: the ansatz state in numpy and a sparse ``A v``; no circuits for
  ``A``; analytic gradients (adjoint method). The fast path for sweeps.
- ``circuits``: ``A`` as Pauli strings and the Hadamard-test circuits of
  :mod:`.circuits`, evaluated exactly on Aer's statevector method.
- ``shots``: the same circuits sampled, ``shots`` per circuit, optionally with
  a depolarising Aer noise model.
- ``shots-emulated``: the ``shots`` distribution drawn without circuits.
- ``device``: the circuits routed to a device and sampled with its calibrated
  noise, optionally mitigated (:class:`DeviceBackend`).

Every backend offers ``cost(alpha)``, ``fidelity(x, y)`` (for QN-SPSA),
``resources()`` and ``evaluations``; ``exact`` also ``gradient(alpha)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from qlsbench.errors import InputError
from qlsbench.pauli._walsh import popcount
from qlsbench.solvers.devices import (
    DENSITY_MATRIX_QUBITS,
    confusion,
    measured_qubits,
    richardson,
    unconfuse,
)
from qlsbench.solvers.vqls import circuits
from qlsbench.solvers.vqls.ansatz import DEFAULT_STRUCTURE, RealAnsatz, ansatz_circuit
from qlsbench.solvers.vqls.cost import cost_and_gradient
from qlsbench.solvers.vqls.problem import VQLSProblem


class ExactBackend:
    """Operator-level costs on the numpy statevector of the ansatz."""

    name = "exact"

    def __init__(
        self, problem: VQLSProblem, layers: int, kind: str, normalized: bool, *, ansatz: str = DEFAULT_STRUCTURE
    ):
        self.problem, self.kind, self.normalized = problem, kind, normalized
        self.ansatz = RealAnsatz(problem.n_qubits, layers, ansatz)
        self.evaluations = 0

    def cost(self, alpha: np.ndarray) -> float:
        self.evaluations += 1
        return cost_and_gradient(self.problem, self.ansatz.state(alpha), self.kind, self.normalized, False)[0]

    def gradient(self, alpha: np.ndarray) -> np.ndarray:
        _, dv = cost_and_gradient(self.problem, self.ansatz.state(alpha), self.kind, self.normalized, True)
        assert dv is not None  # asked for with gradient=True
        return self.ansatz.gradient(alpha, dv)

    def fidelity(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``|<V(x)|V(y)>|^2`` for batches of parameter vectors (the states are real)."""
        vx, vy = self.ansatz.states(x), self.ansatz.states(y)
        return np.einsum("ij,ij->i", vx, vy) ** 2

    def resources(self) -> dict:
        # No circuit runs here: circuit executions and shots do not apply (blank, not 0, on the leaderboard).
        return {}


class CircuitBackend(ExactBackend):
    """Hadamard-test circuits on Aer: exact expectation values (``shots=None``) or sampled."""

    #: Overlap batches sampled so far (:meth:`_next_overlap`); the device backend shares it without this
    #: class's ``__init__``.
    _overlaps = 0

    name = "circuits"

    def __init__(
        self,
        problem: VQLSProblem,
        layers: int,
        kind: str,
        normalized: bool,
        *,
        decomposition,
        shots: int | None = None,
        depolarizing: float = 0.0,
        seed: int = 0,
        ansatz: str = DEFAULT_STRUCTURE,
    ):
        from qiskit import transpile
        from qiskit_aer import AerSimulator

        from qlsbench.threads import thread_limit

        super().__init__(problem, layers, kind, normalized, ansatz=ansatz)
        self.shots, self.seed = shots, seed
        self.labels = decomposition.labels()
        self.coeffs = np.asarray(decomposition.coeffs)
        self.terms = circuits.terms(self.labels, self.coeffs, kind)
        # Aer 0.18's qubit truncation drops qubits these circuits need (a test with a CZ-linked qubit
        # read through a controlled X gave <Z> = 0 instead of 0.026): keep every qubit.
        # With noise, a statevector run draws one trajectory per shot; a density matrix (small n) gives
        # the exact noisy distribution once and samples it: 50x faster at n = 2 with 4000 shots.
        method = "density_matrix" if depolarizing and problem.n_qubits + 1 <= DENSITY_MATRIX_QUBITS else "statevector"
        # One cost evaluation is hundreds of small circuits: run them side by side on the job's threads
        # (`qlsbench --threads`, QLSBENCH_THREADS; the workflow passes each rule's), each on one thread.
        threads = thread_limit()
        self.simulator = AerSimulator(
            method=method,
            noise_model=_noise_model(depolarizing),
            enable_truncation=False,
            max_parallel_experiments=threads,
            max_parallel_threads=threads,
            max_parallel_shots=1,
        )
        v_circuit, u_circuit = ansatz_circuit(problem.n_qubits, layers, ansatz), problem.u_circuit()
        templates = [
            circuits.build(t, self.labels, layers, v_circuit, u_circuit, measure=shots is not None, structure=ansatz)
            for t in self.terms
        ]
        # Transpiled once; each evaluation only binds parameters.
        self.templates = transpile(templates, self.simulator, optimization_level=1, seed_transpiler=seed)
        self.executions = 0

    def _bind(self, alpha: np.ndarray) -> list:
        return [
            qc.assign_parameters({p: alpha[p.index] for p in qc.parameters}) if qc.num_parameters else qc
            for qc in self.templates
        ]

    def cost(self, alpha: np.ndarray) -> float:
        self.evaluations += 1
        return circuits.combine(
            self.parts(alpha), self.coeffs, self.labels, self.kind, self.problem.n_qubits, self.normalized
        )

    def parts(self, alpha: np.ndarray) -> dict:
        """The ancilla's ``<Z>`` of every Hadamard test at ``alpha``: exact, or estimated from the shots."""
        alpha = self.ansatz._check(alpha)
        bound = self._bind(alpha)
        run = self.simulator.run(
            bound, shots=self.shots or 1, seed_simulator=aer_seed(self.seed, COST, self.evaluations)
        )
        result = run.result()
        self.executions += len(bound)
        if self.shots is None:
            values = [float(result.data(i)["z"]) for i in range(len(bound))]
        else:
            values = []
            for i in range(len(bound)):
                counts = result.get_counts(i)
                values.append((counts.get("0", 0) - counts.get("1", 0)) / self.shots)
        return dict(zip(self.terms, values))

    def fidelity(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        if self.shots is None:
            return super().fidelity(x, y)
        return self._sampled_fidelity(x, y)

    def _next_overlap(self) -> int:
        """The number of this overlap batch in the solve: QN-SPSA estimates its metric several times between
        two cost evaluations, and each estimate must draw new shots (seeded by the evaluation count, as
        before, they were the same shots every time: the metric's noise frozen)."""
        self._overlaps += 1
        return self._overlaps

    def _sampled_fidelity(self, x, y) -> np.ndarray:
        """Compute-uncompute ``|<0|V(x)^dagger V(y)|0>|^2`` estimated from ``shots`` samples."""
        from qiskit import transpile

        n, layers = self.problem.n_qubits, self.ansatz.layers
        if not hasattr(self, "_overlap"):
            from qiskit.circuit import ParameterVector

            v = ansatz_circuit(n, layers, self.ansatz.structure)
            beta = ParameterVector("beta", v.num_parameters)  # V(beta)^dagger after V(alpha)
            qc = v.compose(v.inverse().assign_parameters(dict(zip(v.parameters, beta))))
            qc.measure_all()
            self._overlap = transpile(qc, self.simulator, optimization_level=1, seed_transpiler=self.seed)
        x, y = np.atleast_2d(x), np.atleast_2d(y)
        bound = [
            self._overlap.assign_parameters(
                {p: (yi if p.vector.name == "alpha" else xi)[p.index] for p in self._overlap.parameters}
            )
            for xi, yi in zip(x, y)
        ]
        result = self.simulator.run(
            bound, shots=self.shots, seed_simulator=aer_seed(self.seed, OVERLAP, self._next_overlap())
        ).result()
        self.executions += len(bound)
        zero = "0" * n
        return np.array([result.get_counts(i).get(zero, 0) / self.shots for i in range(len(bound))])

    def resources(self) -> dict:
        depth = max((qc.depth() for qc in self.templates), default=0)
        return {"circuit_executions": self.executions, "shots": self.shots or 0, "circuit_depth": int(depth)}


class EmulatedShotsBackend(ExactBackend):
    """The ``shots`` backend's distribution without circuits, for noiseless circuits.

    The ancilla of a noiseless Hadamard test reads 0 with probability
    ``p = (1 + <Z>)/2``, independently per shot, so its shot estimate
    ``(n0 - n1)/shots`` is ``2 k / shots - 1`` with ``k ~ Binomial(shots, p)``;
    the compute-uncompute circuit of QN-SPSA reads all zeros with
    ``p = |<V(x)|V(y)>|^2``. Both ``p`` come exactly from the ansatz state,
    so drawing the binomials gives the distribution Aer samples, at the cost
    of a few state-vector products. Noise breaks the argument: noisy runs
    stay on ``shots`` (Aer), which is also this backend's test oracle.
    """

    name = "shots-emulated"

    def __init__(
        self,
        problem: VQLSProblem,
        layers: int,
        kind: str,
        normalized: bool,
        *,
        decomposition,
        shots: int = 1000,
        depolarizing: float = 0.0,
        seed: int = 0,
        ansatz: str = DEFAULT_STRUCTURE,
    ):
        if depolarizing:
            raise InputError(
                "depolarizing noise needs backend='shots' (Aer): shots-emulated samples noiseless circuits only"
            )
        super().__init__(problem, layers, kind, normalized, ansatz=ansatz)
        self.shots, self.seed = int(shots), seed
        self.labels = decomposition.labels()
        self.coeffs = np.asarray(decomposition.coeffs)
        self.terms = circuits.terms(self.labels, self.coeffs, kind)
        self.executions = 0
        # One stream for the whole run: every draw is new, and the same seed gives the same run.
        self._rng = np.random.default_rng([seed, 7919])

    def exact_parts(self, alpha: np.ndarray) -> dict:
        """Each Hadamard test's exact ``<Z>``: the real (part 0) or imaginary part (1) of ``<0|W|0>``."""
        v = self.ansatz.state(alpha).astype(complex)
        pv = np.array([_apply_pauli(label, v) for label in self.labels])  # P_l |v>, one row per term
        if self.kind == "global":
            gram = pv.conj() @ pv.T  # <v|P_lp P_l|v> = <P_lp v|P_l v> at [lp, l]
            first = np.array([self.problem.u_dagger(row)[0] for row in pv])  # <0|U^dagger P_l V|0>
            table = {"beta": lambda t: gram[t.lp, t.l], "gamma": lambda t: first[t.l]}
        else:
            w = np.array([self.problem.u_dagger(row) for row in pv])  # U^dagger P_l |v>
            gram = w.conj() @ w.T  # U is unitary: the same beta values
            n = self.problem.n_qubits
            z = 1.0 - 2.0 * ((np.arange(1 << n)[None, :] >> np.arange(n)[:, None]) & 1)  # Z_j's diagonal, row j
            # <v|P_lp U Z_j U^dagger P_l|v> = <U^dagger P_lp v| Z_j |U^dagger P_l v> at [j, lp, l]
            delta = np.einsum("ax,jx,bx->jab", w.conj(), z, w)
            table = {"beta": lambda t: gram[t.lp, t.l], "delta": lambda t: delta[t.j, t.lp, t.l]}
        values = {}
        for t in self.terms:
            value = table[t.kind](t)
            values[t] = float(value.imag if t.part else value.real)
        return values

    def parts(self, alpha: np.ndarray) -> dict:
        """One shot estimate per Hadamard test, drawn from its exact outcome probability."""
        exact = self.exact_parts(alpha)
        p = np.clip((1.0 + np.array(list(exact.values()))) / 2.0, 0.0, 1.0)  # rounding can step past [0, 1]
        k = self._rng.binomial(self.shots, p)
        self.executions += len(exact)
        return dict(zip(exact, 2.0 * k / self.shots - 1.0))

    def cost(self, alpha: np.ndarray) -> float:
        self.evaluations += 1
        return circuits.combine(
            self.parts(alpha), self.coeffs, self.labels, self.kind, self.problem.n_qubits, self.normalized
        )

    def fidelity(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``|<V(x)|V(y)>|^2`` as the all-zeros frequency of ``shots`` compute-uncompute runs."""
        p = np.clip(super().fidelity(x, y), 0.0, 1.0)
        self.executions += len(p)
        return self._rng.binomial(self.shots, p) / self.shots

    def resources(self) -> dict:
        """Circuits and shots that Aer (or hardware) would have run; ``emulated`` says they were not."""
        return {"circuit_executions": self.executions, "shots": self.shots, "emulated": True}


class DeviceBackend(CircuitBackend):
    """The Hadamard tests routed to a device and run with its calibrated noise (:mod:`qlsbench.solvers.devices`).

    Every circuit (the cost's Hadamard tests, QN-SPSA's compute-uncompute
    overlaps, the readout calibration) is transpiled to the device's coupling
    map and basis at the stated optimisation level and seed, cut down to the
    physical qubits it touches and sampled with ``shots`` under the noise of
    those qubits, scaled by ``noise_scale`` (0: the same routed circuits,
    noiseless). ``mitigation``: ``readout`` inverts the measured qubit's
    confusion matrix (two calibration circuits per measured qubit, once per
    solve); ``zne`` folds every circuit to 3x and 5x its gates (G (G^dagger
    G)^k) and extrapolates ``<Z>`` to zero noise through the three points
    (Richardson); ``readout+zne`` does both. The extra circuits count in
    ``circuit_executions`` and ``mitigation_circuits``.

    Unfolded tests on a region of at most
    :data:`~qlsbench.solvers.heisenberg.HEISENBERG_QUBITS` qubits are split at
    their parameterised front (``split_fronts``, :mod:`qlsbench.solvers.heisenberg`):
    one noisy density matrix per distinct front, each test's probability of
    reading 0 from its fixed rest, and its shots drawn from that binomial, the
    distribution Aer samples the whole circuit's (measured: 13x to 14x faster
    per local-cost evaluation at 3 to 5 qubits, 2 layers). ``split_fronts=False``
    runs every whole circuit on Aer, the reference.
    """

    shots: int  # always sampled on a device (CircuitBackend's None means exact expectation values)

    name = "device"

    def __init__(
        self,
        problem: VQLSProblem,
        layers: int,
        kind: str,
        normalized: bool,
        *,
        decomposition,
        shots: int = 1000,
        seed: int = 0,
        ansatz: str = DEFAULT_STRUCTURE,
        device: str = "sherbrooke",
        noise_scale: float = 1.0,
        optimization_level: int = 1,
        mitigation: str = "none",
        split_fronts: bool = True,
    ):
        from qlsbench.solvers.devices import (
            ZNE_FACTORS,
            Device,
            check_mitigation,
            fold,
            noise_errors,
            region_target,
        )
        from qlsbench.solvers.heisenberg import HEISENBERG_QUBITS, split
        from qlsbench.threads import thread_limit

        ExactBackend.__init__(self, problem, layers, kind, normalized, ansatz=ansatz)
        check_mitigation(mitigation)
        self.shots, self.seed, self.mitigation = int(shots), seed, mitigation
        self.labels = decomposition.labels()
        self.coeffs = np.asarray(decomposition.coeffs)
        self.terms = circuits.terms(self.labels, self.coeffs, kind)
        self.device = Device(device, noise_scale, optimization_level, seed)
        self._threads = thread_limit()
        v_circuit, u_circuit = ansatz_circuit(problem.n_qubits, layers, ansatz), problem.u_circuit()
        templates = [
            circuits.build(t, self.labels, layers, v_circuit, u_circuit, measure=True, structure=ansatz)
            for t in self.terms
        ]
        self.templates, self.physical = self.device.place(templates)
        self._region = region_target(device, tuple(self.physical), 0.0)
        self.routed = self.device.cost(self.templates, self.physical)
        self.simulator = self.device.simulator(self.physical, self._threads)
        factors = ZNE_FACTORS if "zne" in mitigation else (1,)
        # Folded once, with the parameters still free; each evaluation binds every copy.
        self.batch = [fold(qc, f, self._region) for f in factors for qc in self.templates]
        self.factors = factors
        # The tests share a few parameterised fronts (qlsbench.solvers.heisenberg): one density matrix per front,
        # the rest of each test an observable built once. Folded circuits repeat the parameters throughout.
        self.split = None
        if split_fronts and factors == (1,) and len(self.physical) <= HEISENBERG_QUBITS:
            self.split = split(self.templates, *noise_errors(device, tuple(self.physical), self.device.noise_scale))
            self._front_simulator = self.device.simulator(self.physical, self._threads, density_matrix=True)
        self.executions = self.mitigation_circuits = 0
        self.gate_seconds = 0.0
        self._confusion: dict[int, tuple[float, float]] = {}

    def parts(self, alpha: np.ndarray) -> dict:
        """Each Hadamard test's ``<Z>`` sampled on the device, mitigated as asked."""
        alpha = self.ansatz._check(alpha)
        seed = aer_seed(self.seed, COST, self.evaluations)
        if self.split is not None:
            # The shots of each test: binomial with its probability of reading 0, as Aer samples them.
            p0 = np.clip(self.split.p0(self._front_simulator, alpha), 0.0, 1.0)  # rounding can step past [0, 1]
            zeros = np.random.default_rng(seed).binomial(self.shots, p0) / self.shots
        else:
            batch = [
                qc.assign_parameters({p: alpha[p.index] for p in qc.parameters}) if qc.num_parameters else qc
                for qc in self.batch
            ]
            result = self.simulator.run(batch, shots=self.shots, seed_simulator=seed).result()
            zeros = np.array([result.get_counts(i).get("0", 0) / self.shots for i in range(len(batch))])
        self.executions += len(self.batch)
        self.mitigation_circuits += len(self.batch) - len(self.templates)
        # A circuit folded to f times its gates runs about f times as long.
        self.gate_seconds += self.shots * sum(self.factors) * len(self.templates) * self.routed.seconds
        z = np.array([self._z(p0, qc) for p0, qc in zip(zeros, self.batch)])
        z = z.reshape(len(self.factors), -1)
        values = richardson(self.factors, z) if len(self.factors) > 1 else z[0]
        return dict(zip(self.terms, np.clip(values, -1.0, 1.0)))

    def _z(self, p0: float, circuit) -> float:
        """``<Z>`` of the measured qubit from the frequency ``p0`` of reading 0, its readout corrected when
        ``readout`` mitigation is on."""
        if "readout" in self.mitigation:
            p0 = unconfuse([p0, 1.0 - p0], [self._calibration(measured_qubits(circuit)[0], circuit.num_qubits)])[0]
        return 2.0 * p0 - 1.0

    def _calibration(self, qubit: int, width: int) -> tuple[float, float]:
        """The readout confusion of ``qubit`` (:func:`~qlsbench.solvers.devices.confusion`), once per solve."""
        if qubit not in self._confusion:
            self._confusion[qubit] = confusion(self.simulator, qubit, width, self.shots, self.seed + 104729)
            self.executions += 2
            self.mitigation_circuits += 2
        return self._confusion[qubit]

    def _sampled_fidelity(self, x, y) -> np.ndarray:
        """QN-SPSA's compute-uncompute overlaps, routed to the device and sampled with its noise."""
        if not hasattr(self, "_overlap"):
            from qiskit.circuit import ParameterVector

            n, layers = self.problem.n_qubits, self.ansatz.layers
            v = ansatz_circuit(n, layers, self.ansatz.structure)
            beta = ParameterVector("beta", v.num_parameters)
            qc = v.compose(v.inverse().assign_parameters(dict(zip(v.parameters, beta))))
            qc.measure_all()
            (self._overlap,), physical = self.device.place([qc])
            self._overlap_simulator = self.device.simulator(physical, self._threads)
            self._overlap_seconds = self.device.cost([self._overlap], physical).seconds
        x, y = np.atleast_2d(x), np.atleast_2d(y)
        bound = [
            self._overlap.assign_parameters(
                {p: (yi if p.vector.name == "alpha" else xi)[p.index] for p in self._overlap.parameters}
            )
            for xi, yi in zip(x, y)
        ]
        result = self._overlap_simulator.run(
            bound, shots=self.shots, seed_simulator=aer_seed(self.seed, OVERLAP, self._next_overlap())
        ).result()
        self.executions += len(bound)
        self.gate_seconds += self.shots * len(bound) * self._overlap_seconds
        zero = "0" * self.problem.n_qubits
        return np.array([result.get_counts(i).get(zero, 0) / self.shots for i in range(len(bound))])

    def resources(self) -> dict:
        """Circuits, shots, the device and the routed cost; gate time summed over every shot of every circuit
        (readout calibration aside)."""
        return {
            "circuit_executions": self.executions,
            "shots": self.shots,
            **self.device.describe(),
            "mitigation": self.mitigation,
            "mitigation_circuits": self.mitigation_circuits,
            "routed_depth": self.routed.depth,
            "two_qubit_gates": self.routed.two_qubit_gates,
            "device_qubits": self.routed.qubits,
            "device_seconds": self.gate_seconds,
        }


#: Streams of Aer seeds: the cost's Hadamard tests and QN-SPSA's overlap circuits.
COST, OVERLAP = 0, 1


def aer_seed(seed: int, stream: int, evaluation: int) -> int:
    """Aer's ``seed_simulator`` for one batch: drawn from ``(seed, stream, evaluation)``.

    Aer seeds experiment ``i`` of a batch with ``seed_simulator + i``. With ``seed + evaluation`` (as
    before), circuit ``i + 1`` of one evaluation drew the same random numbers as circuit ``i`` of the next,
    and the solve of seed ``r + 1`` the numbers of seed ``r`` one evaluation later: shot noise correlated
    across circuits, evaluations and the seeds whose spread a result reports. A hashed base makes such
    overlaps as unlikely as any two draws from 2^32.
    """
    return int(np.random.SeedSequence([int(seed), int(stream), int(evaluation)]).generate_state(1)[0])


def _apply_pauli(label: str, v: np.ndarray) -> np.ndarray:
    """``P v`` for a Pauli label in Qiskit order (last character is qubit 0; qubit q is bit q of the index).

    ``P = i^(number of Y) X^x Z^z`` with Z applied first (``Y = i X Z`` on each qubit).
    """
    x = z = ny = 0
    for q, ch in enumerate(reversed(label)):
        if ch in "XY":
            x |= 1 << q
        if ch in "ZY":
            z |= 1 << q
        ny += ch == "Y"
    index = np.arange(len(v))
    signs = 1.0 - 2.0 * (popcount(index & z) & 1)
    out = np.empty_like(v)
    out[index ^ x] = (1j**ny) * signs * v
    return out


def _noise_model(depolarizing: float):
    """Depolarising noise on every 1- and 2-qubit gate, or None."""
    if not depolarizing:
        return None
    from qiskit_aer.noise import NoiseModel, depolarizing_error

    model = NoiseModel()
    model.add_all_qubit_quantum_error(depolarizing_error(depolarizing, 1), ["ry", "h", "sdg", "sx", "x", "rz"])
    model.add_all_qubit_quantum_error(depolarizing_error(depolarizing, 2), ["cx", "cz", "cy", "cry"])
    return model


#: Backends by name. ``circuits`` is the shot-free case of the circuit backend (it takes no ``shots``). Each takes
#: exactly its own keywords: a misspelt or foreign one is a ``TypeError`` naming it, never dropped.
BACKENDS: dict[str, Callable[..., Any]] = {
    "exact": ExactBackend,
    "circuits": lambda *a, **k: CircuitBackend(*a, shots=None, **k),
    "shots": CircuitBackend,
    "shots-emulated": EmulatedShotsBackend,
    "device": DeviceBackend,
}
