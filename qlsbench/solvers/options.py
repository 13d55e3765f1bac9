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

import math
from dataclasses import dataclass

from qlsbench.checks import Real, Whole
from qlsbench.options import option
from qlsbench.solvers.devices import DEFAULT_DEVICE, DEVICES, MITIGATIONS

# Bounds shared by several records. The caps keep one solve's work finite (an iteration count of 10^12 would
# never end; a shot count of 10^12 would never be sampled) while staying far above anything the board runs.
#: A relative tolerance: above 0, at most 1.
TOLERANCE = Real(0.0, 1.0, open_low=True)
#: A tolerance or floor that may be 0, relative to |b| (1 for every dataset: systems are normalised), so above 1
#: it would accept x = 0.
NON_NEGATIVE = Real(0.0, 1.0)
#: Iterations or steps of a loop.
STEPS = Whole(1, 10**7)
#: Shots per circuit.
SHOTS = Whole(1, 10**8)
#: Noise scale of a device: 0 is ideal, 1 the device; errors are capped at MAX_SCALED_ERROR above.
NOISE_SCALE = Real(0.0, 1000.0)
#: Qiskit's transpiler optimisation levels.
OPT_LEVEL = Whole(0, 3)


@dataclass
class KrylovOptions:
    """Options of scipy's Krylov methods (``cg``, ``minres``, ``bicgstab``; ``gmres`` adds ``restart``)."""

    rtol: float = option(1e-10, "stop when |b - A x| <= max(rtol |b|, atol)", bounds=TOLERANCE)
    atol: float = option(
        0.0,
        "absolute floor of that stopping test, in [0, 1] (|b| is 1 in every dataset; minres has none: keep 0)",
        bounds=NON_NEGATIVE,
    )
    maxiter: int | None = option(
        None,
        "iteration cap (gmres: restart cycles); none: scipy's default (gmres: "
        "enough cycles for 10 dim inner iterations)",
        bounds=STEPS,
    )
    history: bool = option(
        True,
        "record the relative residual at every iteration (cg, minres and bicgstab pay "
        "one extra product per iteration for it)",
    )


@dataclass
class GMRESOptions(KrylovOptions):
    """Options of ``gmres``: the Krylov options and the restart length."""

    restart: int = option(20, "inner iterations between restarts", bounds=Whole(1, 10**5))


@dataclass
class SparseLUOptions:
    """Options of ``splu``."""

    permc_spec: str = option(
        "COLAMD",
        "SuperLU's column ordering: COLAMD, MMD_ATA, MMD_AT_PLUS_A or NATURAL",
        choices=("COLAMD", "MMD_ATA", "MMD_AT_PLUS_A", "NATURAL"),
    )


@dataclass
class OracleOptions:
    """Options of ``oracle``: the accuracy its answers are perturbed to."""

    fidelity: float = option(
        1.0, "target |<x_hat|answer>|^2 in [0, 1]; 1 returns the exact solution", bounds=Real(0.0, 1.0)
    )
    rel_residual: float | None = option(
        None,
        "target |A answer - b| / |b| in [0, 1] (1 is what x = 0 scores); when given, fidelity is not used",
        bounds=NON_NEGATIVE,
    )


def _either(names) -> str:
    """``a, b or c``."""
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


