"""VNLS: the variational neural linear solver (Knitter, Stokes, Veerapaneni) on NetKet.

``registry.get("vnls", model="rbm" | "crbm" | "arnn", exact=False | True,
n_samples=1024, learning_rate=0.05, n_iter=2500, diag_shift=0.01, alpha=1,
sr_solver="auto" | "cg" | "cholesky", rtol=1e-2, warm_start="none" | "gmres", warm_start_iters=10,
warm_start_steps=500, stop_every=0)``.

A neural quantum state ``psi`` minimises ``<psi|H|psi> / <psi|psi>`` with
``H = A^dagger (I - |b><b|) A`` by stochastic reconfiguration: Monte Carlo
with the local energies of :mod:`.operator` (``exact=False``), or a full sum
over the basis (``exact=True``, ``nk.vqs.FullSumState``, up to
``EXACT_MAX_QUBITS``). The solution is read out over the whole basis
(``n <= READOUT_MAX_QUBITS``) and rescaled by least squares to ``A x = b``.

Success is judged by the read-out's residual, never by the loss: a run can
reach a small loss on ``A``'s lowest singular vector, where
``<psi|H|psi> ~ sigma_min(A)^2`` and the fidelity is near 0. That trap is
judged by the state, not the loss: the message names it only when the
read-out misses ``rtol`` and at least half of ``psi`` lies on ``A``'s lowest
right singular vector while the solution itself does not (a dense SVD, up
to ``DIAGNOSTICS_MAX_DIM``; beyond it the message says the trap was not
tested). The resources carry the diagnostics that tell a bad basin from a
representation limit: ``sigma_min``, ``loss_over_sigma_min2``,
``overlap_lowest_singular`` and ``solution_overlap_lowest_singular``.

Status: ``converged`` iff the read-out's relative residual is ``<= rtol``,
otherwise ``max_iter``: SR has no stopping rule of its own, so a miss always
means the budget ran out.

Warm start (``warm_start="gmres"``): ``warm_start_iters`` GMRES iterations
from zero give a classical guess ``g``; the state is first trained for
``warm_start_steps`` SR steps on the system ``(I, g)`` (loss
``<psi|(I - |g><g|)|psi>``, smallest at ``psi = g``), then on ``(A, b)``.
The resources add ``warm_start_residual`` (the guess's relative residual),
``warm_start_readout_residual`` (the pre-trained state's read-out residual)
and ``warm_start_guess_overlap`` (``|<g|psi>|^2`` of the normalised
pre-trained state); the solver has no reference solution, so no fidelity.

Early stop (``stop_every=k > 0``): every ``k`` SR steps the state is read
out and the run ends once the read-out's residual is within ``rtol``; the
read-out is over the whole basis, so it is a classical check this emulation
can afford, not a measurement a device could make. ``iterations``,
``cost_evaluations`` and ``mc_samples`` count the steps actually taken.
Without it (the default) every run takes ``n_iter`` steps.

Starting from an earlier solve (``solve(system, start=result.state)``, the
in-loop warm start and ``qlsbench solve --sequence``): the network weights of
the earlier solve replace the seeded initial ones when model, ``alpha`` and
qubits match; ``resources["started_from"]`` says whether they did.

``progress`` holds the read-out after the cost evaluations of
:func:`~qlsbench.solvers.variational.progress_marks`: one SR step is one
cost evaluation, the warm start's pre-training steps included, so the marks
run over ``warm_start_steps + n_iter``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from qlsbench.errors import InputError
from qlsbench.problems import LinearSystem
from qlsbench.solvers.base import BaseSolver, SolveResult, Status, start_used
from qlsbench.solvers.options import VNLSOptions
from qlsbench.solvers.variational import (
    least_squares_readout,
    progress_marks,
    qubits_of,
)

#: FullSumState builds H densely: 4^n entries.
EXACT_MAX_QUBITS = 12
#: The read-out evaluates psi on all 2^n states.
READOUT_MAX_QUBITS = 16
#: Warm starts: where the guess the state is first trained towards comes from.
WARM_STARTS = ("none", "gmres")
#: Mean loss over this many final iterations is the plateau reported as the final loss.
PLATEAU = 50
#: The trap diagnostics take a dense SVD of A up to this dimension.
DIAGNOSTICS_MAX_DIM = 4096
#: Share of psi on A's lowest right singular vector above which an unsolved run is called trapped
#: (when the solution's own share is below half of it).
TRAP_OVERLAP = 0.5


@dataclass
class VNLS(VNLSOptions, BaseSolver):
    """Variational neural linear solver: a neural quantum state trained by SR on NetKet (:class:`VNLSOptions`).

    The warm start (``warm_start="gmres"``: ``warm_start_iters`` GMRES iterations from zero give a classical
    guess ``g``, ``warm_start_steps`` SR steps towards ``g`` before the main run; see
    :func:`~qlsbench.solvers.vnls.training.train`) tests the bad-basin claim: at large kappa VNLS fails from
    a random start while a start near the solution stays there.

    One SR step is one cost evaluation, pre-training steps included: ``cost_evaluations`` and the
    ``progress`` marks run over ``warm_start_steps + n_iter`` when the warm start is used.
    """

    name: ClassVar[str] = "vnls"
    start_from: ClassVar[str] = "the previous solve's network weights (same qubits, model and alpha)"

    def _check(self) -> None:
        from qlsbench.solvers.vnls.models import MODELS

        if self.model not in MODELS:
            raise InputError(f"vnls: unknown model {self.model!r}; use one of {', '.join(MODELS)}")
        if self.warm_start not in WARM_STARTS:
            raise InputError(f"vnls: unknown warm_start {self.warm_start!r}; use one of {', '.join(WARM_STARTS)}")
        # Every number's bounds are its options record's (VNLSOptions), checked before this.

    def _solve(self, system: LinearSystem, seed: int, start: dict | None = None) -> SolveResult:
        n = qubits_of(system, "vnls")
        limit = EXACT_MAX_QUBITS if self.exact else READOUT_MAX_QUBITS
        if n > limit:
            return SolveResult(
                None,
                Status.SKIPPED,
                f"vnls: {n} qubits exceed the {'exact' if self.exact else 'read-out'} limit of {limit}",
            )
        from qlsbench.solvers.vnls.training import train

        guess, warm = self._guess(system)
        weights = self._weights(n, start, warm)
        steps = self.warm_start_steps if guess is not None else 0
        run = train(
            system,
            n,
            model=self.model,
            exact=self.exact,
            n_samples=self.n_samples,
            learning_rate=self.learning_rate,
            n_iter=self.n_iter,
            diag_shift=self.diag_shift,
            alpha=self.alpha,
            seed=seed,
            marks=progress_marks(steps + self.n_iter),
            guess=guess,
            warm_steps=steps,
            weights=weights,
            stop_every=self.stop_every,
            sr_solver=self.resolved_sr_solver,
            stop=lambda psi: _relative_residual(system, least_squares_readout(system, psi)) <= self.rtol,
        )
        x = least_squares_readout(system, run.psi)
        residual = _relative_residual(system, x)
        plateau = float(np.mean(run.history[-PLATEAU:]))
        if guess is not None and run.warm_psi is not None:  # a warm run had a guess
            warm.update(_warm_diagnostics(system, guess, run.warm_psi))
        resources = {
            "n_qubits": n,
            "model": self.model,
            "exact": self.exact,
            "parameters": run.parameters,
            "sr_solver": self.resolved_sr_solver,
            "mc_samples": 0 if self.exact else self.n_samples * (steps + run.steps),
            "iterations": run.steps,
            "cost_evaluations": steps + run.steps,
            "final_loss": plateau,
            "readout_residual": residual,
            **warm,
            **trap_diagnostics(system, run.psi, plateau),
        }
        message = _message(resources, residual, self.rtol)
        status = Status.CONVERGED if residual <= self.rtol else Status.MAX_ITER
        progress = [(k, least_squares_readout(system, psi), t) for k, psi, t in run.progress]
        state = {"weights": run.weights, "n_qubits": n, "model": self.model, "alpha": self.alpha}
        return SolveResult(
            x,
            status,
            message,
            iterations=run.steps,
            history=run.history,
            resources=resources,
            progress=progress,
            state=state,
        )

    @property
    def resolved_sr_solver(self) -> str:
        """SR's solve this solver runs: ``sr_solver``, with ``auto`` the dense Cholesky solve in exact mode (the
        geometric tensor of a few dozen parameters, solved exactly at a fraction of CG's iterations' cost) and
        NetKet's default CG when sampled (the paper's configuration)."""
        if self.sr_solver != "auto":
            return self.sr_solver
        return "cholesky" if self.exact else "cg"

    def _weights(self, n: int, start: dict | None, resources: dict):
        """The previous solve's weights when they fit this network (same qubits, model, alpha), else ``None``."""
        if start is None:
            return None
        fits = (
            isinstance(start, dict)
            and start.get("n_qubits") == n
            and start.get("model") == self.model
            and start.get("alpha") == self.alpha
        )
        start_used(
            resources,
            fits,
            ""
            if fits
            else f"the previous network is for "
            f"{start.get('n_qubits') if isinstance(start, dict) else '?'} qubits, this system has {n}",
        )
        return start["weights"] if fits else None

    def _guess(self, system: LinearSystem) -> tuple[np.ndarray | None, dict]:
        """The warm start's classical guess and what it is worth (its relative residual), or ``(None, {})``."""
        if self.warm_start == "none":
            return None, {}
        import scipy.sparse.linalg as spla

        k = min(self.warm_start_iters, system.dim)
        g, _ = spla.gmres(system.A, system.b, restart=k, maxiter=1, rtol=0.0, atol=0.0)
        residual = _relative_residual(system, g)
        if not np.any(g) or not np.all(np.isfinite(g)):
            return None, {"warm_start_residual": residual, "warm_start_used": False}
        return g, {"warm_start_residual": residual, "warm_start_used": True}


