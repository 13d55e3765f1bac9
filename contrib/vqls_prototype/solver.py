"""vqls-prototype 0.2.0's VQLS, as it ships, for qlsbench's ``external`` solver (README.md beside this file).

Runs in its own environment (``requirements.txt`` here: Qiskit 0.46, which the package needs), never in
qlsbench's: qlsbench's ``external`` solver calls :func:`solve` through its file protocol. Nothing of qlsbench is
imported here.

What is ours and what is the package's: the package builds the circuits (its default ``SymmetricDecomposition``
of A, its Hadamard tests for the global or local cost), assembles the cost and runs the optimiser we hand it. We
choose the ansatz (qlsbench's brick-wall: R_y layers between CZ layers on alternating even and odd pairs, 4 layers),
its seeded initial point (the same angles as qlsbench's VQLS for the same seed), the optimiser (Qiskit's L-BFGS-B,
300 iterations, finite-difference gradients: the package passes no gradient), the estimator (Aer's, exact
expectation values) and the read-out (the package's real statevector, scaled by least squares as qlsbench's
variational solvers do).
"""

import math
import time
import warnings

import numpy as np

#: Options (``solver_options`` of the ``external`` run) and their defaults.
DEFAULTS = {
    "cost": "global",  # "global" or "local": the package's use_local_cost_function
    "layers": 4,  # entangling layers of the brick-wall ansatz: n (layers + 1) parameters
    "maxiter": 300,  # L-BFGS-B iterations
    "max_qubits": 3,  # larger systems are declined (skipped), see README.md
    "rtol": 1e-2,  # read-out relative residual counted as converged (qlsbench's VQLS rtol)
}
#: A counts as symmetric when max |A - A^T| <= SYMMETRY_RTOL * max |A|.
SYMMETRY_RTOL = 1e-10


def solve(problem):
    """One system: the answer as qlsbench's file protocol wants it (a dict: x, status, message, ...)."""
    opts = dict(DEFAULTS)
    unknown = sorted(set(problem.options) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"unknown options {unknown}; known: {sorted(DEFAULTS)}")
    opts.update(problem.options)
    if opts["cost"] not in ("global", "local"):
        raise ValueError(f"cost must be 'global' or 'local', got {opts['cost']!r}")
    A, b = np.asarray(problem.A), np.asarray(problem.b)
    n = int(problem.meta.get("n_qubits") or round(math.log2(len(b))))
    layers = int(opts["layers"])
    resources = {"parameters": n * (layers + 1), "shots": 0, "cost": opts["cost"], "layers": layers,
                 "decomposition": "symmetric", "optimizer": "L_BFGS_B", "estimator": "qiskit_aer Estimator, exact"}

    declined = _declined(A, b, n, opts["max_qubits"])
    if declined:
        return {"x": None, "status": "skipped", "message": f"vqls-prototype: {declined}", "iterations": 0,
                "resources": resources}
    return _run(A, b, n, layers, int(problem.seed), opts, resources)


def _declined(A, b, n, max_qubits):
    """Why this system is not attempted, in one line, or ``None``."""
    if n > max_qubits:
        return (f"{n} qubits exceed max_qubits={max_qubits} (one solve would outlast the board's 120 s per solve; "
                f"README.md)")
    if np.iscomplexobj(A) or np.iscomplexobj(b):
        return "a complex system: vqls-prototype 0.2.0 casts A and b to float64, dropping their imaginary parts"
    if np.max(np.abs(A - A.T)) > SYMMETRY_RTOL * np.max(np.abs(A)):
        return ("A is not symmetric: vqls-prototype 0.2.0's default SymmetricDecomposition, "
                "A = |A|_F (A+ + A-)/2 with A+- = A/|A|_F +- i sqrt(I - (A/|A|_F)^2), gives unitaries only for a "
                "symmetric A (on this one Qiskit raises 'Input matrix is not unitary')")
    return None


def ansatz(n, layers):
    """qlsbench's brick-wall ansatz: ``layers`` blocks of (R_y on every qubit, CZ on the even pairs (0, 1),
    (2, 3), ... in even layers and on the odd pairs (1, 2), ... in odd ones), closed by a last R_y layer;
    parameters in gate order, as qlsbench's ``ansatz_circuit``."""
    from qiskit import QuantumCircuit
    from qiskit.circuit import ParameterVector

    alpha = ParameterVector("alpha", n * (layers + 1))
    qc = QuantumCircuit(n, name="V")
    k = 0
    for layer in range(layers + 1):
        for q in range(n):
            qc.ry(alpha[k], q)
            k += 1
        if layer < layers:
            for q in range(layer % 2, n - 1, 2):
                qc.cz(q, q + 1)
    return qc