#: Where VQLS's cost is evaluated (:data:`qlsbench.solvers.vqls.backends.BACKENDS`, kept equal by a test).
VQLS_BACKENDS = ("exact", "circuits", "shots", "shots-emulated", "device")
#: VQLS's optimisers (``auto`` picks one by backend).
VQLS_OPTIMIZERS = ("auto", "lbfgsb", "cobyla", "spsa", "qnspsa")
#: Where HHL's circuits run (:data:`qlsbench.solvers.hhl.BACKENDS`, kept equal by a test).
HHL_BACKENDS = ("exact", "shots", "shots-emulated", "device")
#: Which backend the circuit solvers' device options apply to.
_DEVICE_NOTE = "(backend device)"
#: The backends the device options apply to, and those that sample shots (any other value is refused by the
#: record: :func:`qlsbench.options.check_record`).
DEVICE = ("device",)
SAMPLED = ("shots", "shots-emulated", "device")
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

    backend: str = option(
        "exact",
        "where the cost is evaluated: exact (state vectors), circuits (Aer), shots "
        "(sampled on Aer), shots-emulated (the same counts without circuits) or device "
        "(a device's calibrated noise)",
        choices=VQLS_BACKENDS,
    )
    ansatz: str = option(
        "brickwall",
        "brickwall (reaches every real state) or ladder (the earlier, less expressive one)",
        choices=("brickwall", "ladder"),
    )
    layers: int = option(4, "layers of the ansatz (R_y then CZ)", bounds=Whole(0, 256))
    optimizer: str = option(
        "auto",
        "lbfgsb, cobyla, spsa or qnspsa; auto: lbfgsb for exact, cobyla for circuits, qnspsa for the shot backends",
        choices=VQLS_OPTIMIZERS,
    )
    maxiter: int = option(200, "optimiser iterations", bounds=STEPS)
    shots: int = option(1000, "shots per circuit (shot and device backends)", bounds=SHOTS, backends=SAMPLED)
    normalized: bool = option(True, "divide the cost by <psi|psi>, so it lies in [0, 1]")
    depolarizing: float = option(
        0.0,
        "depolarising error per gate, in [0, 1) (backend shots)",
        bounds=Real(0.0, 1.0, open_high=True),
        backends=("shots",),
    )
    tol: float = option(1e-12, "the optimiser stops once the cost is this low", bounds=NON_NEGATIVE)
    max_circuits: int = option(
        20_000, "most circuits one cost evaluation may take; more is refused, with the count", bounds=Whole(1, 10**7)
    )
    pauli_rtol: float = option(
        1e-12,
        "drop Pauli terms of A below pauli_rtol times the largest (circuit backends)",
        bounds=Real(0.0, 1.0, open_high=True),
    )
    rtol: float = option(1e-2, "read-out relative residual counted as converged", bounds=TOLERANCE)
    device: str = option(DEFAULT_DEVICE, _DEVICE_HELP["device"], choices=tuple(sorted(DEVICES)), backends=DEVICE)
    noise_scale: float = option(1.0, _DEVICE_HELP["noise_scale"], bounds=NOISE_SCALE, backends=DEVICE)
    optimization_level: int = option(1, _DEVICE_HELP["optimization_level"], bounds=OPT_LEVEL, backends=DEVICE)
    mitigation: str = option("none", _DEVICE_HELP["mitigation"], choices=MITIGATIONS, backends=DEVICE)


@dataclass
class VNLSOptions:
    """Options of ``vnls``."""

    model: str = option(
        "crbm",
        "neural quantum state: rbm (real), crbm (complex RBM) or arnn (autoregressive)",
        choices=("rbm", "crbm", "arnn"),
    )
    exact: bool = option(False, "sum the loss over the whole basis instead of Monte Carlo sampling (up to 12 qubits)")
    n_samples: int = option(1024, "Monte Carlo samples per SR step", bounds=Whole(1, 10**7))
    learning_rate: float = option(0.05, "SR step size", bounds=Real(0.0, 10.0, open_low=True))
    n_iter: int = option(2500, "SR steps", bounds=STEPS)
    diag_shift: float = option(
        0.01, "diagonal shift of SR's quantum geometric tensor", bounds=Real(0.0, 1e3, open_low=True)
    )
    alpha: int = option(1, "hidden units per qubit", bounds=Whole(1, 64))
    sr_solver: str = option(
        "auto",
        "SR's linear solve: cg (NetKet's default), cholesky (dense), or auto: cholesky in exact mode, cg sampled",
        choices=("auto", "cg", "cholesky"),
    )
    rtol: float = option(1e-2, "read-out relative residual counted as converged", bounds=TOLERANCE)
    warm_start: str = option(
        "none", "none, or gmres: first train the state towards a few GMRES iterations' guess", choices=("none", "gmres")
    )
    warm_start_iters: int = option(10, "GMRES iterations of that guess", bounds=Whole(1, 10**5))
    warm_start_steps: int = option(500, "SR steps towards the guess before the main run", bounds=STEPS)
    stop_every: int = option(
        0, "read the state out every k steps and stop once within rtol; 0: run every step", bounds=Whole(0, 10**7)
    )