def _relative_residual(system: LinearSystem, x: np.ndarray) -> float:
    """``||A x - b|| / ||b||``."""
    return float(np.linalg.norm(system.A @ x - system.b) / np.linalg.norm(system.b))


def _warm_diagnostics(system: LinearSystem, guess: np.ndarray, psi: np.ndarray) -> dict:
    """What the pre-training reached: the read-out residual of its state and that state's overlap with the guess.

    The solver has no reference solution, so these stand in for a fidelity: the
    overlap says whether the pre-training found ``g``, the residual what that is worth.
    """
    norms = float(np.linalg.norm(guess) * np.linalg.norm(psi))
    overlap = float(abs(np.vdot(guess, psi)) ** 2 / norms**2) if norms > 0 else 0.0
    return {
        "warm_start_readout_residual": _relative_residual(system, least_squares_readout(system, psi)),
        "warm_start_guess_overlap": overlap,
    }


def trap_diagnostics(system: LinearSystem, psi: np.ndarray, loss: float) -> dict:
    """Where ``psi`` sits against ``A``'s lowest right singular vector ``v``, from a dense SVD.

    The loss is ``<psi|H|psi> / <psi|psi>`` with ``b`` normalised, so on ``v``
    it is at most ``sigma_min^2``: a small loss alone does not say where
    ``psi`` is. Returns ``sigma_min``, ``loss_over_sigma_min2``,
    ``overlap_lowest_singular`` (``|<v|psi>|^2 / <psi|psi>``) and
    ``solution_overlap_lowest_singular`` (the same share for ``A^-1 b``, from
    the SVD: ``psi`` on ``v`` is a trap only when the solution is not), with
    ``trap_tested`` True; only ``trap_tested`` False when ``A`` is too large
    for a dense SVD (dimension above :data:`DIAGNOSTICS_MAX_DIM`).
    """
    if system.dim > DIAGNOSTICS_MAX_DIM:
        return {"trap_tested": False}
    import scipy.linalg as la

    u, sigma, vh = la.svd(system.A.toarray())
    smin = float(sigma[-1])
    # Weights of A^-1 b on the right singular vectors: |<u_i|b>| / sigma_i (sigma_min = 0: all on v).
    with np.errstate(divide="ignore", invalid="ignore"):
        weights = np.abs(u.conj().T @ system.b) ** 2 / sigma**2
    solution_share = float(weights[-1] / weights.sum()) if np.all(np.isfinite(weights)) and weights.sum() else 1.0
    norm2 = float(np.vdot(psi, psi).real)
    share = float(abs(np.vdot(vh[-1].conj(), psi)) ** 2 / norm2) if norm2 > 0 else 0.0
    return {
        "trap_tested": True,
        "sigma_min": smin,
        "loss_over_sigma_min2": loss / smin**2 if smin > 0 else float("inf"),
        "overlap_lowest_singular": share,
        "solution_overlap_lowest_singular": solution_share,
    }