def initial_point(n, layers, seed):
    """Seeded starting angles, uniform in [0, 2 pi): the same draw as qlsbench's VQLS for the same seed."""
    return np.random.default_rng(seed).uniform(0.0, 2 * np.pi, n * (layers + 1))


def readout(A, b, v):
    """``s v`` with ``s`` minimising ``|A s v - b|`` (qlsbench's least-squares read-out, written out here)."""
    Av = A @ v
    denom = np.vdot(Av, Av)
    return (np.vdot(Av, b) / denom if denom else 0.0) * v


def _run(A, b, n, layers, seed, opts, resources):
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Qiskit 0.46 warns on every import of qiskit.algorithms and opflow
        from qiskit.algorithms.optimizers import L_BFGS_B
        from qiskit.quantum_info import Statevector
        from qiskit_aer.primitives import Estimator
        from vqls_prototype import VQLS

        class Recorded(L_BFGS_B):
            """Qiskit's L-BFGS-B, keeping its result (the package returns only x, fun and nfev). The package
            deep-copies the optimiser, so the record is a class attribute."""

            results = []

            def minimize(self, *args, **kwargs):
                result = super().minimize(*args, **kwargs)
                Recorded.results.append(result)
                return result

        class Kept(VQLS):
            """The package's VQLS, keeping the Hadamard tests it builds (what one cost evaluation runs)."""

            def construct_circuit(self, matrix, vector):
                self.tests = super().construct_circuit(matrix, vector)
                return self.tests

        circuit = ansatz(n, layers)
        estimator = Estimator(approximation=True, run_options={"shots": None})  # exact expectation values
        options = {"use_local_cost_function": opts["cost"] == "local"}
        solver = Kept(estimator, circuit, Recorded(maxiter=int(opts["maxiter"])),
                      initial_point=initial_point(n, layers, seed), options=options)

        history, progress = [], []
        marks = {1 << k for k in range(40)}

        def callback(count, cost, parameters):
            history.append(float(np.real(cost)))
            if count in marks:
                v = np.real(Statevector(circuit.assign_parameters(parameters)).data)
                progress.append([count, readout(A, b, v), time.perf_counter() - started])

        solver.callback = callback
        result = solver.solve(A, b)
        x = readout(A, b, np.asarray(result.vector, dtype=float))
        if progress and progress[-1][0] == len(history):
            progress.pop()  # the last evaluation's point need not be the optimiser's answer
        progress.append([len(history), x, time.perf_counter() - started])

        tests_norm, tests_overlap = solver.tests
        circuits = [c for test in tests_norm + tests_overlap for c in test.circuits]
        depth = _depth([test.circuits[-1] for test in tests_norm[:1] + tests_overlap[:1]])
    opt = Recorded.results[-1]
    residual = float(np.linalg.norm(A @ x - b) / np.linalg.norm(b))
    nit = int(getattr(opt, "nit", None) or 0)
    resources.update(circuits_per_evaluation=len(circuits), cost_evaluations=len(history),
                     circuit_executions=len(history) * len(circuits), decomposition_terms=len(solver.matrix_circuits),
                     circuit_depth=depth, final_cost=float(np.real(result.optimal_value)),
                     optimizer_iterations=nit)
    how = f"L-BFGS-B {nit} iterations, {len(history)} cost evaluations, cost {float(np.real(result.optimal_value)):.3e}"
    if residual <= opts["rtol"]:
        status, message = "converged", f"read-out residual {residual:.2e} <= rtol {opts['rtol']:g} ({how})"
    elif nit >= int(opts["maxiter"]):
        status, message = "max_iter", f"read-out residual {residual:.2e} > rtol {opts['rtol']:g} ({how})"
    else:
        status, message = "stalled", (f"L-BFGS-B stopped with read-out residual {residual:.2e} > rtol "
                                      f"{opts['rtol']:g} ({how})")
    return {"x": x, "status": status, "message": message, "iterations": nit, "history": history,
            "resources": resources, "progress": progress}


def _depth(circuits):
    """Depth of the deepest of ``circuits`` in CX and single-qubit U gates. Given the first norm test and the first
    overlap test (their imaginary-part circuits, one S-dagger deeper): the other tests of each kind are the same
    circuit with other unitaries of the same size, and synthesising every one would double a solve's time."""
    from qiskit import transpile

    compiled = transpile(circuits, basis_gates=["u", "cx"], optimization_level=1, seed_transpiler=0)
    return max(c.depth() for c in compiled)
