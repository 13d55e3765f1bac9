"""Optimisers for the VQLS parameters, by name in :data:`OPTIMIZERS`.

``cobyla`` and ``lbfgsb`` (exact gradients, ``exact`` backend only) come from
scipy; ``spsa`` and ``qnspsa`` from qiskit-machine-learning, which maintains
them for Qiskit 2 (QN-SPSA takes the ansatz-state fidelity from the backend:
exact for ``exact``/``circuits``, a compute-uncompute circuit for ``shots``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize

from qlsbench.errors import InputError
from qlsbench.text import plural


@dataclass
class Optimization:
    """Outcome of one optimisation.

    ``stopped``: the optimiser stopped on its own criterion (or reached
    ``tol``) before the iteration budget ran out; ``message`` says which.
    Whether the solve succeeded is not the optimiser's to say: the solver
    judges the read-out.
    """

    alpha: np.ndarray
    iterations: int
    stopped: bool
    history: list[float] = field(default_factory=list)
    message: str = ""


def _cobyla(backend, alpha0, maxiter, tol, seed) -> Optimization:
    history = []

    def fun(a):
        history.append(backend.cost(a))
        return history[-1]

    res = minimize(fun, alpha0, method="COBYLA", options={"maxiter": maxiter, "tol": tol})
    return Optimization(
        res.x, len(history), len(history) < maxiter, history, f"cobyla: {_cobyla_reason(res, maxiter, tol)}"
    )


def _cobyla_reason(res, maxiter: int, tol: float) -> str:
    """Why COBYLA stopped, in our words (scipy's reads 'Return from COBYLA because ...')."""
    if res.status == 0:  # pyprima's SMALL_TR_RADIUS
        return f"its step shrank to tol {tol:g}: no lower cost within that distance"
    if res.status == 3:  # MAXFUN_REACHED
        return f"it used its budget of {maxiter} cost evaluations"
    if res.status in (-1, -2, -3):  # NaN or infinity in the parameters, the cost or its model
        return "the cost or the parameters became NaN or infinite"
    return str(res.message).removeprefix("Return from COBYLA because ").rstrip(".")


def _lbfgsb(backend, alpha0, maxiter, tol, seed) -> Optimization:
    if not hasattr(backend, "gradient") or backend.name != "exact":
        raise InputError("optimizer 'lbfgsb' needs exact gradients: use backend='exact'")
    history, last = [], {}

    def fun(a):
        last["value"] = backend.cost(a)
        return last["value"], backend.gradient(a)

    def callback(intermediate_result):
        history.append(float(intermediate_result.fun))
        if intermediate_result.fun <= tol:  # the cost is >= 0 and 0 at the solution: nothing left to gain
            last["reached_tol"] = True
            raise StopIteration

    res = minimize(
        fun,
        alpha0,
        jac=True,
        method="L-BFGS-B",
        callback=callback,
        options={"maxiter": maxiter, "ftol": 0.0, "gtol": LBFGSB_GTOL},
    )
    reason = f"the cost reached tol {tol:g}" if last.get("reached_tol") else _lbfgsb_reason(res, maxiter)
    return Optimization(
        res.x,
        int(res.nit),
        int(res.nit) < maxiter,
        history or [float(res.fun)],
        f"lbfgsb: {reason} after {plural(int(res.nit), 'iteration')}",
    )


#: L-BFGS-B stops when the largest component of the projected gradient is below this.
LBFGSB_GTOL = 1e-12

#: Why L-BFGS-B stopped, in our words, by the start of scipy's message (its Fortran task strings).
_LBFGSB_REASONS = {
    "CONVERGENCE: NORM OF PROJECTED GRADIENT": f"the gradient vanished (below {LBFGSB_GTOL:g})",
    "CONVERGENCE: RELATIVE REDUCTION OF F": "the cost stopped decreasing (changes at rounding level)",
    "STOP: TOTAL NO. OF F,G EVALUATIONS": "it used its budget of cost evaluations",
    "ABNORMAL": "the line search found no lower cost along the search direction (a flat or noisy cost)",
}


def _lbfgsb_reason(res, maxiter: int) -> str:
    """Why L-BFGS-B stopped, when it was not for reaching ``tol``."""
    if res.status == 1 and res.nit >= maxiter:
        return f"it used its budget of {maxiter} iterations"
    message = str(res.message)
    return next(
        (words for start, words in _LBFGSB_REASONS.items() if message.startswith(start)),
        f"it stopped ({message.lower().rstrip('.')})",
    )


def _spsa_family(name: str):
    def run(backend, alpha0, maxiter, tol, seed) -> Optimization:
        from qiskit_machine_learning.optimizers import QNSPSA, SPSA
        from qiskit_machine_learning.utils import algorithm_globals

        algorithm_globals.random_seed = seed  # SPSA draws its perturbations from here
        history = []

        def callback(nfev, x, fx, stepsize, accepted):
            history.append(float(fx))

        if name == "spsa":
            opt = SPSA(maxiter=maxiter, callback=callback)
        else:
            opt = QNSPSA(backend.fidelity, maxiter=maxiter, callback=callback)
        res = opt.minimize(backend.cost, alpha0)
        # SPSA has no stopping rule but its budget: it never stops on its own.
        best = min(history, default=np.inf)
        return Optimization(
            np.asarray(res.x),
            int(res.nit or maxiter),
            False,
            history,
            f"{name}: iteration budget used (lowest loss {best:.3g})",
        )

    return run


#: SPSA and QN-SPSA calibrate their step from this many cost evaluations (Qiskit's 25 perturbations, two each).
SPSA_CALIBRATION = 50


def evaluation_budget(name: str, maxiter: int) -> int:
    """Cost evaluations ``maxiter`` iterations of optimiser ``name`` are expected to take.

    COBYLA evaluates once per iteration; L-BFGS-B about once (line searches
    add a few); SPSA and QN-SPSA twice, after their calibration.
    """
    return 2 * maxiter + SPSA_CALIBRATION if name in ("spsa", "qnspsa") else maxiter


#: Optimisers by name: ``f(backend, alpha0, maxiter, tol, seed) -> Optimization``.
OPTIMIZERS = {"cobyla": _cobyla, "lbfgsb": _lbfgsb, "spsa": _spsa_family("spsa"), "qnspsa": _spsa_family("qnspsa")}

#: What ``optimizer="auto"`` means for each backend.
DEFAULT_OPTIMIZER = {
    "exact": "lbfgsb",
    "circuits": "cobyla",
    "shots": "qnspsa",
    "shots-emulated": "qnspsa",
    "device": "qnspsa",
}