def _message(resources: dict, residual: float, rtol: float) -> str:
    """Why the run ended as it did; names the lowest-singular-vector trap only when psi is on that vector.

    A met ``rtol`` is never a trap. A miss always means the budget ran out (SR
    has no stopping rule of its own); the message then says "trapped" only
    when at least :data:`TRAP_OVERLAP` of ``psi`` lies on ``A``'s lowest right
    singular vector and the solution's own share there is below half of that,
    and says so when the trap could not be tested. The report's checkpoint table
    marks a run as trapped by that word, so no other message may contain it.
    """
    loss = resources["final_loss"]
    if residual <= rtol:
        return f"vnls: read-out residual {residual:.2e} <= rtol {rtol:g} (loss {loss:.3g})"
    evaluations = resources.get("cost_evaluations")
    budget = f"the budget of {evaluations} cost evaluations" if evaluations else "the iteration budget"
    overlap = resources.get("overlap_lowest_singular")
    solution = resources.get("solution_overlap_lowest_singular", 1.0)
    if overlap is not None and overlap >= TRAP_OVERLAP and solution < TRAP_OVERLAP / 2:
        return (
            f"vnls: trapped - {overlap:.0%} of psi lies on A's lowest right singular vector "
            f"(sigma_min(A)^2 = {resources['sigma_min'] ** 2:.3g}, loss {loss:.3g}), not on the solution "
            f"(read-out residual {residual:.2e} > rtol {rtol:g} after {budget})"
        )
    if overlap is None:
        trap = f"; lowest-singular-vector trap not tested (dimension above {DIAGNOSTICS_MAX_DIM})"
    else:
        trap = f"; {overlap:.0%} of psi on A's lowest right singular vector"
    return f"vnls: read-out residual {residual:.2e} > rtol {rtol:g} after {budget} (loss {loss:.3g}){trap}"


__all__ = ["VNLS"]
