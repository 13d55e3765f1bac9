"""One VNLS optimisation with NetKet: state, sampler, SR driver, loss history, read-out."""

from __future__ import annotations

import contextlib
import functools
import io
import time
from collections.abc import Iterable
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
    steps: int = 0  # SR steps of the main run actually taken (fewer than n_iter when stopped early)
    weights: object = None  # the trained network parameters (a pytree of numpy arrays), for a warm start


def loss_operator(system: LinearSystem, hilbert, exact: bool, c_samples: int, seed: int):
    """The loss as a NetKet operator: ``H`` as a matrix (exact, :class:`ExactLoss`) or the CSR-table
    :class:`VNLSLoss` (Monte Carlo)."""
    from qlsbench.solvers.vnls.operator import ExactLoss, VNLSLoss, hamiltonian

    if exact:
        b = system.b / np.linalg.norm(system.b)
        return ExactLoss(hilbert, hamiltonian(system.A, b).toarray())
    return VNLSLoss(hilbert, system.A, system.b, c_samples=c_samples, seed=seed)


def variational_state(hilbert, model: str, alpha: int, exact: bool, n_samples: int, seed: int):
    """FullSumState (exact) or MCState with the model's sampler; seeded."""
    import netket as nk

    from qlsbench.solvers.vnls.compile_cache import use_compile_cache
    from qlsbench.solvers.vnls.models import MODELS

    use_compile_cache()  # before the first program is compiled: JAX reads the setting once
    spec = MODELS[model]
    module = spec.build(hilbert, alpha)
    if exact:
        return nk.vqs.FullSumState(hilbert, module, seed=seed)
    return nk.vqs.MCState(spec.sampler(hilbert), module, n_samples=n_samples, seed=seed, sampler_seed=seed + 1)


def train(
    system: LinearSystem,
    n: int,
    *,
    model: str,
    exact: bool,
    n_samples: int,
    learning_rate: float,
    n_iter: int,
    diag_shift: float,
    alpha: int,
    seed: int,
    marks: Iterable[int] = (),
    guess: np.ndarray | None = None,
    warm_steps: int = 0,
    weights=None,
    stop=None,
    stop_every: int = 0,
    driver: bool = False,
    sr_solver: str = "cg",
) -> Run:
    """Minimise the VNLS loss by SR for ``n_iter`` steps and read ``psi`` out over the basis.

    With a ``guess``, the state is first trained for ``warm_steps`` SR steps on
    the system ``(I, guess)``, whose VNLS loss ``<psi|(I - |g><g|)|psi>`` is
    smallest at ``psi = g``: a warm start by the solver's own machinery. Those
    steps count as cost evaluations: ``marks`` (evaluation counts at which
    ``psi`` is also read out, for progress) run over ``warm_steps + n_iter``,
    and the loss history holds only the main run's.

    ``weights`` (an earlier run's :attr:`Run.weights` for the same model and
    qubits) replace the seeded initial parameters. With ``stop_every > 0``,
    ``stop(psi)`` is asked every ``stop_every`` steps of the main run, and a
    true answer ends it early.

    The SR steps between read-outs run as one compiled loop (:mod:`.exact_loop` in exact mode,
    :mod:`.sampled_loop` in Monte Carlo mode with a Metropolis sampler); ``driver=True`` takes them one by one
    with NetKet's ``VMC`` driver instead, the reference the loops are checked and timed against. The
    autoregressive model's direct sampler always uses the driver.
    """
    import netket as nk

    hilbert = nk.hilbert.Qubit(N=n)
    state = variational_state(hilbert, model, alpha, exact, n_samples, seed)
    if weights is not None:
        state.parameters = weights
    progress: list[tuple[int, np.ndarray, float]] = []
    warm_psi, start = None, time.perf_counter()
    if guess is not None and warm_steps > 0:
        warm = LinearSystem(sp.identity(len(guess), format="csr", dtype=np.asarray(guess).dtype), guess)
        _optimize(
            state,
            loss_operator(warm, hilbert, exact, n_samples, seed),
            model,
            learning_rate,
            diag_shift,
            warm_steps,
            0,
            set(marks),
            progress,
            start,
            driver=driver,
            sr_solver=sr_solver,
        )
        warm_psi = np.asarray(state.to_array(normalize=False))
    else:
        warm_steps = 0
    # The same state goes on: the main run starts where the pre-training left it.
    history, steps = _optimize(
        state,
        loss_operator(system, hilbert, exact, n_samples, seed),
        model,
        learning_rate,
        diag_shift,
        n_iter,
        warm_steps,
        set(marks),
        progress,
        start,
        stop,
        stop_every,
        driver=driver,
        sr_solver=sr_solver,
    )
    psi = np.asarray(state.to_array(normalize=False))
    import jax

    weights = jax.tree_util.tree_map(np.asarray, state.parameters)
    return Run(psi, history, int(state.n_parameters), progress, warm_psi, steps, weights)


#: SR's linear solves by name: NetKet's default, conjugate gradient without restart, and its dense Cholesky
#: solve (``nk.optimizer.solver.cholesky``), which the driver offers as well.
SR_SOLVERS = ("cg", "cholesky")


def sr_solve(name: str):
    """SR's solve function of that name (:data:`SR_SOLVERS`), as ``nk.optimizer.SR(solver=...)`` takes it."""
    import jax
    import netket as nk

    return {"cg": jax.scipy.sparse.linalg.cg, "cholesky": nk.optimizer.solver.cholesky}[name]


