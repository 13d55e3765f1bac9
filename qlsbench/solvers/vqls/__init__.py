"""VQLS with global and local costs (Bravo-Prieto et al.), on numpy or Qiskit Aer.

``registry.get("vqls-local", backend="exact" | "circuits" | "shots", layers=...,
optimizer=..., maxiter=..., shots=...)``; the same for ``vqls-global``.

Options: ``backend`` (see :mod:`.backends`), ``ansatz`` (``brickwall``, the
default, reaches every real state; ``ladder`` is qlsbench's earlier, less
expressive one; see :mod:`.ansatz`), ``layers`` of the ansatz, ``optimizer`` (``auto``: L-BFGS-B for exact, COBYLA
for circuits, QN-SPSA for
shots), ``maxiter``, ``shots`` per circuit, ``normalized`` costs,
``depolarizing`` noise per gate (shots), ``tol`` on the cost, ``max_circuits``
per cost evaluation (larger requests are refused, with the count), and
``pauli_rtol``: Pauli terms below ``pauli_rtol * max |c|`` are dropped (the
default drops only the rounding noise of the transform).

The solution is read out as ``x = s V(alpha)|0>`` with the scale ``s`` fitted
by least squares to ``A x = b``, so residuals and errors mean what they mean
for every other solver. The parameters read out are those of the lowest cost
seen, not the optimiser's last point (COBYLA and SPSA end wherever their
budget runs out).

The status is judged by that read-out, as for VNLS, never by the optimiser's
word: ``converged`` when its relative residual is at most ``rtol``;
otherwise ``stalled`` when the optimiser stopped on its own criterion (its
message is kept: L-BFGS-B can stop on a flat cost far from the solution) and
``max_iter`` when the budget ran out. ``progress`` holds the read-out after
the cost evaluations of :func:`~qlsbench.solvers.variational.progress_marks`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from qlsbench.errors import InputError
from qlsbench.problems import LinearSystem
from qlsbench.solvers.base import BaseSolver, SolveResult, Status, start_used
from qlsbench.solvers.options import VQLSOptions
from qlsbench.solvers.variational import least_squares_readout, progress_marks
from qlsbench.solvers.vqls import circuits
from qlsbench.solvers.vqls.ansatz import initial_parameters, n_parameters
from qlsbench.solvers.vqls.backends import BACKENDS
from qlsbench.solvers.vqls.optimizers import (
    DEFAULT_OPTIMIZER,
    OPTIMIZERS,
    evaluation_budget,
)
from qlsbench.solvers.vqls.problem import VQLSProblem

#: The exact backend holds ``2^n`` amplitudes; circuits also ``2^(n+1)`` per circuit.
MAX_QUBITS = {"exact": 20, "circuits": 12, "shots": 12, "shots-emulated": 16, "device": 12}


@dataclass
class _VQLS(VQLSOptions, BaseSolver):
    """What ``vqls-global`` and ``vqls-local`` share: options (:class:`VQLSOptions`), checks and the solve."""

    cost: ClassVar[str] = ""
    start_from: ClassVar[str] = "the previous solve's best angles (same qubits, ansatz and layers)"

    def _check(self) -> None:
        """What needs several options (each one alone is checked by its record, :class:`VQLSOptions`)."""
        if self.optimizer == "lbfgsb" and self.backend != "exact":
            raise InputError(f"{self.name}: optimizer 'lbfgsb' needs exact gradients: use backend='exact'")

    @property
    def _optimizer(self) -> str:
        return DEFAULT_OPTIMIZER[self.backend] if self.optimizer == "auto" else self.optimizer

    def _solve(self, system: LinearSystem, seed: int, start: dict | None = None) -> SolveResult:
        problem = VQLSProblem.from_system(system)
        n = problem.n_qubits
        resources = {
            "n_qubits": n,
            "ansatz": self.ansatz,
            "layers": self.layers,
            "parameters": n_parameters(n, self.layers),
            "backend": self.backend,
            "cost": self.cost,
            "optimizer": self._optimizer,
        }
        if n > MAX_QUBITS[self.backend]:
            return SolveResult(
                None,
                Status.SKIPPED,
                f"{self.name}: {n} qubits exceed the {self.backend} backend's limit of {MAX_QUBITS[self.backend]}",
                resources=resources,
            )
        decomposition = None
        if self.backend != "exact":
            decomposition = pauli_terms(system, self.pauli_rtol)
            count = circuits.circuit_count(
                len(decomposition), n, self.cost, bool(np.any(np.asarray(decomposition.coeffs).imag != 0))
            )
            resources.update(pauli_terms=len(decomposition), circuits_per_evaluation=count)
            if count > self.max_circuits:
                return SolveResult(
                    None,
                    Status.SKIPPED,
                    f"{self.name}: {len(decomposition)} Pauli terms need {count} circuits per cost "
                    f"evaluation, over the budget max_circuits={self.max_circuits}; "
                    "backend='exact' evaluates the same cost without circuits",
                    resources=resources,
                )
        else:
            resources.update(_circuit_resources(system, n, self.cost, self.pauli_rtol))
        backend = self._backend(problem, decomposition, seed)
        tracked = _Tracked(backend, progress_marks(evaluation_budget(self._optimizer, self.maxiter)))
        alpha0 = self._initial_angles(n, seed, start, resources)
        result = OPTIMIZERS[self._optimizer](tracked, alpha0, self.maxiter, self.tol, seed)
        alpha = tracked.best_alpha if tracked.best_alpha is not None else result.alpha
        x = least_squares_readout(system, backend.ansatz.state(alpha))
        resources.update(
            backend.resources(),
            cost_evaluations=backend.evaluations,
            final_cost=tracked.best_cost,
            last_cost=float(result.history[-1]) if result.history else float("nan"),
        )
        if self.backend != "exact":
            resources.update(_device_view(problem, decomposition, self.cost, self.layers, self.ansatz, seed, resources))
        status, message = _verdict(system, x, self.rtol, result)
        progress = [(k, least_squares_readout(system, v), t) for k, v, t in tracked.finish()]
        state = (
            None
            if alpha is None
            else {"alpha": np.array(alpha), "n_qubits": n, "ansatz": self.ansatz, "layers": self.layers}
        )
        return SolveResult(
            x,
            status,
            message,
            iterations=result.iterations,
            history=result.history,
            resources=resources,
            progress=progress,
            state=state,
        )

    def _backend(self, problem, decomposition, seed: int):
        """The cost's backend, given the options it takes and no other (each backend refuses a keyword it does
        not know)."""
        common = (problem, self.layers, self.cost, self.normalized)
        if self.backend == "exact":
            return BACKENDS["exact"](*common, ansatz=self.ansatz)
        circuit = {"decomposition": decomposition, "seed": seed, "ansatz": self.ansatz}
        if self.backend == "device":
            return BACKENDS["device"](
                *common,
                **circuit,
                shots=self.shots,
                device=self.device,
                noise_scale=self.noise_scale,
                optimization_level=self.optimization_level,
                mitigation=self.mitigation,
            )
        if self.backend == "circuits":
            return BACKENDS["circuits"](*common, **circuit, depolarizing=self.depolarizing)
        return BACKENDS[self.backend](*common, **circuit, shots=self.shots, depolarizing=self.depolarizing)

    def _initial_angles(self, n: int, seed: int, start: dict | None, resources: dict) -> np.ndarray:
        """The previous solve's angles when they fit this ansatz (same qubits, ansatz, layers), else seeded ones."""
        if start is None:
            return initial_parameters(n, self.layers, seed)
        fits = (
            isinstance(start, dict)
            and start.get("n_qubits") == n
            and start.get("ansatz") == self.ansatz
            and start.get("layers") == self.layers
        )
        if not fits:
            got = start.get("n_qubits") if isinstance(start, dict) else type(start).__name__
            start_used(resources, False, f"the previous angles are for {got} qubits, this system has {n}")
            return initial_parameters(n, self.layers, seed)
        start_used(resources, True)
        return np.array(start["alpha"], dtype=float)


