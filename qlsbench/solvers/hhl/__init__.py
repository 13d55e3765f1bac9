"""HHL (Harrow, Hassidim, Lloyd 2009) on Qiskit Aer, with classical iterative refinement.

``registry.get("hhl", clock=8, backend="exact" | "shots" | "shots-emulated" | "device",
evolution="exact" | "trotter", refine=0)``.

The matrix is scaled to spectral norm 1 (``A / sigma_max``), so its eigenvalues
lie in ``[-1, 1]``; a non-Hermitian ``A`` is replaced by its Hermitian dilation
``[[0, A], [A^dagger, 0]]`` on one more qubit, solved for ``(b, 0)``, whose
solution is ``(0, x)`` (``resources["dilation"]`` says so). The circuit is
:func:`~qlsbench.solvers.hhl.circuit.build`'s; its read-out is the system's
amplitudes in the post-selected branch (ancilla 1, clock 0), with the scale
fitted by least squares as for the variational solvers.

Backends: ``exact`` runs the circuit on Aer's statevector method and reads the
post-selected amplitudes; ``shots`` measures every qubit ``shots`` times on
Aer, keeps the runs that post-select, and reads the magnitude of each
amplitude from its frequency; ``shots-emulated`` draws the same counts from a
multinomial of the exact probabilities (the distribution Aer samples, without
the circuit run). Shots estimate magnitudes only: the signs and phases of the
amplitudes would take further circuits (tomography), so the shot backends take
them from the statevector and say so in ``message``; what they measure is
what sampling costs on the magnitudes and how often post-selection succeeds.
``device`` samples the measured circuit on a device's calibrated noise
(:mod:`qlsbench.solvers.devices`: ``device``, ``noise_scale``,
``optimization_level``): the circuit is decomposed into CX and U gates, routed
inside one region of the chip and run there; the magnitudes then carry the
device's errors (the signs still come from the ideal statevector).
``mitigation`` (``device`` only): ``readout`` inverts every measured qubit's
confusion matrix on the measured distribution (tensored, two calibration
circuits per qubit, once per solve); ``zne`` runs the circuit folded to 3x and
5x its gates and extrapolates each outcome's probability to zero noise
(Richardson); ``readout+zne`` both. The extra circuits count in
``circuit_executions`` and ``mitigation_circuits``.

``refine = k`` adds k rounds of classical iterative refinement: with ``x`` the
current answer, HHL solves ``A d = r`` for the residual ``r = b - A x`` (scaled
to norm 1) and ``x += d``; ``history`` holds the relative residual after each
round. This is how a low-precision quantum solver reaches a high-accuracy bar,
and the comparison peers publish (plain QPE-based HHL against HHL with
refinement).

``status`` is ``converged`` when the final relative residual is at most
``rtol``, else ``max_iter`` (the clock and the refinement rounds were the
budget).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from qlsbench.problems import LinearSystem, state_fidelity
from qlsbench.solvers.base import BaseSolver, SolveResult, Status
from qlsbench.solvers.devices import DEFAULT_DEVICE
from qlsbench.solvers.hhl import circuit as hhl_circuit
from qlsbench.solvers.options import HHLOptions
from qlsbench.solvers.variational import least_squares_readout, qubits_of

BACKENDS = ("exact", "shots", "shots-emulated", "device")
EVOLUTIONS = ("exact", "trotter")
#: How the inversion constant C is chosen (:func:`~qlsbench.solvers.hhl.circuit.inversion_angles`).
INVERSIONS = ("auto", "grid")
#: ``inversion="auto"``: C is the smallest |lambda_k| whose clock state holds at least this share of the
#: probability after phase estimation on the right-hand side (one more circuit per solve). It raises the
#: post-selection probability from ~4^-m to ~1/kappa^2, but inverts as if at C any eigenvalue whose share of b is
#: below it, and such a component can carry much of x (1/lambda): on the 2-qubit Ising system with b = |+>^2 the
#: fidelity falls from 1.000 to 0.95. Hence "grid" (exact inversion of every clock state) is the default.
CLOCK_SHARE = 1e-3
#: Total qubits (system, dilation, clock, ancilla) a statevector run may use here.
MAX_TOTAL_QUBITS = 24
#: Gate counts come from transpiling the circuit, whose dense controlled unitaries Qiskit synthesises: quick up to
#: this many system qubits (with the dilation), minutes above.
MAX_TRANSPILED_SYSTEM_QUBITS = 3


@dataclass
class HHL(HHLOptions, BaseSolver):
    """HHL on Aer circuits with classical iterative refinement; options in :class:`HHLOptions`, the method in
    the module docstring."""

    name = "hhl"

    def _check(self) -> None:
        """What needs several options (each one alone is checked by its record, :class:`HHLOptions`; the
        record's bounds on ``time`` keep eigenvalues in [-1, 1] readable, on ``refine`` the rounds finite; an
        option of another backend, such as ``noise_scale`` on ``exact``, is refused there too)."""

    @property
    def _time(self) -> float:
        return hhl_circuit.default_time(self.clock) if self.time is None else float(self.time)

    def _solve(self, system: LinearSystem, seed: int) -> SolveResult:
        n = qubits_of(system, "HHL")
        A = system.A.toarray()
        hermitian = _is_hermitian(A)
        H = A if hermitian else np.block([[np.zeros_like(A), A], [A.conj().T, np.zeros_like(A)]])
        n_h = n if hermitian else n + 1
        total = n_h + self.clock + 1
        resources = {
            "n_qubits": n,
            "clock_qubits": self.clock,
            "total_qubits": total,
            "dilation": not hermitian,
            "backend": self.backend,
            "evolution": self.evolution,
            "time": self._time,
            "shots": 0 if self.backend == "exact" else self.shots,
        }
        if total > MAX_TOTAL_QUBITS:
            return SolveResult(
                None,
                Status.SKIPPED,
                f"hhl: {total} qubits (system {n_h}, clock {self.clock}, ancilla 1) exceed {MAX_TOTAL_QUBITS}",
                resources=resources,
            )
        scale = float(np.linalg.norm(H, 2))
        if scale == 0 or not np.any(system.b):
            return SolveResult(None, Status.SKIPPED, "hhl: A or b is zero", resources=resources)
        run = _Runner(self, self._phase_estimation(H / scale, resources), n_h, seed)
        start = time.perf_counter()
        x = self._hhl_step(system, run, system.b, hermitian)
        history = [_relative_residual(system, x)]
        for _ in range(self.refine):
            r = system.b - system.A @ x
            if not np.any(r) or _stagnated(history):
                break
            x = x + self._hhl_step(system, run, r, hermitian)
            history.append(_relative_residual(system, x))
        resources.update(
            run.resources(), refine_rounds=len(history) - 1, seconds_in_circuits=time.perf_counter() - start
        )
        if n_h <= MAX_TRANSPILED_SYSTEM_QUBITS and self.backend != "device":  # the device run counted its own
            resources.update(
                _gate_counts(
                    run.circuit_for(system.b, hermitian, self._textbook(H / scale)),
                    run.executions,
                    0 if self.backend == "exact" else self.shots,
                    self.device if self.backend == "device" else DEFAULT_DEVICE,
                )
            )
        status = Status.CONVERGED if history[-1] <= self.rtol else Status.MAX_ITER
        message = (
            f"relative residual {history[-1]:.2e} {'<=' if status is Status.CONVERGED else '>'} rtol "
            f"{self.rtol:g} after {len(history) - 1} refinement rounds"
        )
        if len(history) - 1 < self.refine and _stagnated(history):
            message += f" (stopped: the last two rounds took the residual no lower than {STALL:g}x)"
        if self.backend != "exact":
            message += "; amplitude magnitudes from shots, signs and phases from the statevector"
        return SolveResult(x, status, message, iterations=len(history), history=history, resources=resources)

    def _phase_estimation(self, H: np.ndarray, resources: dict) -> hhl_circuit.PhaseEstimation:
        """The phase estimation the solves run: exact evolution in ``H``'s eigenbasis, Trotter as controlled powers."""
        if self.evolution == "exact":
            w, V = np.linalg.eigh(H)
            return hhl_circuit.PhaseEstimation.in_eigenbasis(w, V, self._time, self.clock)
        return hhl_circuit.PhaseEstimation.from_powers(self._trotter_powers(H, resources), _qubits(H))

    def circuit(self, system: LinearSystem):
        """The circuit one solve of ``system`` runs (no refinement round): ``|b>`` prepared, phase estimation as
        controlled powers, inversion, uncomputation, every qubit measured; what ``qlsbench export --format qasm``
        writes."""
        n = qubits_of(system, "HHL")
        A = system.A.toarray()
        hermitian = _is_hermitian(A)
        H = A if hermitian else np.block([[np.zeros_like(A), A], [A.conj().T, np.zeros_like(A)]])
        H = H / float(np.linalg.norm(H, 2))
        run = _Runner(self, self._phase_estimation(H, {}), n if hermitian else n + 1, 0)
        b = _rhs_state(system.b, hermitian)
        return hhl_circuit.build(b, self._textbook(H), run._angles(b), measure=True)

    def _textbook(self, H: np.ndarray) -> hhl_circuit.PhaseEstimation:
        """The controlled-power form whose transpiled gates are counted."""
        if self.evolution == "exact":
            return hhl_circuit.PhaseEstimation.from_powers(
                hhl_circuit.exact_powers(H, self._time, self.clock), _qubits(H)
            )
        return hhl_circuit.PhaseEstimation.from_powers(self._trotter_powers(H, {}), _qubits(H))

    def _trotter_powers(self, H: np.ndarray, resources: dict) -> list[np.ndarray]:
        from qlsbench.pauli import decompose

        terms = decompose(H)
        keep = np.abs(terms.coeffs) > 1e-14 * float(np.abs(terms.coeffs).max(initial=0.0))
        resources.update(pauli_terms=int(keep.sum()), trotter_steps=self.trotter_steps)
        from qlsbench.pauli import PauliDecomposition

        kept = PauliDecomposition(terms.x_int[keep], terms.z_int[keep], np.real(terms.coeffs[keep]), terms.n_qubits)
        return hhl_circuit.trotter_powers(kept, self._time, self.clock, self.trotter_steps)

    def _hhl_step(self, system: LinearSystem, run: _Runner, rhs: np.ndarray, hermitian: bool) -> np.ndarray:
        """One HHL solve of ``A d = rhs``: the read-out direction, scaled by least squares against ``rhs``."""
        v = run.solve(_rhs_state(rhs, hermitian))
        if not hermitian:
            v = v[len(rhs) :]  # the dilation's solution is (0, x)
        return least_squares_readout(LinearSystem(system.A, np.asarray(rhs)), v)


