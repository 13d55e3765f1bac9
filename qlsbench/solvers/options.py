"""The options records of the built-in solvers: each option's default and its one-line meaning, written once.

Each built-in solver class is a dataclass that takes its fields from one of
these records (``class HHL(HHLOptions, BaseSolver)``) and adds none of its
own, so the record is the solver's options. They sit here, apart from the
solvers, because this module imports nothing heavy: ``qlsbench solvers NAME``
reads a solver's options without importing Qiskit, NetKet or scipy. The
registry (:data:`~qlsbench.solvers.registry.BUILTINS`) names each solver's
record. Values are checked by the solver on construction (its
``__post_init__``), where the reasons for each bound are.

A plug-in may declare its fields the same way (:func:`qlsbench.options.option`
with a ``help`` line); ``qlsbench solvers NAME`` shows them.
"""

from __future__ import annotations

from dataclasses import dataclass

from qlsbench.options import option
from qlsbench.solvers.devices import DEFAULT_DEVICE, DEVICES, MITIGATIONS


@dataclass
class KrylovOptions:
    """Options of scipy's Krylov methods (``cg``, ``minres``, ``bicgstab``; ``gmres`` adds ``restart``)."""

    rtol: float = option(1e-10, "stop when |b - A x| <= max(rtol |b|, atol)")
    atol: float = option(0.0, "absolute floor of that stopping test (minres has none: keep 0)")
    maxiter: int | None = option(None, "iteration cap (gmres: restart cycles); none: scipy's default (gmres: "
                                       "enough cycles for 10 dim inner iterations)")
    history: bool = option(True, "record the relative residual at every iteration (cg, minres and bicgstab pay "
                                 "one extra product per iteration for it)")


@dataclass
class GMRESOptions(KrylovOptions):
    """Options of ``gmres``: the Krylov options and the restart length."""

    restart: int = option(20, "inner iterations between restarts")


@dataclass
class SparseLUOptions:
    """Options of ``splu``."""

    permc_spec: str = option("COLAMD", "SuperLU's column ordering: COLAMD, MMD_ATA, MMD_AT_PLUS_A or NATURAL")


@dataclass
class OracleOptions:
    """Options of ``oracle``: the accuracy its answers are perturbed to."""

    fidelity: float = option(1.0, "target |<x_hat|answer>|^2 in [0, 1]; 1 returns the exact solution")
    rel_residual: float | None = option(None, "target |A answer - b| / |b| (>= 0); when given, fidelity is "
                                              "not used")


def _either(names) -> str:
    """``a, b or c``."""
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


#: Which backend the circuit solvers' device options apply to.
_DEVICE_NOTE = "(backend device)"
#: The meanings of the device options VQLS and HHL share.
_DEVICE_HELP = {
    "device": f"device whose calibrated noise is sampled: {_either(sorted(DEVICES))} {_DEVICE_NOTE}",
    "noise_scale": f"factor on every error rate of the device; 0 is the ideal machine {_DEVICE_NOTE}",
    "optimization_level": f"Qiskit's transpiler optimisation level, 0-3 {_DEVICE_NOTE}",
    "mitigation": f"error mitigation: {_either(MITIGATIONS)} {_DEVICE_NOTE}",
}