@functools.cache
def sgd(learning_rate: float):
    """One SGD optimizer per learning rate, shared by every solve of this process.

    NetKet jits its parameter update with the optimizer's ``update`` as a static argument, so a fresh optimizer
    per solve compiled, and kept, one more executable each time: 1.5 MB per solve of an 8-unknown system, 4 GB
    resident over an in-loop run of a few hundred solves. An optax optimizer holds no state (that is
    ``optimizer_state``, per driver), so sharing it changes no number.
    """
    import netket as nk

    return nk.optimizer.Sgd(learning_rate=float(learning_rate))


def _optimize(
    state,
    op,
    model: str,
    learning_rate: float,
    diag_shift: float,
    steps: int,
    offset: int,
    wanted: set[int],
    progress: list,
    start: float,
    stop=None,
    stop_every: int = 0,
    *,
    driver: bool = False,
    sr_solver: str = "cg",
) -> tuple[list[float], int]:
    """``steps`` SR steps of ``state`` on ``op``; ``psi`` read out at the ``wanted`` counts (after ``offset``).

    Returns the loss per step and the steps taken: fewer than ``steps`` when ``stop(psi)``, asked every
    ``stop_every`` steps, said the state is good enough. A state with a compiled loop (:func:`_loop_of`)
    runs it unless ``driver``; any other state, NetKet's driver.
    """
    run = _driver_steps if driver or _loop_of(state, op) is None else _loop_steps
    settings = (model, learning_rate, diag_shift, sr_solve(sr_solver))
    return run(state, op, *settings, steps, offset, wanted, progress, start, stop, stop_every)


def _loop_of(state, op):
    """The compiled loop class for ``state`` on ``op``: :class:`~.exact_loop.ExactLoop` for a ``FullSumState``,
    :class:`~.sampled_loop.SampledLoop` for an ``MCState`` with a Metropolis sampler on :class:`~.operator.VNLSLoss`,
    else ``None`` (the autoregressive model's direct sampler: the driver)."""
    import netket as nk

    from qlsbench.solvers.vnls.operator import VNLSLoss

    if isinstance(state, nk.vqs.FullSumState):
        from qlsbench.solvers.vnls.exact_loop import ExactLoop

        return ExactLoop
    if isinstance(state.sampler, nk.sampler.MetropolisSampler) and isinstance(op, VNLSLoss):
        from qlsbench.solvers.vnls.sampled_loop import SampledLoop

        return SampledLoop
    return None


def _loop_steps(
    state, op, model, learning_rate, diag_shift, solve, steps, offset, wanted, progress, start, stop, stop_every
) -> tuple[list[float], int]:
    """:func:`_optimize` by a compiled loop (:func:`_loop_of`): compiled chunks that end where the driver's
    callback would read ``psi`` (a mark, a stop check, the last step), with the same read-outs in the same order."""
    from qlsbench.solvers.vnls.models import MODELS

    loop = _loop_of(state, op)(state, op, sgd(learning_rate), MODELS[model].holomorphic, diag_shift, steps, solve)
    checks = set(range(stop_every, steps, stop_every)) if stop is not None and stop_every else set()
    ends = sorted({k - offset for k in wanted if offset < k <= offset + steps} | checks | {steps})
    for end in ends:
        loop.run_to(end)
        loop.sync()
        if offset + end in wanted:
            progress.append((offset + end, np.asarray(state.to_array(normalize=False)), time.perf_counter() - start))
        if end in checks and stop(np.asarray(state.to_array(normalize=False))):
            break
    return loop.losses(), loop.done


def _driver_steps(
    state, op, model, learning_rate, diag_shift, solve, steps, offset, wanted, progress, start, stop, stop_every
) -> tuple[list[float], int]:
    """:func:`_optimize` by NetKet's ``VMC`` driver, one step per Python iteration, read-outs in a callback."""
    import netket as nk

    from qlsbench.solvers.vnls.models import MODELS

    qgt = nk.optimizer.qgt.QGTJacobianDense(holomorphic=MODELS[model].holomorphic)
    driver = nk.driver.VMC(
        op,
        sgd(learning_rate),
        variational_state=state,
        preconditioner=nk.optimizer.SR(qgt=qgt, diag_shift=diag_shift, solver=solve),
    )
    log = nk.logging.RuntimeLog()

    taken = {"steps": steps}

    def record(step, log_data, driver) -> bool:
        # NetKet 3.23 wraps a plain function as a legacy callback, called from ``before_parameter_update``
        # with the 0-based ``step_count``: ``step`` updates are done, so psi is the state after ``step``.
        if step > 0 and offset + step in wanted:
            progress.append((offset + step, np.asarray(state.to_array(normalize=False)), time.perf_counter() - start))
        if (
            stop is not None
            and stop_every
            and step > 0
            and step % stop_every == 0
            and stop(np.asarray(state.to_array(normalize=False)))
        ):
            taken["steps"] = step  # returning False ends the run before this step's update
            return False
        return True

    # NetKet prints a line when a callback ends the run; an early stop is the plan here, not news.
    quiet = contextlib.redirect_stdout(io.StringIO()) if stop_every else contextlib.nullcontext()
    with quiet:
        driver.run(n_iter=steps, out=log, show_progress=False, callback=record)
    steps = taken["steps"]
    if offset + steps in wanted and not (progress and progress[-1][0] == offset + steps):
        progress.append((offset + steps, np.asarray(state.to_array(normalize=False)), time.perf_counter() - start))
    history = [float(np.real(v)) for v in np.asarray(log.data["Energy"]["Mean"])][:steps]
    return history, steps