#: Most refinement rounds a solve may ask for (each is a whole HHL run; the residual falls geometrically or not
#: at all, so more rounds than this only run on after it has stopped falling).
MAX_REFINE = 100
#: Refinement stops when two rounds together did not take the residual below this share of where they started.
STALL = 0.9


def depolarised_fidelity(system: LinearSystem) -> float:
    """The most the ``device`` read-out scores when noise has erased the circuit: every post-selected outcome
    equally likely, so every magnitude equal, with the signs of ``x_ref``.

    The read-out takes its signs from the ideal statevector, which at best carry ``x_ref``'s, so pure noise
    scores at most ``(sum |x_i|)^2 / (N ||x||^2)``; a noisy HHL fidelity at or below it may have measured
    nothing. A non-Hermitian ``A``'s read-out is the ``x`` block of its dilation, so the same holds. NaN
    without a reference.
    """
    ref = system.x_ref
    if ref is None or not np.all(np.isfinite(ref)) or not np.any(ref):
        return float("nan")
    return state_fidelity(np.exp(1j * np.angle(ref)), ref)  # every magnitude 1, the signs (phases) of x_ref


def _is_hermitian(A: np.ndarray) -> bool:
    """Whether dense ``A`` equals its conjugate transpose to rounding (else HHL solves its dilation)."""
    return bool(np.allclose(A, A.conj().T, rtol=0, atol=1e-14 * np.abs(A).max(initial=1.0)))