@dataclass
class VQLSOptions:
    """Options of ``vqls-global`` and ``vqls-local``."""

    backend: str = option("exact", "where the cost is evaluated: exact (state vectors), circuits (Aer), shots "
                                   "(sampled on Aer), shots-emulated (the same counts without circuits) or device "
                                   "(a device's calibrated noise)")
    ansatz: str = option("brickwall", "brickwall (reaches every real state) or ladder (the earlier, less "
                                      "expressive one)")
    layers: int = option(4, "layers of the ansatz (R_y then CZ)")
    optimizer: str = option("auto", "lbfgsb, cobyla, spsa or qnspsa; auto: lbfgsb for exact, cobyla for "
                                    "circuits, qnspsa for the shot backends")
    maxiter: int = option(200, "optimiser iterations")
    shots: int = option(1000, "shots per circuit (shot and device backends)")
    normalized: bool = option(True, "divide the cost by <psi|psi>, so it lies in [0, 1]")
    depolarizing: float = option(0.0, "depolarising error per gate, in [0, 1) (backend shots)")
    tol: float = option(1e-12, "the optimiser stops once the cost is this low")
    max_circuits: int = option(20_000, "most circuits one cost evaluation may take; more is refused, with the count")
    pauli_rtol: float = option(1e-12, "drop Pauli terms of A below pauli_rtol times the largest (circuit backends)")
    rtol: float = option(1e-2, "read-out relative residual counted as converged")
    device: str = option(DEFAULT_DEVICE, _DEVICE_HELP["device"])
    noise_scale: float = option(1.0, _DEVICE_HELP["noise_scale"])
    optimization_level: int = option(1, _DEVICE_HELP["optimization_level"])
    mitigation: str = option("none", _DEVICE_HELP["mitigation"])


@dataclass
class VNLSOptions:
    """Options of ``vnls``."""

    model: str = option("crbm", "neural quantum state: rbm (real), crbm (complex RBM) or arnn (autoregressive)")
    exact: bool = option(False, "sum the loss over the whole basis instead of Monte Carlo sampling (up to 12 "
                                "qubits)")
    n_samples: int = option(1024, "Monte Carlo samples per SR step")
    learning_rate: float = option(0.05, "SR step size")
    n_iter: int = option(2500, "SR steps")
    diag_shift: float = option(0.01, "diagonal shift of SR's quantum geometric tensor")
    alpha: int = option(1, "hidden units per qubit")
    rtol: float = option(1e-2, "read-out relative residual counted as converged")
    warm_start: str = option("none", "none, or gmres: first train the state towards a few GMRES iterations' guess")
    warm_start_iters: int = option(10, "GMRES iterations of that guess")
    warm_start_steps: int = option(500, "SR steps towards the guess before the main run")
    stop_every: int = option(0, "read the state out every k steps and stop once within rtol; 0: run every step")


@dataclass
class HHLOptions:
    """Options of ``hhl``."""

    clock: int = option(8, "clock qubits of phase estimation, 2-16")
    time: float | None = option(None, "evolution time t in (0, pi); none: pi (1 - 2^(1 - clock)), which puts "
                                      "eigenvalue 1 on the last positive clock state")
    backend: str = option("exact", "exact (Aer statevector), shots (sampled on Aer), shots-emulated (the same "
                                   "counts without the circuit run) or device (a device's calibrated noise)")
    shots: int = option(10_000, "shots per circuit (shot and device backends)")
    evolution: str = option("exact", "exact (in the eigenbasis) or trotter (product formula of A's Pauli terms)")
    trotter_steps: int = option(4, "product-formula steps of exp(i A t), whose squares give the other controlled "
                                   "powers (evolution trotter)")
    refine: int = option(0, "rounds of classical iterative refinement, at most 100: solve A d = b - A x again, "
                            "x += d; stops early when two rounds leave the residual where it was")
    inversion: str = option("grid", "grid (invert every clock state exactly) or auto (C from the clock "
                                     "distribution: likelier post-selection, less exact)")
    rtol: float = option(1e-2, "final relative residual counted as converged")
    device: str = option(DEFAULT_DEVICE, _DEVICE_HELP["device"])
    noise_scale: float = option(1.0, _DEVICE_HELP["noise_scale"])
    optimization_level: int = option(1, _DEVICE_HELP["optimization_level"])
    mitigation: str = option("none", _DEVICE_HELP["mitigation"])


__all__ = ["GMRESOptions", "HHLOptions", "KrylovOptions", "OracleOptions", "SparseLUOptions", "VNLSOptions",
           "VQLSOptions"]