def _verdict(system: LinearSystem, x: np.ndarray, rtol: float, result) -> tuple[Status, str]:
    """Status from the read-out's residual; the optimiser's own stop only says why it ended."""
    residual = float(np.linalg.norm(system.A @ x - system.b) / np.linalg.norm(system.b))
    if residual <= rtol:
        return Status.CONVERGED, f"read-out residual {residual:.2e} <= rtol {rtol:g} ({result.message})"
    if result.stopped:
        return Status.STALLED, (
            f"the optimiser stopped with read-out residual {residual:.2e} > rtol {rtol:g}: {result.message}"
        )
    return (
        Status.MAX_ITER,
        f"read-out residual {residual:.2e} > rtol {rtol:g} when the budget ran out ({result.message})",
    )


class _Tracked:
    """A backend seen through the optimiser: counts cost evaluations, keeps the best point, records progress.

    At each mark (a count of cost evaluations) the ansatz state of the best
    parameters so far is kept: what the solve would return had it stopped
    there. Everything else is the backend's own.
    """

    def __init__(self, backend, marks: list[int]) -> None:
        self._backend, self._marks = backend, set(marks)
        self.best_cost = float("inf")
        self.best_alpha: np.ndarray | None = None
        self.count = 0
        self.states: list[tuple[int, np.ndarray, float]] = []  # (evaluations, state, seconds since the start)
        self._start = time.perf_counter()

    def __getattr__(self, name):
        return getattr(self._backend, name)

    def cost(self, alpha: np.ndarray) -> float:
        value = self._backend.cost(alpha)
        self.count += 1
        if value < self.best_cost:  # NaN never counts as best
            self.best_cost, self.best_alpha = float(value), np.array(alpha, dtype=float)
        if self.count in self._marks and self.best_alpha is not None:
            self._keep()
        return value

    def _keep(self) -> None:
        self.states.append((self.count, self._backend.ansatz.state(self.best_alpha), time.perf_counter() - self._start))

    def finish(self) -> list[tuple[int, np.ndarray, float]]:
        """The recorded states, closed by the best state at the last evaluation."""
        if self.best_alpha is not None and (not self.states or self.states[-1][0] != self.count):
            self._keep()
        return self.states