def _stagnated(history: list[float]) -> bool:
    """Whether the last two refinement rounds left the relative residual where it was (within :data:`STALL`)."""
    return len(history) >= 3 and not history[-1] < STALL * history[-3]


def _qubits(H: np.ndarray) -> int:
    return int(np.log2(H.shape[0]))


def _rhs_state(rhs: np.ndarray, hermitian: bool) -> np.ndarray:
    b = np.asarray(rhs, dtype=complex)
    if not hermitian:
        b = np.concatenate([b, np.zeros_like(b)])
    return b / np.linalg.norm(b)


def _relative_residual(system: LinearSystem, x: np.ndarray) -> float:
    return float(np.linalg.norm(system.A @ x - system.b) / np.linalg.norm(system.b))


class _Runner:
    """Runs HHL circuits on one backend and keeps what they cost."""

    def __init__(self, solver: HHL, qpe: hhl_circuit.PhaseEstimation, n: int, seed: int) -> None:
        self.solver, self.qpe, self.n, self.m = solver, qpe, n, solver.clock
        self.rng = np.random.default_rng(seed)
        self.executions, self.mitigation_circuits, self.device_seconds = 0, 0, 0.0
        self.postselection: list[float] = []
        self.constants: list[float] = []
        self._confusion: dict[tuple, tuple[float, float]] = {}  # by (region, measured qubit)

    def circuit_for(self, b, hermitian: bool, qpe: hhl_circuit.PhaseEstimation):
        b = _rhs_state(b, hermitian)
        return hhl_circuit.build(b, qpe, self._angles(b), save=False)

    def _angles(self, b: np.ndarray) -> np.ndarray:
        """Inversion angles for ``b``; with ``inversion="auto"`` C comes from a phase-estimation run on ``b``."""
        t = self.solver._time
        if self.solver.inversion == "grid":
            angles, C = hhl_circuit.inversion_angles(self.m, t)
        else:
            state = np.asarray(
                _run(hhl_circuit.phase_estimation(b, self.qpe), method="statevector").result().get_statevector()
            )
            self.executions += 1
            clock = (np.abs(state.reshape(2**self.m, 2**self.n)) ** 2).sum(axis=1)
            if self.solver.backend != "exact":  # as many samples of the clock as the solve has shots
                clock = self.rng.multinomial(self.solver.shots, clock / clock.sum()) / self.solver.shots
            lam = np.abs(hhl_circuit.clock_eigenvalues(self.m, t))
            held = (clock >= CLOCK_SHARE) & (lam > 0)
            angles, C = hhl_circuit.inversion_angles(self.m, t, lam[held].min() if held.any() else None)
        self.constants.append(C)
        return angles

    def solve(self, b: np.ndarray) -> np.ndarray:
        """The post-selected system amplitudes for the normalised ``b`` (magnitudes from shots where asked)."""
        self.angles = self._angles(b)
        state = _run(hhl_circuit.build(b, self.qpe, self.angles), method="statevector").result()
        amplitudes = hhl_circuit.postselected(np.asarray(state.get_statevector()), self.n, self.m)
        probability = float(np.vdot(amplitudes, amplitudes).real)
        self.executions += 1
        if self.solver.backend == "exact":
            self.postselection.append(probability)
            return amplitudes
        counts = self._counts(b, amplitudes)
        kept = counts.sum()
        self.postselection.append(kept / self.solver.shots)
        if kept == 0:
            return np.zeros_like(amplitudes)
        return np.sqrt(counts / kept) * np.exp(1j * np.angle(amplitudes))

    def _counts(self, b: np.ndarray, amplitudes: np.ndarray) -> np.ndarray:
        """Post-selected counts per system basis state, from Aer's shots or the same multinomial."""
        shots, size = self.solver.shots, 2 ** (self.n + self.m + 1)
        if self.solver.backend == "shots-emulated":
            p = np.zeros(size)
            probabilities = np.abs(amplitudes) ** 2
            p[: len(probabilities)] = probabilities  # the post-selected outcomes, ...
            p[-1] = max(0.0, 1.0 - probabilities.sum())  # ... and every other outcome lumped together
            draws = self.rng.multinomial(shots, p / p.sum())
            return draws[: len(amplitudes)].astype(float)
        circuit = hhl_circuit.build(b, self.qpe, self.angles, measure=True)
        seed = int(self.rng.integers(2**31))
        if self.solver.backend == "device":
            counts = self._on_device(circuit, shots, seed)
        else:
            counts = _run(circuit, shots=shots, seed_simulator=seed).result().get_counts()
        out = np.zeros(len(amplitudes))
        for key, count in counts.items():
            outcome = int(key, 2)
            ancilla, clock, index = outcome >> (self.n + self.m), (outcome >> self.n) % 2**self.m, outcome % 2**self.n
            if ancilla == 1 and clock == 0:
                out[index] += count
        return out

    def _on_device(self, circuit, shots: int, seed: int) -> dict[str, float]:
        """``circuit`` in CX and U gates, placed on a region of the device and sampled with its noise: counts
        per outcome, mitigated as asked (then expected counts, not whole numbers)."""
        from qiskit import transpile

        from qlsbench.solvers.devices import (
            ZNE_FACTORS,
            Device,
            duration,
            fold,
            region_target,
            richardson,
        )

        solver = self.solver
        device = Device(solver.device, solver.noise_scale, solver.optimization_level, seed=0)
        logical = transpile(circuit, basis_gates=["cx", "u"], optimization_level=1, seed_transpiler=0)
        (placed,), region = device.place([logical])
        # What runs is what is counted, at every size: the measured circuit, logical and as placed on the chip
        # (the textbook circuit's counts of _gate_counts stop at MAX_TRANSPILED_SYSTEM_QUBITS).
        routed = device.cost([placed], region)
        self.device = device.describe() | {
            "device_qubits": len(region),
            "mitigation": solver.mitigation,
            "circuit_depth": int(logical.depth()),
            "logical_depth": int(logical.depth()),
            "logical_two_qubit_gates": int(logical.count_ops().get("cx", 0)),
            "routed_depth": routed.depth,
            "two_qubit_gates": routed.two_qubit_gates,
        }
        simulator = device.simulator(region)
        factors = ZNE_FACTORS if "zne" in solver.mitigation else (1,)
        target = region_target(solver.device, tuple(region), 0.0)
        batch = [fold(placed, f, target) for f in factors]
        self.device_seconds += shots * sum(duration(qc, target) for qc in batch)  # the folded copies run too
        self.device["device_seconds"] = self.device_seconds
        result = simulator.run(batch, shots=shots, seed_simulator=seed).result()
        self.executions += len(batch) - 1
        self.mitigation_circuits += len(batch) - 1
        k = placed.num_clbits
        p = np.array([_distribution(result.get_counts(i), k) / shots for i in range(len(batch))])
        if "readout" in solver.mitigation:
            p = self._unconfused(p, placed, simulator, tuple(region), shots)
        if len(factors) > 1:
            p = np.clip(richardson(factors, p), 0.0, None)
            p = p / p.sum() if p.sum() > 0 else p
        else:
            p = p[0]
        return {format(i, f"0{k}b"): shots * float(p[i]) for i in np.flatnonzero(p)}

    def _unconfused(self, p: np.ndarray, placed, simulator, region: tuple, shots: int) -> np.ndarray:
        """Each distribution in ``p`` with every measured qubit's readout error inverted; the qubits' confusion
        measured once per region and solve."""
        from qlsbench.solvers.devices import confusion, measured_qubits, unconfuse

        measured = measured_qubits(placed)
        confusions = []
        for bit in range(placed.num_clbits):
            key = (region, measured[bit])
            if key not in self._confusion:
                self._confusion[key] = confusion(
                    simulator, measured[bit], placed.num_qubits, shots, int(self.rng.integers(2**31))
                )
                self.executions += 2
                self.mitigation_circuits += 2
            confusions.append(self._confusion[key])
        return np.array([unconfuse(row, confusions) for row in p])

    def resources(self) -> dict:
        return {
            **getattr(self, "device", {}),
            "postselection_probability": float(np.mean(self.postselection)) if self.postselection else 0.0,
            "inversion_constant": self.constants[0] if self.constants else float("nan"),
            "postselection_per_round": self.postselection,
            "circuit_executions": self.executions,
            **({"mitigation_circuits": self.mitigation_circuits} if self.solver.backend == "device" else {}),
            "cost_evaluations": self.executions,
        }


