"""One VNLS optimisation with NetKet: state, sampler, SR driver, loss history, read-out."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from qlsbench.problems import LinearSystem


@dataclass
class Run:
    """What a training run leaves: ``psi`` over the whole basis, the loss per iteration, the parameter count,
    ``psi`` after each marked iteration count, and ``psi`` after the warm start's pre-training (if any)."""

    psi: np.ndarray
    history: list[float]
    parameters: int
    progress: list[tuple[int, np.ndarray, float]] = field(default_factory=list)  # (steps, psi, seconds)
    warm_psi: np.ndarray | None = None


def loss_operator(system: LinearSystem, hilbert, exact: bool, c_samples: int, seed: int):
    """The loss as a NetKet operator: a dense ``LocalOperator`` of ``H`` (exact) or the CSR-table :class:`VNLSLoss`."""
    import netket as nk

    from qlsbench.solvers.vnls.operator import VNLSLoss, hamiltonian

    if exact:
        b = system.b / np.linalg.norm(system.b)
        return nk.operator.LocalOperator(hilbert, [hamiltonian(system.A, b).toarray()], [list(range(hilbert.size))])
    return VNLSLoss(hilbert, system.A, system.b, c_samples=c_samples, seed=seed)


def variational_state(hilbert, model: str, alpha: int, exact: bool, n_samples: int, seed: int):
    """FullSumState (exact) or MCState with the model's sampler; seeded."""
    import netket as nk

    from qlsbench.solvers.vnls.models import MODELS

    spec = MODELS[model]
    module = spec.build(hilbert, alpha)
    if exact:
        return nk.vqs.FullSumState(hilbert, module, seed=seed)
    return nk.vqs.MCState(spec.sampler(hilbert), module, n_samples=n_samples, seed=seed, sampler_seed=seed + 1)


def train(system: LinearSystem, n: int, *, model: str, exact: bool, n_samples: int, learning_rate: float,
          n_iter: int, diag_shift: float, alpha: int, seed: int, marks: list[int] = (),
          guess: np.ndarray | None = None, warm_steps: int = 0) -> Run:
    """Minimise the VNLS loss by SR for ``n_iter`` steps and read ``psi`` out over the basis.

    With a ``guess``, the state is first trained for ``warm_steps`` SR steps on
    the system ``(I, guess)``, whose VNLS loss ``<psi|(I - |g><g|)|psi>`` is
    smallest at ``psi = g``: a warm start by the solver's own machinery. Those
    steps count as cost evaluations: ``marks`` (evaluation counts at which
    ``psi`` is also read out, for progress) run over ``warm_steps + n_iter``,
    and the loss history holds only the main run's.
    """
    import netket as nk

    hilbert = nk.hilbert.Qubit(N=n)
    state = variational_state(hilbert, model, alpha, exact, n_samples, seed)
    progress: list[tuple[int, np.ndarray, float]] = []
    warm_psi, start = None, time.perf_counter()
    if guess is not None and warm_steps > 0:
        warm = LinearSystem(sp.identity(len(guess), format="csr", dtype=np.asarray(guess).dtype), guess)
        _optimize(state, loss_operator(warm, hilbert, exact, n_samples, seed), model, learning_rate, diag_shift,
                  warm_steps, 0, set(marks), progress, start)
        warm_psi = np.asarray(state.to_array(normalize=False))
    else:
        warm_steps = 0
    # The same state goes on: the main run starts where the pre-training left it.
    history = _optimize(state, loss_operator(system, hilbert, exact, n_samples, seed), model, learning_rate,
                        diag_shift, n_iter, warm_steps, set(marks), progress, start)
    psi = np.asarray(state.to_array(normalize=False))
    return Run(psi, history, int(state.n_parameters), progress, warm_psi)


def _optimize(state, op, model: str, learning_rate: float, diag_shift: float, steps: int, offset: int,
              wanted: set[int], progress: list, start: float) -> list[float]:
    """``steps`` SR steps of ``state`` on ``op``; ``psi`` read out at the ``wanted`` counts (after ``offset``)."""
    import netket as nk

    from qlsbench.solvers.vnls.models import MODELS

    qgt = nk.optimizer.qgt.QGTJacobianDense(holomorphic=MODELS[model].holomorphic)
    driver = nk.driver.VMC(op, nk.optimizer.Sgd(learning_rate=learning_rate), variational_state=state,
                           preconditioner=nk.optimizer.SR(qgt=qgt, diag_shift=diag_shift))
    log = nk.logging.RuntimeLog()

    def record(step, log_data, driver) -> bool:
        # NetKet 3.23 wraps a plain function as a legacy callback, called from ``before_parameter_update``
        # with the 0-based ``step_count``: ``step`` updates are done, so psi is the state after ``step``.
        if step > 0 and offset + step in wanted:
            progress.append((offset + step, np.asarray(state.to_array(normalize=False)), time.perf_counter() - start))
        return True

    driver.run(n_iter=steps, out=log, show_progress=False, callback=record)
    if offset + steps in wanted:
        progress.append((offset + steps, np.asarray(state.to_array(normalize=False)), time.perf_counter() - start))
    return [float(np.real(v)) for v in np.asarray(log.data["Energy"]["Mean"])]
