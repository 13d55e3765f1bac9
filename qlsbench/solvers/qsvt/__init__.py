"""QSVT (Gilyen, Su, Low, Wiebe 2019) on Aer circuits: the system's LCU block encoding inverted by an odd polynomial.

``registry.get("qsvt", epsilon=1e-2, degree=None, backend="exact" | "shots")``.

1. ``A`` in Pauli form (:func:`qlsbench.pauli._lcu.lcu_form`, terms below
   ``pauli_rtol`` of the largest dropped), block-encoded as ``A / alpha`` by
   PREPARE and SELECT on ``a = ceil(log2 L)`` selection qubits
   (:func:`~qlsbench.solvers.qsvt.circuit.block_encoding`).
2. ``kappa_eff = alpha / sigma_min(A)`` from the matrix itself (a dense SVD;
   stored condition numbers are not used): ``1 / kappa_eff`` is the smallest
   singular value of ``A / alpha``.
3. Childs-Kothari-Somma's odd polynomial for ``1/x`` on ``[1/kappa_eff, 1]``
   to ``epsilon``, of the degree :func:`~qlsbench.pauli._estimates.qsvt_degree`
   predicts (or ``degree``), scaled below 1, and its phases from ``pyqsp``
   (:mod:`~qlsbench.solvers.qsvt.polynomial`).
4. The QSVT circuit on system, selection register and one signal qubit
   (:func:`~qlsbench.solvers.qsvt.circuit.qsvt`), run on Aer: ``exact`` reads
   the statevector; ``shots`` measures every qubit ``shots`` times (seeded)
   and keeps the runs with register and signal 0, whose frequencies give the
   amplitudes' magnitudes; their signs come from the statevector (a device
   would need further circuits for them), as for HHL. The kept share is the
   success probability.
5. The post-selected state is ``A^-1 b`` up to scale; the scale is fitted by
   least squares as for the other circuit solvers.

Amplitude amplification is **counted, not simulated**: with success
probability ``p`` it takes ``k = floor(pi / (4 theta))`` rounds, ``theta =
arcsin sqrt(p)``, each two more runs of the circuit, so ``degree (2k + 1)``
block-encoding queries (``queries_amplified``).

With ``find_degree`` the solve also bisects the polynomial family
(:func:`~qlsbench.solvers.qsvt.polynomial.cks_polynomial`, one member per odd
degree) for the smallest degree whose exact post-selected state is within
``epsilon`` of the normalised reference solution (``||x_hat - x_ref|| <=
epsilon``, both unit vectors, the global sign aligned): the degree that bar
needs, beside the one the estimate predicts. That bar is for the system's own
``b``; ``spectral_degree`` is the smallest degree whose polynomial inverts every
singular value of ``A / alpha`` to relative error ``epsilon`` (computed from
the spectrum, no circuit): what every right-hand side needs.

Size: at most :data:`MAX_SYSTEM_QUBITS` system qubits and
:data:`MAX_TOTAL_QUBITS` in all, and a degree of at most ``max_degree``;
larger solves are ``skipped`` with the reason in one line.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from qlsbench.errors import InputError
from qlsbench.problems import LinearSystem
from qlsbench.solvers.base import BaseSolver, SolveResult, Status
from qlsbench.solvers.options import QSVT_BACKENDS, QSVTOptions
from qlsbench.solvers.qsvt import circuit as qsvt_circuit
from qlsbench.solvers.qsvt import polynomial
from qlsbench.solvers.variational import least_squares_readout, qubits_of

BACKENDS = QSVT_BACKENDS
#: Most system qubits: above 8 the Pauli forms of the board's systems have thousands of terms.
MAX_SYSTEM_QUBITS = 8
#: Most qubits in all (system, selection register, signal): the circuit repeats ``degree`` times on a statevector
#: of ``2^total`` amplitudes, with one multi-controlled gate per Pauli letter of every term.
MAX_TOTAL_QUBITS = 14


@dataclass
class QSVT(QSVTOptions, BaseSolver):
    """QSVT on Aer circuits; options in :class:`QSVTOptions`, the method in the module docstring."""

    name = "qsvt"

    def _check(self) -> None:
        """What needs several options (each alone is checked by :class:`QSVTOptions`)."""
        if self.degree is not None and self.degree % 2 == 0:
            raise InputError(f"qsvt: degree must be odd (the polynomial for 1/x is odd), got {self.degree}")
        if self.degree is not None and self.degree > self.max_degree:
            raise InputError(f"qsvt: degree {self.degree} is above max_degree {self.max_degree}")

    def _solve(self, system: LinearSystem, seed: int) -> SolveResult:
        n = qubits_of(system, "QSVT")
        resources = {
            "n_qubits": n,
            "backend": self.backend,
            "shots": 0 if self.backend == "exact" else self.shots,
            "epsilon": self.epsilon,
        }
        if n > MAX_SYSTEM_QUBITS:
            return _skipped(f"{n} system qubits exceed {MAX_SYSTEM_QUBITS}", resources)
        A = system.A.toarray()
        terms = _kept_terms(A, self.pauli_rtol)
        a = qsvt_circuit.select_qubits(len(terms))
        if n + a + 1 > MAX_TOTAL_QUBITS:  # said before the circuit is built: thousands of terms take a minute
            resources.update(pauli_terms=len(terms), select_qubits=a, total_qubits=n + a + 1)
            return _skipped(
                f"{n + a + 1} qubits (system {n}, selection {a} for {len(terms)} Pauli terms, "
                f"signal 1) exceed {MAX_TOTAL_QUBITS}",
                resources,
            )
        problem = _Problem.of(A, system.b, self.pauli_rtol, terms)
        resources.update(problem.resources())
        if not np.isfinite(problem.kappa_eff):
            return _skipped("A is singular (sigma_min = 0)", resources)
        predicted = _predicted_degree(problem.kappa_eff, self.epsilon)
        degree = predicted if self.degree is None else self.degree
        resources.update(predicted_degree=predicted, degree=degree)
        if degree > self.max_degree:
            return _skipped(
                f"degree {degree} (kappa_eff {problem.kappa_eff:.3g}, epsilon {self.epsilon:g}) "
                f"exceeds max_degree {self.max_degree}",
                resources,
            )
        run = problem.run(degree, self.epsilon)
        resources.update(run.resources())
        x_state = run.state
        if self.backend == "shots":
            x_state, kept = _sampled(run, self.shots, seed)
            resources.update(success_probability_measured=kept / self.shots, shots_kept=int(kept))
            if kept == 0:
                return SolveResult(
                    None,
                    Status.ERROR,
                    f"qsvt: none of {self.shots} shots post-selected "
                    f"(success probability {run.success_probability:.2e})",
                    resources=resources,
                )
        resources.update(
            circuit_executions=1,
            cost_evaluations=1,
            queries=degree,
            **_amplification(run.success_probability, degree),
            **_gate_counts(problem, run),
        )
        if self.find_degree:
            resources.update(
                problem.needed_degree(self.epsilon, predicted, self.max_degree),
                **problem.spectral_degree(self.epsilon, predicted),
            )
        x = least_squares_readout(system, x_state)
        residual = float(np.linalg.norm(system.A @ x - system.b) / np.linalg.norm(system.b))
        status = Status.CONVERGED if residual <= self.rtol else Status.MAX_ITER
        message = (
            f"degree {degree} (predicted {predicted}), kappa_eff {problem.kappa_eff:.3g}, success probability "
            f"{run.success_probability:.3g}; relative residual {residual:.2e} "
            f"{'<=' if status is Status.CONVERGED else '>'} rtol {self.rtol:g}"
        )
        if self.backend == "shots":
            message += "; amplitude magnitudes from shots, signs from the statevector"
        return SolveResult(x, status, message, iterations=1, history=[residual], resources=resources)

    def circuit(self, system: LinearSystem, measure: bool = True):
        """The QSVT circuit one solve of ``system`` runs (every qubit measured by default): what ``qlsbench export
        --format qasm`` writes."""
        n = qubits_of(system, "QSVT")
        problem = _Problem.of(system.A.toarray(), system.b, self.pauli_rtol)
        degree = _predicted_degree(problem.kappa_eff, self.epsilon) if self.degree is None else self.degree
        if degree > self.max_degree:
            raise InputError(f"qsvt: degree {degree} exceeds max_degree {self.max_degree}")
        phases = polynomial.qsp_phases(
            polynomial.cks_polynomial(problem.kappa_eff, self.epsilon, degree)["coefficients"]
        )
        return qsvt_circuit.qsvt(problem.b, problem.block, n, phases, measure=measure)


def _kept_terms(A: np.ndarray, rtol: float):
    """``A``'s Pauli terms whose coefficient is above ``rtol`` times the largest (the terms ``qlsbench resources``
    counts at that tolerance)."""
    from qlsbench.pauli._lcu import lcu_form, truncated

    return truncated(lcu_form(A), rtol)


def _skipped(why: str, resources: dict) -> SolveResult:
    return SolveResult(None, Status.SKIPPED, f"qsvt: {why}", resources=resources)


def _predicted_degree(kappa_eff: float, epsilon: float) -> int:
    from qlsbench.pauli._estimates import qsvt_degree

    return qsvt_degree(kappa_eff, epsilon)


@dataclass
class _Run:
    """One QSVT circuit run exactly: its polynomial, phases, circuit and post-selected state."""

    poly: dict
    phases: np.ndarray
    circuit: Any  # a qiskit QuantumCircuit (qiskit is imported where it is used)
    state: np.ndarray
    phase_seconds: float
    circuit_seconds: float

    @property
    def success_probability(self) -> float:
        return float(np.vdot(self.state, self.state).real)

    def resources(self) -> dict:
        return {
            "polynomial_b": self.poly["b"],
            "polynomial_error": self.poly["error"],
            "polynomial_scale": self.poly["scale"],
            "success_probability": self.success_probability,
            "phase_seconds": self.phase_seconds,
            "circuit_seconds": self.circuit_seconds,
        }


@dataclass
class _Problem:
    """A system's block encoding and what the polynomial needs of it."""

    A: np.ndarray
    b: np.ndarray
    n: int
    block: Any  # a qiskit QuantumCircuit
    alpha: float
    terms: int
    kappa: float
    kappa_eff: float
    sigma: np.ndarray  # singular values of A / alpha

    @classmethod
    def of(cls, A: np.ndarray, b: np.ndarray, rtol: float, kept=None) -> _Problem:
        """The problem of ``A x = b``, from ``A``'s Pauli terms above ``rtol`` (``kept``, when already found)."""
        n = int(np.log2(A.shape[0]))
        kept = _kept_terms(A, rtol) if kept is None else kept
        block, alpha = qsvt_circuit.block_encoding(kept, n)
        sigma = np.linalg.svd(A, compute_uv=False)
        kappa = float(sigma[0] / sigma[-1]) if sigma[-1] > 0 else math.inf
        kappa_eff = float(alpha / sigma[-1]) if sigma[-1] > 0 else math.inf
        return cls(
            A,
            np.asarray(b, dtype=complex) / np.linalg.norm(b),
            n,
            block,
            alpha,
            len(kept),
            kappa,
            kappa_eff,
            sigma / alpha,
        )

    @property
    def select_qubits(self) -> int:
        return self.block.num_qubits - self.n

    @property
    def total_qubits(self) -> int:
        return self.block.num_qubits + 1

    def resources(self) -> dict:
        return {
            "pauli_terms": self.terms,
            "alpha": self.alpha,
            "kappa": self.kappa,
            "kappa_eff": self.kappa_eff,
            "select_qubits": self.select_qubits,
            "block_encoding_qubits": self.block.num_qubits,
            "total_qubits": self.total_qubits,
        }

    def run(self, degree: int, epsilon: float) -> _Run:
        """The degree-``degree`` member's phases and circuit, run on Aer's statevector."""
        from qiskit_aer import AerSimulator

        start = time.perf_counter()
        poly = polynomial.cks_polynomial(self.kappa_eff, epsilon, degree)
        phases = polynomial.qsp_phases(poly["coefficients"])
        middle = time.perf_counter()
        circuit = qsvt_circuit.qsvt(self.b, self.block, self.n, phases)
        saved = circuit.copy()
        saved.save_statevector()
        state = np.asarray(AerSimulator(method="statevector").run(saved).result().get_statevector())
        return _Run(
            poly,
            phases,
            circuit,
            qsvt_circuit.postselected(state, self.n),
            middle - start,
            time.perf_counter() - middle,
        )

    def direction_error(self, state: np.ndarray) -> float:
        """``||x_hat - x_ref||`` of the unit vectors, ``x_hat``'s global phase aligned to ``x_ref``."""
        x = np.linalg.solve(self.A, self.b)
        x /= np.linalg.norm(x)
        norm = np.linalg.norm(state)
        if norm == 0:
            return math.sqrt(2.0)
        overlap = np.vdot(state, x)
        aligned = state / norm * (overlap / abs(overlap) if abs(overlap) > 0 else 1.0)
        return float(np.linalg.norm(aligned - x))

    def needed_degree(self, epsilon: float, predicted: int, max_degree: int) -> dict:
        """The smallest odd degree of the family whose exact post-selected state is within ``epsilon`` of
        ``x_ref`` (module docstring), by bisection on ``j0`` between 0 and the predicted (or, failing there, up to
        ``max_degree``); ``needed_degree`` is ``None`` when no degree up to ``max_degree`` meets the bar."""
        errors: dict[int, float] = {}

        def meets(j0: int) -> bool:
            if j0 not in errors:
                errors[j0] = self.direction_error(self.run(2 * j0 + 1, epsilon).state)
            return errors[j0] <= epsilon

        top = (min(predicted, max_degree) - 1) // 2
        while not meets(top) and top < (max_degree - 1) // 2:
            top = min(2 * top + 1, (max_degree - 1) // 2)
        if not meets(top):
            return {"needed_degree": None, "needed_degree_probes": len(errors)}
        low = -1  # j0 = low fails (or is below the family), j0 = top meets
        while top - low > 1:
            mid = (low + top) // 2
            if meets(mid):
                top = mid
            else:
                low = mid
        return {"needed_degree": 2 * top + 1, "needed_degree_error": errors[top], "needed_degree_probes": len(errors)}

    def spectral_degree(self, epsilon: float, predicted: int) -> dict:
        """The smallest odd degree of the family whose polynomial inverts every singular value of ``A / alpha`` to
        relative error ``epsilon`` (``max |sigma f(sigma) - 1|``, ``f ~ 1/x`` unscaled), by bisection on ``j0``
        up to the predicted degree: the degree every right-hand side needs, from the spectrum (no circuit)."""
        from numpy.polynomial import chebyshev

        def error(j0: int) -> float:
            poly = polynomial.cks_polynomial(self.kappa_eff, epsilon, 2 * j0 + 1)
            f = poly["coefficients"] / poly["scale"]
            return float(np.max(np.abs(self.sigma * chebyshev.chebval(self.sigma, f) - 1.0)))

        low, top = -1, (predicted - 1) // 2
        if error(top) > epsilon:
            return {"spectral_degree": None}
        while top - low > 1:
            mid = (low + top) // 2
            if error(mid) <= epsilon:
                top = mid
            else:
                low = mid
        return {"spectral_degree": 2 * top + 1}


def _sampled(run: _Run, shots: int, seed: int) -> tuple[np.ndarray, int]:
    """The post-selected amplitudes from ``shots`` Aer shots of the measured circuit (seeded): magnitudes from the
    kept counts, signs from the statevector; and how many shots were kept."""
    from qiskit_aer import AerSimulator

    circuit = run.circuit.copy()
    circuit.measure_all()
    counts = AerSimulator(method="statevector", seed_simulator=int(seed)).run(circuit, shots=shots).result()
    size = len(run.state)
    kept = np.zeros(size)
    for key, count in counts.get_counts().items():
        outcome = int(key.replace(" ", ""), 2)
        if outcome < size:  # selection register and signal qubit 0: the high bits are all zero
            kept[outcome] += count
    total = int(kept.sum())
    if total == 0:
        return np.zeros(size, dtype=complex), 0
    return np.sqrt(kept / total) * np.exp(1j * np.angle(run.state)), total


def _amplification(p: float, degree: int) -> dict:
    """Rounds of amplitude amplification to bring success probability ``p`` near 1 (counted, not simulated)."""
    if p <= 0:
        return {"amplification_rounds": None, "queries_amplified": None}
    theta = math.asin(min(1.0, math.sqrt(p)))
    rounds = math.floor(math.pi / (4 * theta))
    return {"amplification_rounds": rounds, "queries_amplified": degree * (2 * rounds + 1)}


def _gate_counts(problem: _Problem, run: _Run) -> dict:
    """Depth and CX count of the QSVT circuit in CX and U gates, from its pieces each transpiled once (Qiskit level
    1): the preparation of ``|b>``, one block encoding and one projector-controlled phase. The CX count is exact
    (the pieces' sum); the depth is the sum of the pieces' depths, an upper bound on the whole circuit's."""
    from qiskit import QuantumCircuit, transpile

    n, a, d = problem.n, problem.select_qubits, run.poly["degree"]
    phase = QuantumCircuit(n + a + 1)
    qsvt_circuit.projector_phase(phase, 0.3, list(range(n, n + a)), n + a)
    prepare, block, proj = transpile(
        [qsvt_circuit.prepare_state(problem.b), problem.block, phase],
        basis_gates=["cx", "u"],
        optimization_level=1,
        seed_transpiler=0,
    )

    def cx(c) -> int:
        return int(c.count_ops().get("cx", 0))

    return {
        "circuit_depth": int(prepare.depth() + d * block.depth() + (d + 1) * proj.depth() + 2),
        "logical_two_qubit_gates": cx(prepare) + d * cx(block) + (d + 1) * cx(proj),
        "block_encoding_depth": int(block.depth()),
        "block_encoding_two_qubit_gates": cx(block),
    }


__all__ = ["BACKENDS", "MAX_SYSTEM_QUBITS", "MAX_TOTAL_QUBITS", "QSVT"]