@dataclass
class HHLOptions:
    """Options of ``hhl``."""

    clock: int = option(8, "clock qubits of phase estimation, 2-16", bounds=Whole(2, 16))
    time: float | None = option(
        None,
        "evolution time t in (0, pi); none: pi (1 - 2^(1 - clock)), which puts "
        "eigenvalue 1 on the last positive clock state",
        bounds=Real(0.0, math.pi, open_low=True, open_high=True),
    )
    backend: str = option(
        "exact",
        "exact (Aer statevector), shots (sampled on Aer), shots-emulated (the same "
        "counts without the circuit run) or device (a device's calibrated noise)",
        choices=HHL_BACKENDS,
    )
    shots: int = option(10_000, "shots per circuit (shot and device backends)", bounds=SHOTS, backends=SAMPLED)
    evolution: str = option(
        "exact",
        "exact (in the eigenbasis) or trotter (product formula of A's Pauli terms)",
        choices=("exact", "trotter"),
    )
    trotter_steps: int = option(
        4,
        "product-formula steps of exp(i A t), whose squares give the other controlled powers (evolution trotter)",
        bounds=Whole(1, 10**4),
    )
    refine: int = option(
        0,
        "rounds of classical iterative refinement, at most 100: solve A d = b - A x again, "
        "x += d; stops early when two rounds leave the residual where it was",
        bounds=Whole(0, 100),
    )
    inversion: str = option(
        "grid",
        "grid (invert every clock state exactly) or auto (C from the clock "
        "distribution: likelier post-selection, less exact)",
        choices=("grid", "auto"),
    )
    rtol: float = option(1e-2, "final relative residual counted as converged", bounds=TOLERANCE)
    device: str = option(DEFAULT_DEVICE, _DEVICE_HELP["device"], choices=tuple(sorted(DEVICES)), backends=DEVICE)
    noise_scale: float = option(1.0, _DEVICE_HELP["noise_scale"], bounds=NOISE_SCALE, backends=DEVICE)
    optimization_level: int = option(1, _DEVICE_HELP["optimization_level"], bounds=OPT_LEVEL, backends=DEVICE)
    mitigation: str = option("none", _DEVICE_HELP["mitigation"], choices=MITIGATIONS, backends=DEVICE)


#: Where QSVT's circuit runs (:data:`qlsbench.solvers.qsvt.BACKENDS`, kept equal by a test).
QSVT_BACKENDS = ("exact", "shots")
#: Largest polynomial degree an option may ask for: pyqsp's Newton step costs O(d^2) in Python (about a minute per
#: phase set at d = 1000, so 4001 is hours).
QSVT_DEGREE = Whole(1, 4001)


@dataclass
class QSVTOptions:
    """Options of ``qsvt``."""

    epsilon: float = option(
        1e-2,
        "target error of the polynomial against 1/x on [1/kappa_eff, 1], in (0, 0.5]; "
        "sets the degree (Childs-Kothari-Somma) and find_degree's bar",
        bounds=Real(0.0, 0.5, open_low=True),
    )
    degree: int | None = option(
        None,
        "odd polynomial degree, 1-4001; none: the Childs-Kothari-Somma degree for kappa_eff and epsilon",
        bounds=QSVT_DEGREE,
    )
    max_degree: int = option(
        1001,
        "a solve whose degree is above this is skipped, 1-4001 (phases take about a minute at 1000)",
        bounds=QSVT_DEGREE,
    )
    backend: str = option(
        "exact", "exact (Aer statevector) or shots (sampled on Aer, post-selected)", choices=QSVT_BACKENDS
    )
    shots: int = option(10_000, "shots of the circuit (backend shots)", bounds=SHOTS)
    pauli_rtol: float = option(
        1e-12,
        "drop Pauli terms of A below pauli_rtol times the largest before the block encoding",
        bounds=Real(0.0, 1.0, open_high=True),
    )
    find_degree: bool = option(
        False,
        "also find by bisection the smallest degree of the polynomial family whose "
        "simulated solution is within epsilon of x_ref (several more simulations)",
    )
    rtol: float = option(1e-2, "read-out relative residual counted as converged", bounds=TOLERANCE)


@dataclass
class ExternalOptions:
    """Options of ``external``: where the solver runs and what it is given (``docs/external-solvers.md``)."""

    environment: str | None = option(
        None,
        "the solver's own environment: a virtualenv or conda prefix, a Python "
        "interpreter, or a requirements file (.txt) built into one on first use",
        path="read",
    )
    entry: str | None = option(
        None,
        "the function the environment's Python calls with each system: path/to/file.py:function or module:function",
    )
    command: str | None = option(
        None, "instead of environment and entry: a program run as COMMAND REQUEST RESPONSE, any language"
    )
    solver_options: dict = option({}, "options handed to the solver in every request", pairs=True)
    peer: str | None = option(None, "the solver's own name (default external): labels and folders are named by it")


__all__ = [
    "ExternalOptions",
    "GMRESOptions",
    "HHLOptions",
    "KrylovOptions",
    "OracleOptions",
    "QSVTOptions",
    "SparseLUOptions",
    "VNLSOptions",
    "VQLSOptions",
]