def _run(circuit, shots: int | None = None, **options):
    """Run on Aer, which applies the dense controlled unitaries as they are; state preparation, the QFT and the
    uniformly controlled rotation are first decomposed into gates it knows (level 0: nothing else is changed)."""
    from qiskit import transpile
    from qiskit_aer import AerSimulator

    simulator = AerSimulator(**options)
    return simulator.run(transpile(circuit, simulator, optimization_level=0), shots=shots)


def _distribution(counts: dict[str, int], bits: int) -> np.ndarray:
    """Counts per outcome as a vector over the ``2**bits`` outcomes (index = the outcome's bits)."""
    out = np.zeros(2**bits)
    for key, count in counts.items():
        out[int(key.replace(" ", ""), 2)] = count
    return out


def _gate_counts(circuit, executions: int, shots: int, device_name: str) -> dict:
    """Logical depth and CX count (CX and single-qubit U basis), and the circuit routed to the default device:
    its depth, two-qubit gates and gate time, times every shot of every execution (``device_seconds``)."""
    from qiskit import transpile

    from qlsbench.solvers.devices import Device

    compiled = transpile(circuit, basis_gates=["cx", "u"], optimization_level=1, seed_transpiler=0)
    ops = compiled.count_ops()
    device = Device(device_name, seed=0)
    routed = device.cost(device.route([compiled]))
    return {
        "circuit_depth": int(compiled.depth()),
        "logical_depth": int(compiled.depth()),
        "logical_two_qubit_gates": int(ops.get("cx", 0)),
        "device": device_name,
        "routed_depth": routed.depth,
        "two_qubit_gates": routed.two_qubit_gates,
        "device_qubits": routed.qubits,
        "device_seconds": executions * max(shots, 1) * routed.seconds,
    }


__all__ = ["BACKENDS", "EVOLUTIONS", "HHL", "depolarised_fidelity"]