def pauli_terms(system: LinearSystem, rtol: float):
    """Pauli terms of ``A`` above ``rtol * max |c|`` (:func:`qlsbench.pauli._lcu.truncated`): the circuits' terms.
    The default ``pauli_rtol`` drops only rounding noise of the transform."""
    from qlsbench.pauli import decompose
    from qlsbench.pauli._lcu import truncated

    return truncated(decompose(system.A), rtol)


def _device_view(
    problem: VQLSProblem, decomposition, kind: str, layers: int, ansatz: str, seed: int, resources: dict
) -> dict:
    """Logical depth, and routed depth, two-qubit gates and gate time on a device, for a circuit solve.

    The ``device`` backend routed every circuit it ran and says so itself; for the others the deepest
    Hadamard test of each kind (the one with the heaviest controlled Pauli strings) is built and routed to
    :data:`~qlsbench.solvers.devices.DEFAULT_DEVICE`, and ``device_seconds`` is that worst circuit's gate time
    times every shot of every circuit run (an upper estimate; no reset or repetition delay).
    """
    from qiskit import transpile

    from qlsbench.solvers.devices import DEFAULT_DEVICE, Device

    labels = decomposition.labels()
    weight = {l: sum(ch != "I" for ch in label) for l, label in enumerate(labels)}
    heaviest: dict[str, tuple[int, circuits.Term]] = {}
    for t in circuits.terms(labels, np.asarray(decomposition.coeffs), kind):
        score = weight[t.l] + (weight[t.lp] if t.lp >= 0 else 0)
        if t.kind not in heaviest or score > heaviest[t.kind][0]:
            heaviest[t.kind] = (score, t)
    from qlsbench.solvers.vqls.ansatz import ansatz_circuit

    v_circuit, u_circuit = ansatz_circuit(problem.n_qubits, layers, ansatz), problem.u_circuit()
    built = [
        circuits.build(t, labels, layers, v_circuit, u_circuit, measure=True, structure=ansatz)
        for _, t in heaviest.values()
    ]
    logical = transpile(built, basis_gates=["cx", "u"], optimization_level=1, seed_transpiler=seed)
    view = {"logical_depth": max(qc.depth() for qc in logical)}
    if "routed_depth" in resources:  # the device backend measured its own
        return view
    device = Device(DEFAULT_DEVICE, seed=seed)
    routed = device.cost(device.route(built))
    shots = resources.get("shots") or 1
    return {
        **view,
        "device": DEFAULT_DEVICE,
        "routed_depth": routed.depth,
        "two_qubit_gates": routed.two_qubit_gates,
        "device_qubits": routed.qubits,
        "device_seconds": resources.get("circuit_executions", 0) * shots * routed.seconds,
    }


def _circuit_resources(system: LinearSystem, n: int, kind: str, rtol: float) -> dict:
    """Pauli terms and circuits per evaluation the circuit backends would need, counted without circuits."""
    from qlsbench.pauli import count_terms

    terms = count_terms(system.A, (rtol,), relative=True)[rtol]
    complex_coeffs = bool(np.iscomplexobj(system.A.data))  # an upper bound: real symmetric A has real ones
    return {"pauli_terms": terms, "circuits_per_evaluation": circuits.circuit_count(terms, n, kind, complex_coeffs)}


@dataclass
class VQLSGlobal(_VQLS):
    """VQLS with the global cost ``C_G``."""

    name: ClassVar[str] = "vqls-global"
    cost: ClassVar[str] = "global"


@dataclass
class VQLSLocal(_VQLS):
    """VQLS with the local cost ``C_L`` (trainable where the global cost plateaus)."""

    name: ClassVar[str] = "vqls-local"
    cost: ClassVar[str] = "local"


__all__ = ["VQLSGlobal", "VQLSLocal", "VQLSProblem", "pauli_terms"]
