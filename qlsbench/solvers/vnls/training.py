"""One VNLS optimisation with NetKet: state, sampler, SR driver, loss history, read-out."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from qlsbench.problems import LinearSystem


@dataclass
class Run:
    """What a training run leaves: ``psi`` over the whole basis, the loss per iteration, the parameter count,
    and ``psi`` after each marked iteration count."""

    psi: np.ndarray
    history: list[float]
    parameters: int
    progress: list[tuple[int, np.ndarray]] = field(default_factory=list)


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
          n_iter: int, diag_shift: float, alpha: int, seed: int, marks: list[int] = ()) -> Run:
    """Minimise the VNLS loss by SR for ``n_iter`` steps and read ``psi`` out over the basis.

    ``marks``: iteration counts after which ``psi`` is also read out (progress).
    """
    import netket as nk

    from qlsbench.solvers.vnls.models import MODELS

    hilbert = nk.hilbert.Qubit(N=n)
    state = variational_state(hilbert, model, alpha, exact, n_samples, seed)
    op = loss_operator(system, hilbert, exact, n_samples, seed)
    qgt = nk.optimizer.qgt.QGTJacobianDense(holomorphic=MODELS[model].holomorphic)
    driver = nk.driver.VMC(op, nk.optimizer.Sgd(learning_rate=learning_rate), variational_state=state,
                           preconditioner=nk.optimizer.SR(qgt=qgt, diag_shift=diag_shift))
    log = nk.logging.RuntimeLog()
    wanted, progress = set(marks), []

    def record(step, log_data, driver) -> bool:
        # A plain-function callback runs just before the update of step ``step`` (0-based): ``step`` are done.
        if step in wanted:
            progress.append((step, np.asarray(state.to_array(normalize=False))))
        return True

    driver.run(n_iter=n_iter, out=log, show_progress=False, callback=record)
    history = [float(np.real(v)) for v in np.asarray(log.data["Energy"]["Mean"])]
    psi = np.asarray(state.to_array(normalize=False))
    if n_iter in wanted:
        progress.append((n_iter, psi))
    return Run(psi, history, int(state.n_parameters), progress)
